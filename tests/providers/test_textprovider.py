"""TextProtocolProvider around the OpenAI-compatible provider: prompt, history, invented output, errors."""

from __future__ import annotations

from navtui.config.settings import ProviderSettings
from navtui.core.events import StopEvent, ToolCallEvent
from navtui.core.messages import UserMessage
from navtui.providers.base import ChatRequest
from navtui.providers.openai import OpenAIProvider
from navtui.providers.textprovider import TextProtocolProvider
from tests.fakes import Drop, Text, Usage
from tests.fakes.server import FakeServer
from tests.providers.support import TOOLS, assemble, collect, kinds, text_of

CALL = '<tool_call>{"name": "read", "arguments": {"path": "a.py"}}</tool_call>'


def make(server: FakeServer) -> TextProtocolProvider:
    return TextProtocolProvider(OpenAIProvider("smollm2", server.url, ProviderSettings()))


def ask() -> ChatRequest:
    return ChatRequest(system="Base prompt.", messages=[UserMessage(content="hi")], tools=TOOLS)


async def test_tools_go_into_the_system_prompt_not_the_request(fake_server: FakeServer) -> None:
    fake_server.script(Text("Plain answer."))
    events = await collect(make(fake_server), ask())
    body = fake_server.chat_requests[-1].json
    assert "tools" not in body
    system = body["messages"][0]["content"]
    assert system.startswith("Base prompt.\n\n# Tools") and "### write" in system
    assert kinds(events) == ["text_delta", "usage", "stop"] and events[-1] == StopEvent(reason="stop")


async def test_calls_come_after_text_and_usage_before_the_stop(fake_server: FakeServer) -> None:
    fake_server.script(Text("Reading. "), Text(CALL[:5]), Text(CALL[5:]), Usage(10, 5))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "usage", "tool_call", "stop"]
    assert events[-1] == StopEvent(reason="tool_use")


async def test_invented_output_stops_the_stream_and_closes_the_connection(fake_server: FakeServer) -> None:
    fake_server.script(Text(CALL), Text('<tool_result name="read">made up'), Text(" and more", delay=5))
    events = await collect(make(fake_server), ask())
    assert [e.call.name for e in events if isinstance(e, ToolCallEvent)] == ["read"]
    assert "made up" not in text_of(events) and events[-1] == StopEvent(reason="tool_use")
    assert await fake_server.wait_for_disconnect_async(timeout=3)


async def test_a_broken_stream_runs_no_calls(fake_server: FakeServer) -> None:
    fake_server.script(Text("Sure. "), Text(CALL), Drop())
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "error"] and text_of(events) == "Sure. "


async def test_model_info_says_text_protocol(fake_server: FakeServer) -> None:
    info = await make(fake_server).model_info()
    assert info.supports_tools and info.extra["tool_protocol"] == "text"


async def test_text_around_calls_keeps_its_order_in_the_reply_and_in_the_history(fake_server: FakeServer) -> None:
    fake_server.script(
        Text("First I read.\n"), Text(CALL), Text("\nThen I check.\n"), Text(CALL.replace("a.py", "b.py"))
    )
    provider = make(fake_server)
    events = await collect(provider, ask())
    order = [("call", e.call.arguments["path"]) if isinstance(e, ToolCallEvent) else e.type for e in events]
    assert order == ["text_delta", "usage", ("call", "a.py"), "text_delta", ("call", "b.py"), "stop"]
    message = assemble(events)
    fake_server.script(Text("Done."))
    await collect(provider, ChatRequest(system="s", messages=[UserMessage(content="hi"), message], tools=TOOLS))
    replayed = fake_server.chat_requests[-1].json["messages"][2]["content"]
    assert replayed.index("First I read.") < replayed.index("a.py") < replayed.index("Then I check.")
    assert replayed.index("Then I check.") < replayed.index("b.py")
