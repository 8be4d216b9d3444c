"""Message builders and an independent check that a context is a valid conversation."""

from __future__ import annotations

from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage


def user(text: str) -> UserMessage:
    return UserMessage(content=text, timestamp=1)


def assistant(text: str = "", *calls: ToolCall, stop_reason: str = "stop") -> AssistantMessage:
    blocks: list = [TextBlock(text=text)] if text else []
    blocks.extend(calls)
    return AssistantMessage(
        content=blocks,
        provider="ollama",
        model="qwen3",
        stop_reason="tool_use" if calls and stop_reason == "stop" else stop_reason,  # type: ignore[arg-type]
        timestamp=2,
    )


def call(call_id: str, name: str = "read", **arguments: object) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments or {"path": "a.py"})


def result(call_id: str, text: str = "ok", name: str = "read") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name=name, content=[TextBlock(text=text)], timestamp=3)


def conversation_problems(messages: list) -> list[str]:
    """Why ``messages`` would be rejected by a provider (empty when it is a valid conversation)."""
    problems: list[str] = []
    if messages and not isinstance(messages[0], UserMessage):
        problems.append(f"starts with {messages[0].role}")
    open_calls: dict[str, str] | None = None
    for position, message in enumerate(messages):
        if isinstance(message, ToolResultMessage):
            if open_calls is None or message.tool_call_id not in open_calls:
                problems.append(f"#{position}: result {message.tool_call_id} has no open call")
            else:
                del open_calls[message.tool_call_id]
            continue
        if open_calls:
            problems.append(f"#{position}: calls {sorted(open_calls)} unanswered before a {message.role}")
        open_calls = None
        if isinstance(message, AssistantMessage):
            if not message.content:
                problems.append(f"#{position}: empty assistant message")
            open_calls = {c.id: c.name for c in message.tool_calls} or None
    if open_calls:
        problems.append(f"calls {sorted(open_calls)} unanswered at the end")
    return problems
