"""The on-screen transcript as Markdown (``/export`` when the run has no session file)."""

from __future__ import annotations

from collections.abc import Iterable

from navtui.session.markdown_safe import safe_markdown
from navtui.widgets.cards import display_user_text
from navtui.widgets.items import (
    AssistantItem,
    DividerItem,
    ErrorItem,
    NoticeItem,
    ThinkingItem,
    ToolItem,
    TranscriptItem,
    UserItem,
)


def _fence(text: str) -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}\n{text.rstrip()}\n{ticks}"


def _code(text: str) -> str:
    """An inline code span that holds ``text`` whatever backticks it contains."""
    ticks = "`"
    while ticks in text:
        ticks += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def transcript_markdown(items: Iterable[TranscriptItem]) -> str:
    parts: list[str] = ["# navtui transcript"]
    for item in items:
        if isinstance(item, UserItem):
            text, paths = display_user_text(item.text)
            attached = f"\n\n_attached: {', '.join(paths)}_" if paths else ""
            parts.append(f"## User\n\n{safe_markdown(text)}{safe_markdown(attached)}")
        elif isinstance(item, AssistantItem):
            parts.append(f"## Assistant\n\n{safe_markdown(item.text.strip())}")
        elif isinstance(item, ThinkingItem):
            thinking = safe_markdown(item.text.strip())  # inside our own <details>: its HTML must stay text
            parts.append("<details><summary>Thinking</summary>\n\n" + thinking + "\n\n</details>")
        elif isinstance(item, ToolItem):
            status = {"pending": "…", "success": "ok", "error": "error"}[item.status]
            body = item.diff or item.result
            parts.append(
                f"**{item.name}** {_code(item.title or '')} ({status})\n\n{_fence(body)}"
                if body
                else f"**{item.name}** {_code(item.title or '')} ({status})"
            )
        elif isinstance(item, NoticeItem):
            parts.append(f"> {safe_markdown(item.text)}")
        elif isinstance(item, ErrorItem):
            error = item.message + (f" ({item.hint})" if item.hint else "")
            parts.append(f"> **Error:** {safe_markdown(error)}")
        elif isinstance(item, DividerItem):
            parts.append(f"---\n\n_{item.label}_")
    return "\n\n".join(parts) + "\n"
