"""Helpers for the provider tests: tool specs, event collection, and an assistant message built like the agent's."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

from navtui.core.events import ErrorEvent, TextDelta, ThinkingDelta, ToolCallEvent, UsageEvent
from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolSpec
from navtui.providers.base import ChatRequest, Provider

READ = ToolSpec(
    name="read",
    description="Read a file.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to read"},
            "offset": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        },
        "required": ["path"],
    },
)
WRITE = ToolSpec(
    name="write",
    description="Write a file.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)
MULTI = ToolSpec(
    name="multi",
    description="Typed parameters.",
    parameters={
        "type": "object",
        "properties": {
            "paths": {"type": "array", "items": {"type": "string"}},
            "limit": {"type": "integer"},
            "force": {"type": "boolean"},
        },
        "required": ["paths"],
    },
)
TOOLS = (READ, WRITE, MULTI)


async def collect(provider: Provider, request: ChatRequest) -> list[Any]:
    """Every event of one streamed request; the provider's connections are closed after (it reopens them on use)."""
    try:
        async with contextlib.aclosing(provider.stream(request)) as stream:
            return [event async for event in stream]
    finally:
        await provider.aclose()


def kinds(events: list[Any]) -> list[str]:
    return [event.type for event in events]


def text_of(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def errors(events: list[Any]) -> list[ErrorEvent]:
    return [e for e in events if isinstance(e, ErrorEvent)]


def usage_of(events: list[Any]) -> Any:
    (usage,) = [e.usage for e in events if isinstance(e, UsageEvent)]
    return usage


def assemble(events: list[Any]) -> AssistantMessage:
    """The assistant message the agent would store for these events (text, signed thinking, calls)."""
    message = AssistantMessage()
    for event in events:
        last = message.content[-1] if message.content else None
        if isinstance(event, TextDelta):
            if isinstance(last, TextBlock):
                last.text += event.text
            else:
                message.content.append(TextBlock(text=event.text))
        elif isinstance(event, ThinkingDelta):
            if isinstance(last, ThinkingBlock) and last.thinking_signature is None and not event.redacted:
                last.thinking += event.text
                last.thinking_signature = event.signature
            else:
                message.content.append(
                    ThinkingBlock(thinking=event.text, thinking_signature=event.signature, redacted=event.redacted)
                )
        elif isinstance(event, ToolCallEvent):
            message.content.append(event.call)
    return message


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.asynccontextmanager
async def raw_http_server(response: bytes) -> AsyncIterator[str]:
    """A loopback server answering every request with exactly ``response`` and closing; yields its URL.

    For replies the scripted fake cannot produce, such as a 200 event stream with an empty body.
    """

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)  # fmt: skip
        await reader.readexactly(length)
        writer.write(response)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    finally:
        server.close()
        await server.wait_closed()
