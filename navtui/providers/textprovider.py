"""``TextProtocolProvider``: run any provider with tools described in the prompt instead of sent natively.

The wrapped provider sees no tools: the system prompt gains the protocol section, earlier tool calls are
written back as the ``<tool_call>`` text the model would have produced, and tool results become user-role
``<tool_result name="...">`` text. The model's reply is scanned for calls (``textproto.ToolCallScanner``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import replace

from navtui.core.events import ErrorEvent, ProviderEvent, StopEvent, TextDelta, ToolCallEvent
from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.providers.base import AnyMessage, ChatRequest, ProviderStream
from navtui.providers.textproto import ToolCallScanner, render_call, render_result, render_tool_instructions
from navtui.providers.wrapped import WrappedProvider


class TextProtocolProvider(WrappedProvider):
    """Wraps ``inner``; same name, model and endpoint, tool calls through the text protocol."""

    tool_protocol = "text"

    async def stream(self, request: ChatRequest) -> ProviderStream:
        system = request.system
        if request.tools:
            instructions = render_tool_instructions(request.tools, compact=request.compact)
            system = f"{system.rstrip()}\n\n{instructions}" if system.strip() else instructions
        inner_request = replace(request, system=system, messages=to_text_messages(request.messages), tools=())
        scanner = ToolCallScanner(request.tools, new_id=self.new_call_id, strict=True)
        # From the first call on, text and calls wait for the end of the response (a broken response's calls
        # never run) and then go out in the order written, so history replays text and calls as they were.
        held: list[ProviderEvent] = []
        stop: StopEvent | None = None
        async with contextlib.aclosing(self.inner.stream(inner_request)) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    for out in scanner.feed(event.text):
                        if held or isinstance(out, ToolCallEvent):
                            held.append(out)
                        else:
                            yield out
                    if scanner.stopped:
                        break  # the model is inventing tool output: stop paying for it
                elif isinstance(event, StopEvent):
                    stop = event
                elif isinstance(event, ErrorEvent):
                    yield event  # calls of a broken response are never run
                    return
                else:
                    yield event
        for rest in [*held, *scanner.finish()]:
            yield rest
        reason = "tool_use" if scanner.calls else (stop.reason if stop else "stop")
        yield StopEvent(reason=reason)


AssistantRenderer = Callable[[AssistantMessage], AssistantMessage]


def to_text_messages(
    messages: Sequence[AnyMessage], render_assistant: AssistantRenderer | None = None
) -> list[AnyMessage]:
    """History with tool calls rendered as text and results as user-role ``<tool_result>`` messages.

    ``render_assistant`` writes an assistant message back as text (default: the ``<tool_call>`` protocol).
    """
    render = render_assistant or assistant_as_text
    out: list[AnyMessage] = []
    names: dict[str, str] = {}  # call id -> the name the model used
    for message in messages:
        if isinstance(message, AssistantMessage):
            out.append(render(message))
            names.update({call.id: call.name for call in message.tool_calls})
        elif isinstance(message, ToolResultMessage):
            name = names.get(message.tool_call_id, message.tool_name)
            _append_user_text(out, render_result(name, message.text, is_error=message.is_error))
        elif isinstance(message.content, str):
            _append_user_text(out, message.content)
        else:
            out.append(message)
    return out


def assistant_as_text(message: AssistantMessage, render: Callable[[ToolCall], str] = render_call) -> AssistantMessage:
    """Calls written back as the text the model would have produced (``render``: a protocol's way of writing a
    call), in the order text and calls came."""
    if not message.tool_calls:
        return message
    thinking = [b for b in message.content if isinstance(b, ThinkingBlock)]
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, ToolCall):
            parts.append(render(block))
        elif isinstance(block, TextBlock) and block.text.strip():
            parts.append(block.text.strip("\n"))
    content: list[TextBlock | ThinkingBlock | ToolCall] = [*thinking, TextBlock(text="\n\n".join(parts))]
    return message.model_copy(update={"content": content})


def _append_user_text(out: list[AnyMessage], text: str) -> None:
    """Merge into a preceding plain-text user message: strict chat templates want roles to alternate."""
    last = out[-1] if out else None
    if isinstance(last, UserMessage) and isinstance(last.content, str):
        out[-1] = last.model_copy(update={"content": f"{last.content}\n\n{text}"})
    else:
        out.append(UserMessage(content=text))
