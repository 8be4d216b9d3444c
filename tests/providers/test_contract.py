"""What every provider promises, whatever its wire format: one suite, run against each provider's fake.

A dropped connection keeps the text that arrived and ends with one ``stream`` error; a stall ends with a
``timeout`` error naming the limit; a line that is not the protocol is an error, never a crash; closing the
stream early closes the connection.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from navtui.config.settings import ProviderSettings
from navtui.core.events import TextDelta
from navtui.core.messages import UserMessage
from navtui.providers.anthropic import AnthropicProvider
from navtui.providers.base import ChatRequest, Provider
from navtui.providers.ollama import OllamaProvider
from navtui.providers.openai import OpenAIProvider
from tests.fakes import Drop, Garbage, Stall, Text
from tests.fakes.server import FakeServer
from tests.providers.support import TOOLS, collect, kinds, text_of

MakeProvider = Callable[..., Provider]


def _ollama(server: FakeServer, **settings: object) -> Provider:
    return OllamaProvider("qwen3:4b", server.url, ProviderSettings(**settings))  # type: ignore[arg-type]


def _openai(server: FakeServer, **settings: object) -> Provider:
    return OpenAIProvider("qwen2.5-coder-7b", server.url, ProviderSettings(**settings))  # type: ignore[arg-type]


def _anthropic(server: FakeServer, **settings: object) -> Provider:
    return AnthropicProvider("claude-haiku-4-5", server.url, ProviderSettings(**settings), api_key="sk-test")  # type: ignore[arg-type]


@pytest.fixture(params=[_ollama, _openai, _anthropic], ids=["ollama", "openai", "anthropic"])
def make(request: pytest.FixtureRequest) -> MakeProvider:
    return request.param  # type: ignore[no-any-return]


def ask() -> ChatRequest:
    return ChatRequest(system="You are navtui.", messages=[UserMessage(content="hi")], tools=TOOLS)


async def test_a_dropped_stream_keeps_the_partial_text(make: MakeProvider, fake_server: FakeServer) -> None:
    fake_server.script(Text("Partial "), Text("answer"), Drop())
    events = await collect(make(fake_server), ask())
    assert kinds(events)[-1] == "error" and set(kinds(events)[:-1]) == {"text_delta"}
    assert text_of(events) == "Partial answer"
    assert events[-1].kind == "stream" and "dropped" in events[-1].message


async def test_a_stall_times_out_with_the_partial_text(make: MakeProvider, fake_server: FakeServer) -> None:
    fake_server.script(Text("Thinking about it"), Stall(5))
    events = await collect(make(fake_server, stall_timeout=0.3), ask())
    assert kinds(events) == ["text_delta", "error"] and text_of(events) == "Thinking about it"
    assert events[-1].kind == "timeout" and "0.3 s" in events[-1].message


async def test_a_line_outside_the_protocol_is_an_error(make: MakeProvider, fake_server: FakeServer) -> None:
    fake_server.script(Text("ok"), Garbage())
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "error"] and text_of(events) == "ok"
    assert "not JSON" in events[-1].message or "unreadable" in events[-1].message


async def test_closing_the_stream_early_closes_the_connection(make: MakeProvider, fake_server: FakeServer) -> None:
    fake_server.script(Text("first"), Text("second", delay=5))
    stream = make(fake_server).stream(ask())
    first = await anext(stream)
    assert isinstance(first, TextDelta) and first.text == "first"
    await stream.aclose()
    assert await fake_server.wait_for_disconnect_async(timeout=3)
