"""The on-screen transcript as Markdown (``/export`` when the run has no session file)."""

from __future__ import annotations

from navtui.session.markdown_safe import escape_raw_html
from navtui.widgets.cards import display_user_text
from navtui.widgets.entries import (
    AssistantEntry,
    DividerEntry,
    Entry,
    ErrorEntry,
    NoticeEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
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


def transcript_markdown(entries: list[Entry]) -> str:
    parts: list[str] = ["# navtui transcript"]
    for entry in entries:
        if isinstance(entry, UserEntry):
            text, paths = display_user_text(entry.text)
            attached = f"\n\n_attached: {', '.join(paths)}_" if paths else ""
            parts.append(f"## User\n\n{escape_raw_html(text)}{escape_raw_html(attached)}")
        elif isinstance(entry, AssistantEntry):
            parts.append(f"## Assistant\n\n{escape_raw_html(entry.text.strip())}")
        elif isinstance(entry, ThinkingEntry):
            thinking = escape_raw_html(entry.text.strip())  # inside our own <details>: its HTML must stay text
            parts.append("<details><summary>Thinking</summary>\n\n" + thinking + "\n\n</details>")
        elif isinstance(entry, ToolEntry):
            status = {"pending": "…", "success": "ok", "error": "error"}[entry.status]
            body = entry.diff or entry.result
            parts.append(
                f"**{entry.name}** {_code(entry.title or '')} ({status})\n\n{_fence(body)}"
                if body
                else f"**{entry.name}** {_code(entry.title or '')} ({status})"
            )
        elif isinstance(entry, NoticeEntry):
            parts.append(f"> {escape_raw_html(entry.text)}")
        elif isinstance(entry, ErrorEntry):
            error = entry.message + (f" ({entry.hint})" if entry.hint else "")
            parts.append(f"> **Error:** {escape_raw_html(error)}")
        elif isinstance(entry, DividerEntry):
            parts.append(f"---\n\n_{entry.label}_")
    return "\n\n".join(parts) + "\n"
