"""The branch summary: the model reads the path being left behind and writes what to remember about it.

One plain request (no tools) through the session's provider. The abandoned entries are serialised as text,
newest kept first when they do not fit, so the model summarises a transcript instead of continuing it.
The read / modified files are appended in tags, as pi does, so later summaries can carry them on.
"""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any

from navtui.core.errors import NavtuiError
from navtui.core.events import ErrorEvent, TextDelta
from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from navtui.providers.base import ChatRequest
from navtui.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    Entry,
    MessageEntry,
)

SUMMARY_MAX_TOKENS = 2048
DEFAULT_WINDOW = 32768
RESERVE_TOKENS = SUMMARY_MAX_TOKENS + 2048  # the answer plus the instructions around the transcript
RESULT_CHARS = 600  # of each tool result: enough to know what came back

SUMMARY_SYSTEM = (
    "You summarise conversations between a user and an AI coding assistant. You are given a transcript "
    "inside <conversation> tags and instructions after it. Do not continue the conversation and do not answer "
    "questions asked in it: write only the summary that is asked for."
)

SUMMARY_INSTRUCTIONS = """Summarise this branch of the conversation, which the user is leaving, so the work can be picked up later.

Use this format:

## Goal
What the user was trying to do in this branch.

## Progress
- Done: what was completed or changed
- Open: what was started but not finished, and anything blocking

## Key facts
Decisions, findings and errors worth remembering. Keep exact file paths, function names and error messages.

Be brief."""

_WRITE_TOOLS = frozenset({"write", "edit"})


async def summarize_branch(
    provider: Any,
    entries: list[Entry],
    *,
    instructions: str | None = None,
    window: int | None = None,
) -> str:
    """The model's summary of ``entries`` (oldest first); raises ``NavtuiError`` when the model fails."""
    budget = max((window or DEFAULT_WINDOW) - RESERVE_TOKENS, 1024) * 4
    transcript, read, modified = serialize_entries(entries, budget)
    if not transcript:
        return "(The branch held no conversation.)"
    ask = SUMMARY_INSTRUCTIONS
    if instructions and instructions.strip():
        ask += f"\n\nAlso follow these instructions from the user:\n{instructions.strip()}"
    prompt = f"<conversation>\n{transcript}\n</conversation>\n\n{ask}"
    request = ChatRequest(
        system=SUMMARY_SYSTEM, messages=[UserMessage(content=prompt)], tools=(), max_tokens=SUMMARY_MAX_TOKENS
    )
    parts: list[str] = []
    async with aclosing(provider.stream(request)) as events:
        async for event in events:
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, ErrorEvent):
                raise NavtuiError(
                    f"The branch summary failed: {event.message}",
                    hint=event.hint or "navigate without a summary, or try again",
                )
    summary = "".join(parts).strip()
    if not summary:
        raise NavtuiError("The model wrote an empty branch summary", hint="navigate without a summary, or try again")
    return summary + file_lists(read, modified)


def serialize_entries(entries: list[Entry], budget_chars: int) -> tuple[str, list[str], list[str]]:
    """(transcript, read files, modified files); the newest entries are kept when the budget runs out."""
    read: dict[str, None] = {}
    modified: dict[str, None] = {}
    blocks: list[str] = []
    used = 0
    for entry in reversed(entries):
        _collect_files(entry, read, modified)
        block = _entry_text(entry)
        if not block:
            continue
        if used + len(block) > budget_chars:
            if not blocks:  # the newest entry alone is too long: keep its end
                blocks.append("[...]\n" + block[-budget_chars:])
            break
        blocks.append(block)
        used += len(block) + 2
    blocks.reverse()
    modified_files = list(modified)
    return "\n\n".join(blocks), [path for path in read if path not in modified], modified_files


def file_lists(read: list[str], modified: list[str]) -> str:
    out = ""
    if read:
        out += "\n\n<read-files>\n" + "\n".join(read) + "\n</read-files>"
    if modified:
        out += "\n\n<modified-files>\n" + "\n".join(modified) + "\n</modified-files>"
    return out


def _entry_text(entry: Entry) -> str:
    if isinstance(entry, MessageEntry):
        message = entry.message
        if isinstance(message, UserMessage):
            return f"[User]: {message.text}"
        if isinstance(message, ToolResultMessage):
            text = message.text
            if len(text) > RESULT_CHARS:
                text = text[:RESULT_CHARS] + f" [... {len(text) - RESULT_CHARS} more characters]"
            status = "error" if message.is_error else "result"
            return f"[Tool {status} ({message.tool_name})]: {text}"
        assert isinstance(message, AssistantMessage)
        parts = []
        if message.text.strip():
            parts.append(f"[Assistant]: {message.text.strip()}")
        calls = "; ".join(f"{call.name}({_args(call.arguments)})" for call in message.tool_calls)
        if calls:
            parts.append(f"[Assistant tool calls]: {calls}")
        if message.error_message:
            parts.append(f"[Assistant error]: {message.error_message}")
        return "\n".join(parts)
    if isinstance(entry, BranchSummaryEntry):
        return f"[Summary of an earlier branch]: {entry.summary}"
    if isinstance(entry, CompactionEntry):
        return f"[Summary of earlier conversation]: {entry.summary}"
    if isinstance(entry, CustomMessageEntry) and entry.text:
        return f"[Note ({entry.custom_type})]: {entry.text}"
    return ""


def _args(arguments: dict[str, Any]) -> str:
    encoded = json.dumps(arguments, ensure_ascii=False, default=str)
    return encoded if len(encoded) <= 300 else encoded[:299] + "…"


def _collect_files(entry: Entry, read: dict[str, None], modified: dict[str, None]) -> None:
    if isinstance(entry, BranchSummaryEntry):
        for tag, bucket in (("read-files", read), ("modified-files", modified)):
            start, end = entry.summary.find(f"<{tag}>"), entry.summary.find(f"</{tag}>")
            if 0 <= start < end:
                for line in entry.summary[start + len(tag) + 2 : end].splitlines():
                    if line.strip():
                        bucket[line.strip()] = None
        return
    if not (isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage)):
        return
    for call in entry.message.tool_calls:
        path = call.arguments.get("path") or call.arguments.get("file_path")
        if not isinstance(path, str) or not path:
            continue
        if call.name in _WRITE_TOOLS:
            modified[path] = None
        elif call.name == "read":
            read[path] = None
