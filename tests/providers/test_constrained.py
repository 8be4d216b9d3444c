"""Constrained decoding: the reply is forced into one valid step by the server's grammar (Ollama, llama.cpp)."""

from __future__ import annotations

import json

import pytest

from navtui.config.settings import ProviderSettings, Settings
from navtui.core.errors import ConfigError
from navtui.core.events import StopEvent, TextDelta, ToolCallEvent
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.providers.base import ChatRequest, parse_error
from navtui.providers.constrained import ConstrainedProvider, step_schema
from navtui.providers.ollama import OllamaProvider
from navtui.providers.openai import OpenAIProvider
from navtui.providers.registry import build_provider
from tests.fakes import Text
from tests.fakes.server import FakeServer
from tests.providers.support import TOOLS, collect, text_of

CALL = '{"name": "read", "arguments": {"path": "a.py"}}'


def openai(server: FakeServer) -> ConstrainedProvider:
    return ConstrainedProvider(OpenAIProvider("qwen2.5-coder-1.5b", server.url, ProviderSettings()))


def ask(*messages: object) -> ChatRequest:
    history = list(messages) or [UserMessage(content="read a.py")]
    return ChatRequest(system="Base.", messages=history, tools=TOOLS)  # type: ignore[arg-type]


def calls(events: list[object]) -> list[tuple[str, dict[str, object]]]:
    return [(e.call.name, e.call.arguments) for e in events if isinstance(e, ToolCallEvent)]


def test_the_step_schema_is_a_final_answer_or_one_known_call_with_its_arguments() -> None:
    schema = step_schema(TOOLS)
    options = schema["anyOf"]
    assert [o["properties"]["name"]["const"] for o in options[:-1]] == ["read", "write", "multi"]
    assert options[0]["properties"]["arguments"]["required"] == ["path"]
    assert options[-1] == {
        "type": "object",
        "properties": {"final_answer": {"type": "string"}},
        "required": ["final_answer"],
        "additionalProperties": False,
    }
    assert "description" not in json.dumps(schema)  # prose stays in the prompt; the grammar needs the shape


async def test_llamacpp_gets_the_schema_as_response_format_and_no_native_tools(fake_server: FakeServer) -> None:
    fake_server.script(Text(CALL[:12]), Text(CALL[12:30]), Text(CALL[30:]))
    events = await collect(openai(fake_server), ask())
    body = fake_server.chat_requests[-1].json
    assert "tools" not in body and body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == step_schema(TOOLS)
    assert '"final_answer"' in body["messages"][0]["content"] and "## Available tools" in body["messages"][0]["content"]
    assert calls(events) == [("read", {"path": "a.py"})] and events[-1] == StopEvent(reason="tool_use")
    assert text_of(events) == ""


async def test_ollama_gets_the_schema_as_format(fake_server: FakeServer) -> None:
    fake_server.script(Text('{"final_answer": "Done."}'))
    provider = ConstrainedProvider(OllamaProvider("qwen2.5-coder:1.5b", fake_server.url, ProviderSettings()))
    events = await collect(provider, ask())
    body = fake_server.chat_requests[-1].json
    assert body["format"] == step_schema(TOOLS) and "tools" not in body
    assert text_of(events) == "Done." and events[-1] == StopEvent(reason="stop")


async def test_a_final_answer_streams_as_it_comes(fake_server: FakeServer) -> None:
    fake_server.script(Text('{"final_answer": "Hel'), Text('lo \\"you\\"\\nsecond li'), Text('ne\\u00e9"}'))
    events = await collect(openai(fake_server), ask())
    texts = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(texts) == 'Hello "you"\nsecond lineé'
    assert len(texts) == 3  # one piece per chunk, not one blob at the end


async def test_history_goes_back_as_the_steps_the_model_wrote(fake_server: FakeServer) -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "a.py"})
    history = [
        UserMessage(content="read a.py"),
        AssistantMessage(content=[call]),
        ToolResultMessage.of(call, "print(1)"),
        AssistantMessage(content=[TextBlock(text="It prints 1.")]),
        UserMessage(content="thanks"),
    ]
    fake_server.script(Text('{"final_answer": "You are welcome."}'))
    await collect(openai(fake_server), ask(*history))
    sent = fake_server.chat_requests[-1].json["messages"]
    assert sent[2] == {"role": "assistant", "content": CALL}
    assert '<tool_result name="read">' in sent[3]["content"]
    assert json.loads(sent[4]["content"]) == {"final_answer": "It prints 1."}


async def test_a_server_that_ignores_the_schema_is_read_as_the_text_protocol(fake_server: FakeServer) -> None:
    fake_server.script(Text("Sure.\n<tool_call>" + CALL + "</tool_call>"))
    events = await collect(openai(fake_server), ask())
    assert calls(events) == [("read", {"path": "a.py"})]


async def test_a_step_naming_an_unknown_tool_gets_a_correction(fake_server: FakeServer) -> None:
    fake_server.script(Text('{"name": "cat", "arguments": {"path": "a.py"}}'))
    events = await collect(openai(fake_server), ask())
    (event,) = [e for e in events if isinstance(e, ToolCallEvent)]
    assert "could not be read" in (parse_error(event.call) or "")


def test_anthropic_cannot_be_constrained() -> None:
    settings = Settings.model_validate({"providers": {"tool_protocol": "constrained"}})
    with pytest.raises(ConfigError, match="Ollama or OpenAI-compatible"):
        build_provider(settings, model="claude-sonnet-4-5")
    assert isinstance(build_provider(settings, model="qwen2.5-coder:1.5b"), ConstrainedProvider)


async def test_the_final_answer_is_always_on_offer_so_a_run_can_end(fake_server: FakeServer) -> None:
    """Made to act first, Qwen2.5-Coder 1.5B called tools for "say hello" until the turn limit."""
    fake_server.script(Text('{"final_answer": "Hello!"}'))
    events = await collect(openai(fake_server), ask(UserMessage(content="say hello")))
    schema = fake_server.chat_requests[-1].json["response_format"]["json_schema"]["schema"]
    assert schema == step_schema(TOOLS) and "final_answer" in json.dumps(schema["anyOf"][-1])
    assert text_of(events) == "Hello!" and events[-1] == StopEvent(reason="stop")
    system = fake_server.chat_requests[-1].json["messages"][0]["content"]
    assert "Never report a change that no tool call made" in system
