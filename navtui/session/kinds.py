"""What kind of row an entry is in the session tree ("user", "tool-error", "compaction" ...): from its model, or
from its decoded line without building the model.

The tree filters every row by its kind and parses only the rows it draws, so the index derives the kind of a
message line when it loads it (``record_kind``), by the rules the models read the same fields with. Where a line
is not plainly valid in the fields that decide its kind (a snake_case spelling, a value of another type, an
unknown block), ``record_kind`` says ``None`` and the entry is parsed when its kind is first needed.
"""

from __future__ import annotations

from typing import Any

from navtui.core.messages import ToolResultMessage, UserMessage
from navtui.session.entries import (
    CORE_ROLES,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
)

_KINDS: dict[type, str] = {
    BranchSummaryEntry: "summary",
    CompactionEntry: "compaction",
    CustomMessageEntry: "custom-message",
    CustomEntry: "custom",
    ModelChangeEntry: "model",
    ThinkingLevelChangeEntry: "thinking",
    LabelEntry: "label",
    SessionInfoEntry: "info",
}
_ERROR_STOPS = frozenset({"error", "aborted"})
# stop reasons as AssistantMessage reads them (its own names and the aliases it maps)
_STOPS = frozenset(
    {"stop", "length", "tool_use", "error", "aborted", "toolUse", "end_turn", "max_tokens", "tool_calls"}
)


def entry_kind(entry: Entry) -> str:
    """The row kind of a parsed entry."""
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            return "user"
        if isinstance(message, ToolResultMessage):
            return "tool-error" if message.is_error else "tool"
        if message.stop_reason in _ERROR_STOPS or message.error_message:
            return "assistant-error"
        if not message.text.strip() and message.tool_calls:
            return "assistant-tools"
        return "assistant"
    return _KINDS.get(type(entry), "other")


def record_kind(record: dict[str, Any]) -> str | None:
    """The row kind of a decoded message line, as ``entry_kind`` gives it for the parsed entry; ``None`` when the
    line is of another type or not plainly valid where the kind is decided (then parse it)."""
    if record.get("type") != "message":
        return None
    message = record.get("message")
    if type(message) is not dict or type(message.get("role")) is not str or message["role"] not in CORE_ROLES:
        return "other"  # pi's extended roles and what is not a message at all stay raw entries
    if (
        type(record.get("id")) is not str
        or not _optional(record.get("parentId"), str)
        or not _absent_or(record, "timestamp", str)
        or "parent_id" in record
        or not _absent_or(message, "timestamp", int)
    ):
        return None
    role = message["role"]
    if role == "user":
        content = message.get("content")
        return "user" if type(content) is str or _user_blocks(content) else None
    if role == "toolResult":
        if (
            type(message.get("toolCallId")) is not str
            or type(message.get("toolName")) is not str
            or not _absent_or(message, "isError", bool)
            or "is_error" in message
            or not _user_blocks(message.get("content", []))
        ):
            return None
        return "tool-error" if message.get("isError") else "tool"
    stop, error, content = message.get("stopReason", "stop"), message.get("errorMessage"), message.get("content", [])
    if (
        type(stop) is not str
        or stop not in _STOPS
        or not _optional(error, str)
        or "stop_reason" in message
        or "error_message" in message
        or not _optional(message.get("usage"), dict)
        or type(content) is not list
    ):
        return None
    text, calls = "", False
    for block in content:
        kind = block.get("type") if type(block) is dict else None
        if kind == "text" and type(block.get("text")) is str:
            text += block["text"]
        elif kind == "toolCall" and type(block.get("id")) is str and type(block.get("name")) is str:
            calls = True
            if not _absent_or(block, "arguments", dict):
                return None
        elif kind != "thinking" or type(block.get("thinking")) is not str:
            return None
    if stop in _ERROR_STOPS or error:
        return "assistant-error"
    return "assistant-tools" if calls and not text.strip() else "assistant"


def _optional(value: Any, kind: type) -> bool:
    return value is None or type(value) is kind


def _absent_or(record: dict[str, Any], key: str, kind: type) -> bool:
    """``key`` is missing (the model's default) or holds a ``kind`` (``None`` is not one)."""
    return key not in record or type(record[key]) is kind


def _user_blocks(content: Any) -> bool:
    if type(content) is not list:
        return False
    for block in content:
        kind = block.get("type") if type(block) is dict else None
        if not (kind == "text" and type(block.get("text")) is str) and not (
            kind == "image" and type(block.get("data")) is str
        ):
            return False
    return True
