"""What every history the agent leaves behind must satisfy, for the tests of the loop and the context manager."""

from __future__ import annotations

from typing import Any

from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage


def history_is_valid(messages: list[Any]) -> bool:
    """Every assistant tool call is answered by a tool result before the next user or assistant message."""
    pending: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            if pending:
                return False
            pending = {call.id for call in message.tool_calls}
        elif isinstance(message, ToolResultMessage):
            pending.discard(message.tool_call_id)
        elif isinstance(message, UserMessage) and pending:
            return False
    return not pending
