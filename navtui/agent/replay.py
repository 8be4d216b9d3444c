"""What of the history goes back to the model.

An answer that broke off (stop reason ``error``: the connection dropped, the server stalled or sent an error
mid-stream) stays in the session and on screen, but is never sent back: the model would take the fragment for
something it said in full, and a retry already asked again. An answer the user interrupted is sent back as it
is, followed by a note that it was cut off, so the model neither continues mid-word as if nothing happened nor
redoes what the user stopped.
"""

from __future__ import annotations

from collections.abc import Sequence

from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from navtui.providers.base import AnyMessage

INTERRUPTED_NOTE = "[The user interrupted your previous answer before it was complete.]"


def replay_messages(messages: Sequence[AnyMessage]) -> list[AnyMessage]:
    """``messages`` as the model should see them (see the module docstring); the list itself is not changed."""
    out: list[AnyMessage] = []
    dropped_calls: set[str] = set()
    note_due: AssistantMessage | None = None
    for message in messages:
        if note_due is not None and not isinstance(message, ToolResultMessage):
            out.append(UserMessage(content=INTERRUPTED_NOTE, timestamp=note_due.timestamp))
            note_due = None
        if isinstance(message, AssistantMessage) and message.stop_reason == "error":
            dropped_calls.update(call.id for call in message.tool_calls)
            continue
        if isinstance(message, ToolResultMessage) and message.tool_call_id in dropped_calls:
            continue
        out.append(message)
        if isinstance(message, AssistantMessage) and message.stop_reason == "aborted" and _has_content(message):
            note_due = message  # after the results of its calls, if it made any
    if note_due is not None:
        out.append(UserMessage(content=INTERRUPTED_NOTE, timestamp=note_due.timestamp))
    return out


def _has_content(message: AssistantMessage) -> bool:
    return bool(message.text.strip() or message.thinking.strip() or message.tool_calls)
