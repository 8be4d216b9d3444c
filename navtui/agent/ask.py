"""Ask the model once: one request, read to its end, no tools run. Every model call outside the loop uses it.

Compaction summaries, branch summaries, handover notes and the unexpected-stop classifier each send one
request and read one reply; the loop in ``loop.py`` is the only other caller of ``Provider.stream``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from navtui.core.errors import ProviderError
from navtui.core.events import ErrorEvent, TextDelta, ToolCallEvent
from navtui.core.messages import ToolCall, ToolSpec, UserMessage
from navtui.providers.base import AnyMessage, ChatRequest, Provider


@dataclass
class Reply:
    """The model's answer: its text (stripped) and the tool calls it wrote, none of them run."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)


async def ask_model(
    provider: Provider,
    *,
    system: str,
    messages: Sequence[AnyMessage],
    tools: Sequence[ToolSpec] = (),
    max_tokens: int | None = None,
    think: bool | str | None = False,
    until: Callable[[ToolCall], bool] | None = None,
) -> Reply:
    """Send one request and read the reply. ``until(call)`` ends the reading early at a call it accepts.

    A failed request raises ``ProviderError`` (its kind, status and hint kept); the stream is always closed.
    """
    request = ChatRequest(system=system, messages=list(messages), tools=list(tools), max_tokens=max_tokens, think=think)
    parts: list[str] = []
    calls: list[ToolCall] = []
    async with contextlib.aclosing(provider.stream(request)) as stream:
        async for event in stream:
            match event:
                case TextDelta(text=text):
                    parts.append(text)
                case ToolCallEvent(call=call):
                    calls.append(call)
                    if until is not None and until(call):
                        break
                case ErrorEvent(message=message, kind=kind, status=status, hint=hint):
                    raise ProviderError(message, kind=kind, status=status, hint=hint)
    return Reply("".join(parts).strip(), calls)


async def ask_text(provider: Provider, system: str, text: str, *, max_tokens: int) -> str:
    """The common case: one user message, no tools, no thinking; the reply's text."""
    reply = await ask_model(provider, system=system, messages=[UserMessage(content=text)], max_tokens=max_tokens)
    return reply.text
