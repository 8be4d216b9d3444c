"""The branch summary: the model reads the path being left behind and writes what to remember about it.

One plain request (no tools, ``ask.py``) through the session's provider. The abandoned entries are serialised
as text, newest kept first when they do not fit, so the model summarises a transcript instead of continuing
it. The files read and modified are appended as compaction does (``file_list.py``), so later summaries carry
them on.
"""

from __future__ import annotations

import json
from typing import Any

from navtui.agent.ask import ask_text
from navtui.agent.file_list import FileOps, with_files
from navtui.core.errors import NavtuiError, ProviderError
from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from navtui.providers.base import Provider
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


async def summarize_branch(
    provider: Provider,
    entries: list[Entry],
    *,
    instructions: str | None = None,
    window: int | None = None,
) -> str:
    """The model's summary of ``entries`` (oldest first); raises ``NavtuiError`` when the model fails."""
    budget = max((window or DEFAULT_WINDOW) - RESERVE_TOKENS, 1024) * 4
    transcript, files = serialize_entries(entries, budget)
    if not transcript:
        return "(The branch held no conversation.)"
    ask = SUMMARY_INSTRUCTIONS
    if instructions and instructions.strip():
        ask += f"\n\nAlso follow these instructions from the user:\n{instructions.strip()}"
    prompt = f"<conversation>\n{transcript}\n</conversation>\n\n{ask}"
    retry = "navigate without a summary, or try again"
    try:
        summary = await ask_text(provider, SUMMARY_SYSTEM, prompt, max_tokens=SUMMARY_MAX_TOKENS)
    except ProviderError as exc:
        raise NavtuiError(f"The branch summary failed: {exc.message}", hint=exc.hint or retry) from None
    if not summary:
        raise NavtuiError("The model wrote an empty branch summary", hint=retry)
    return with_files(summary, files)


def serialize_entries(entries: list[Entry], budget_chars: int) -> tuple[str, FileOps]:
    """(transcript, files read and modified); the newest entries are kept when the budget runs out."""
    files = FileOps()
    blocks: list[str] = []
    used = 0
    for entry in reversed(entries):
        _collect_files(entry, files)
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
    return "\n\n".join(blocks), files


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


def _collect_files(entry: Entry, files: FileOps) -> None:
    """Files named by the entry's tool calls, or listed by an earlier summary on the path."""
    if isinstance(entry, BranchSummaryEntry | CompactionEntry):
        files.add_listed(entry.summary)
    elif isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
        files.add_calls([entry.message])
