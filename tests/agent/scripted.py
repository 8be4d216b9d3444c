"""A Provider subclass that replays scripted ProviderEvents: for loop tests that need no wire format."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from navtui.core.events import StopEvent, TextDelta, ToolCallEvent, UsageEvent
from navtui.core.messages import ToolCall, Usage
from navtui.providers.base import ChatRequest, Provider


class Pause:
    """Wait this long before the next event (to test aborts mid-stream)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds


class ScriptedProvider(Provider):
    name = "scripted"

    def __init__(self, *replies: list[Any]) -> None:
        super().__init__("scripted-model")
        self.replies = list(replies)
        self.requests: list[ChatRequest] = []
        self.closed_streams = 0

    async def stream(self, request: ChatRequest) -> AsyncIterator[Any]:
        self.requests.append(ChatRequest(**{**request.__dict__, "messages": list(request.messages)}))
        reply = self.replies.pop(0) if self.replies else [TextDelta(text="ok"), StopEvent(reason="stop")]
        try:
            for item in reply:
                if isinstance(item, Pause):
                    await asyncio.sleep(item.seconds)
                else:
                    yield item
        finally:
            self.closed_streams += 1


def text(*chunks: str, usage: tuple[int, int] | None = None) -> list[Any]:
    events: list[Any] = [TextDelta(text=c) for c in chunks]
    if usage:
        events.append(UsageEvent(usage=Usage(input=usage[0], output=usage[1])))
    return [*events, StopEvent(reason="stop")]


def calls(*pairs: tuple[str, dict[str, Any]], prefix: str = "c") -> list[Any]:
    events: list[Any] = [
        ToolCallEvent(call=ToolCall(id=f"{prefix}{i}", name=name, arguments=args))
        for i, (name, args) in enumerate(pairs)
    ]
    return [*events, StopEvent(reason="tool_use")]
