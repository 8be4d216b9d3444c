"""Session entries (a resumed session's root-to-leaf path) as transcript entries."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from navtui.agent.advisor import ADVISOR_PREFIX
from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.widgets.entries import (
    AdvisorEntry,
    AssistantEntry,
    ContextEntry,
    DividerEntry,
    Entry,
    ErrorEntry,
    NoticeEntry,
    ThinkingEntry,
    ToolEntry,
    UserEntry,
)

Describe = Callable[[ToolCall], str]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(block, "text", "") for block in content or [])


def tool_entry(call: ToolCall, describe: Describe | None = None) -> ToolEntry:
    """A card's record; ``describe`` now (a live call), or later when the card is first shown (a long session)."""
    title = describe(call) if describe is not None else None
    return ToolEntry(call_id=call.id, name=call.name, title=title, arguments=dict(call.arguments))


def apply_result(entry: ToolEntry, result: ToolResultMessage) -> None:
    entry.status = "error" if result.is_error else "success"
    entry.result = result.text
    entry.details = result.details
    diff = (result.details or {}).get("diff")
    entry.diff = diff if isinstance(diff, str) and diff.strip() else None


def session_entries(items: Iterable[Any]) -> list[Entry]:
    """Convert ``SessionManager.display_items()`` (messages and markers) into transcript entries.

    Tool titles are left to the transcript (``Transcript.describe``): describing thousands of calls of a long
    session up front would cost more than showing its tail.
    """
    out: list[Entry] = []
    tools: dict[str, ToolEntry] = {}
    for item in items:
        kind = getattr(item, "type", None)
        if kind == "message":
            _message(item.message, out, tools)
        elif kind == "compaction":
            before = getattr(item, "tokens_before", 0)
            label = f"context compacted ({before} tokens before)" if before else "context compacted"
            out.append(DividerEntry(label, detail=item.summary))
        elif kind == "branch_summary":
            out.append(DividerEntry("summary of the branch left behind", detail=item.summary))
        elif kind == "custom_message" and getattr(item, "display", True):
            custom = item.custom_type
            text = _text(item.content)
            if custom == "handover":
                out.append(DividerEntry("handover · context restarted from notes", detail=text))
            elif custom == "index_context":
                files = list((getattr(item, "details", None) or {}).get("files", []))
                out.append(ContextEntry("index", text, files, len(text) // 4))
            else:
                out.append(NoticeEntry(text, title=custom))
        elif kind == "model_change":
            model = getattr(item, "model_id", None) or getattr(item, "model", None)
            if model:
                out.append(DividerEntry(f"model: {model}"))
    return out


def _advice(text: str) -> tuple[str, str]:
    """(note, severity) of a stored advisor message: ``- [concern] note`` lines after the prefix."""
    body = text[len(ADVISOR_PREFIX) :].strip()
    for severity in ("blocker", "concern"):
        if f"[{severity}]" in body:
            return body.replace(f"[{severity}] ", ""), severity
    return body, "nit"


def _message(message: Any, out: list[Entry], tools: dict[str, ToolEntry]) -> None:
    if isinstance(message, UserMessage):
        if message.text.startswith(ADVISOR_PREFIX):
            out.append(AdvisorEntry(*_advice(message.text)))
        else:
            out.append(UserEntry(message.text))
    elif isinstance(message, AssistantMessage):
        for block in message.content:
            if isinstance(block, ThinkingBlock):
                if block.thinking.strip():
                    out.append(ThinkingEntry(block.thinking))
            elif isinstance(block, TextBlock):
                if out and isinstance(out[-1], AssistantEntry):
                    out[-1].text += block.text
                elif block.text.strip():
                    out.append(AssistantEntry(block.text))
            elif isinstance(block, ToolCall):
                entry = tool_entry(block)
                tools[block.id] = entry
                out.append(entry)
        if message.stop_reason == "error" and message.error_message:
            out.append(ErrorEntry(message.error_message))
        elif message.stop_reason == "aborted":
            out.append(NoticeEntry("Interrupted; the partial answer was kept."))
    elif isinstance(message, ToolResultMessage):
        entry = tools.get(message.tool_call_id)
        if entry is None:
            entry = ToolEntry(call_id=message.tool_call_id, name=message.tool_name, title="")
            out.append(entry)
        apply_result(entry, message)
