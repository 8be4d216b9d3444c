"""The on-screen transcript as Markdown (``/export`` when the run has no session file)."""

from __future__ import annotations

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


def transcript_markdown(entries: list[Entry]) -> str:
    parts: list[str] = ["# navtui transcript"]
    for entry in entries:
        if isinstance(entry, UserEntry):
            text, paths = display_user_text(entry.text)
            attached = f"\n\n_attached: {', '.join(paths)}_" if paths else ""
            parts.append(f"## User\n\n{text}{attached}")
        elif isinstance(entry, AssistantEntry):
            parts.append(f"## Assistant\n\n{entry.text.strip()}")
        elif isinstance(entry, ThinkingEntry):
            parts.append("<details><summary>Thinking</summary>\n\n" + entry.text.strip() + "\n\n</details>")
        elif isinstance(entry, ToolEntry):
            status = {"pending": "…", "success": "ok", "error": "error"}[entry.status]
            body = entry.diff or entry.result
            parts.append(
                f"**{entry.name}** `{entry.title or ''}` ({status})\n\n{_fence(body)}"
                if body
                else f"**{entry.name}** `{entry.title or ''}` ({status})"
            )
        elif isinstance(entry, NoticeEntry):
            parts.append(f"> {entry.text}")
        elif isinstance(entry, ErrorEntry):
            parts.append(f"> **Error:** {entry.message}" + (f" ({entry.hint})" if entry.hint else ""))
        elif isinstance(entry, DividerEntry):
            parts.append(f"---\n\n_{entry.label}_")
    return "\n\n".join(parts) + "\n"
