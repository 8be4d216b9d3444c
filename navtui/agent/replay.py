"""What of the history goes back to the model.

An answer that broke off (stop reason ``error``: the connection dropped, the server stalled or sent an error
mid-stream) stays in the session and on screen, but is never sent back: the model would take the fragment for
something it said in full, and a retry already asked again. An answer the user interrupted is sent back as it
is, followed by a note that it was cut off, so the model neither continues mid-word as if nothing happened nor
redoes what the user stopped.

A tool call the server could not parse is recorded under a name navtui made up (``invalid_tool_call``), so the
model is told what went wrong. Replayed as a call, that name is something a small model copies: the 0.5B eval
model called ``invalid_tool_call`` 71 times in one run. It goes back as what it was instead: a note in the
answer that the call could not be read, and the correction as a user message.
"""

from __future__ import annotations

from collections.abc import Sequence

from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.providers.base import AnyMessage
from navtui.providers.streaming import INVALID_CALL_NAME

INTERRUPTED_NOTE = "[The user interrupted your previous answer before it was complete.]"
UNREADABLE_CALL_NOTE = "[I wrote a tool call the server could not read.]"


def replay_messages(messages: Sequence[AnyMessage]) -> list[AnyMessage]:
    """``messages`` as the model should see them (see the module docstring); the list itself is not changed."""
    out: list[AnyMessage] = []
    dropped_calls: set[str] = set()
    unreadable_calls: set[str] = set()
    corrections: list[UserMessage] = []  # said after the results of the other calls of the same answer
    note_due: AssistantMessage | None = None
    for message in messages:
        if not isinstance(message, ToolResultMessage):
            out.extend(corrections)
            corrections = []
        if note_due is not None and not isinstance(message, ToolResultMessage):
            out.append(UserMessage(content=INTERRUPTED_NOTE, timestamp=note_due.timestamp))
            note_due = None
        if isinstance(message, AssistantMessage) and message.stop_reason == "error":
            dropped_calls.update(call.id for call in message.tool_calls)
            continue
        if isinstance(message, ToolResultMessage) and message.tool_call_id in dropped_calls:
            continue
        if isinstance(message, ToolResultMessage) and message.tool_call_id in unreadable_calls:
            corrections.append(UserMessage(content=message.text, timestamp=message.timestamp))
            continue
        if isinstance(message, AssistantMessage) and any(c.name == INVALID_CALL_NAME for c in message.tool_calls):
            unreadable_calls.update(c.id for c in message.tool_calls if c.name == INVALID_CALL_NAME)
            message = _without_unreadable_calls(message)
        out.append(message)
        if isinstance(message, AssistantMessage) and message.stop_reason == "aborted" and _has_content(message):
            note_due = message  # after the results of its calls, if it made any
    out.extend(corrections)
    if note_due is not None:
        out.append(UserMessage(content=INTERRUPTED_NOTE, timestamp=note_due.timestamp))
    return out


def _without_unreadable_calls(message: AssistantMessage) -> AssistantMessage:
    content = [b for b in message.content if not (isinstance(b, ToolCall) and b.name == INVALID_CALL_NAME)]
    content.append(TextBlock(text=UNREADABLE_CALL_NOTE))
    calls_left = any(isinstance(b, ToolCall) for b in content)
    return message.model_copy(update={"content": content, "stop_reason": message.stop_reason if calls_left else "stop"})


def _has_content(message: AssistantMessage) -> bool:
    return bool(message.text.strip() or message.thinking.strip() or message.tool_calls)
