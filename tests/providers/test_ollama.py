"""The native Ollama provider against the loopback fake server."""

from __future__ import annotations

import json

import pytest

from navtui.config.settings import ProviderSettings
from navtui.core.errors import ProviderError
from navtui.core.events import ErrorEvent, StopEvent, ThinkingDelta, ToolCallEvent
from navtui.core.messages import ToolResultMessage, UserMessage
from navtui.providers.base import ChatRequest, ProviderNotice, parse_error
from navtui.providers.ollama import OllamaProvider
from tests.fakes import HttpError, RawLine, Text, Thinking, ToolCall, Usage
from tests.fakes.server import FakeServer
from tests.providers.support import (
    READ,
    TOOLS,
    assemble,
    collect,
    errors,
    free_port,
    kinds,
    text_of,
    usage_of,
)

MODEL = "qwen3:4b"


def make(server: FakeServer, model: str = MODEL, **settings: object) -> OllamaProvider:
    return OllamaProvider(model, server.url, ProviderSettings(**settings))  # type: ignore[arg-type]


def ask(text: str = "hi", tools: tuple = TOOLS, **kw: object) -> ChatRequest:
    return ChatRequest(system="You are navtui.", messages=[UserMessage(content=text)], tools=tools, **kw)  # type: ignore[arg-type]


async def test_text_and_thinking_stream_in_order(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL, capabilities=["completion", "tools", "thinking"])
    fake_server.script(Thinking("Let me "), Thinking("think."), Text("Hello"), Text(" there."), Usage(21, 4))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["thinking_delta", "thinking_delta", "text_delta", "text_delta", "usage", "stop"]
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "Let me think."
    assert text_of(events) == "Hello there."
    assert (usage_of(events).input, usage_of(events).output) == (21, 4)
    assert events[-1] == StopEvent(reason="stop")


async def test_multi_tool_turn_round_trips_in_ollama_shape(fake_server: FakeServer) -> None:
    fake_server.script(
        Thinking("Two files."), Text("Reading both."), ToolCall("read", {"path": "a.py"}),
        ToolCall("read", {"path": "b.py"}), Usage(30, 9),
    )  # fmt: skip
    provider = make(fake_server)
    first = await collect(provider, ask("compare a and b"))
    calls = [e.call for e in first if isinstance(e, ToolCallEvent)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_0", "read", {"path": "a.py"}),
        ("call_1", "read", {"path": "b.py"}),
    ]
    assert first[-1] == StopEvent(reason="tool_use")

    history = [
        UserMessage(content="compare a and b"),
        assemble(first),
        ToolResultMessage.of(calls[0], "A = 1"),
        ToolResultMessage.of(calls[1], "missing", is_error=True),
    ]
    fake_server.script(Text("a defines A; b is missing."))
    second = await collect(provider, ChatRequest(system="You are navtui.", messages=history, tools=TOOLS))
    assert text_of(second) == "a defines A; b is missing."
    sent = fake_server.chat_requests[-1].json["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": "Reading both.",
        "thinking": "Two files.",
        "tool_calls": [
            {"id": "call_0", "function": {"name": "read", "arguments": {"path": "a.py"}}},
            {"id": "call_1", "function": {"name": "read", "arguments": {"path": "b.py"}}},
        ],
    }
    assert sent[3:] == [
        {"role": "tool", "content": "A = 1", "tool_name": "read", "tool_call_id": "call_0"},
        {"role": "tool", "content": "missing", "tool_name": "read", "tool_call_id": "call_1"},
    ]


async def test_tool_calls_in_the_final_chunk_are_kept(fake_server: FakeServer) -> None:
    final = {
        "model": MODEL,
        "message": {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_srv1", "function": {"index": 0, "name": "read", "arguments": {"path": "z.py"}}}]},
        "done": True, "done_reason": "stop", "prompt_eval_count": 5, "eval_count": 2,
    }  # fmt: skip
    fake_server.script(Text("One moment."), RawLine(json.dumps(final)))
    events = await collect(make(fake_server), ask())
    (call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert (call.id, call.arguments) == ("call_srv1", {"path": "z.py"})
    assert events[-1] == StopEvent(reason="tool_use")


async def test_separators_json_allows_raw_inside_text_do_not_split_a_line(fake_server: FakeServer) -> None:
    """NDJSON lines end at \\n only: U+0085, U+2028 and U+2029 may stand raw inside a JSON string."""
    text = "next\u0085line \u2028 sep \u2029 para \x1c fs"
    chunk = {"model": MODEL, "message": {"role": "assistant", "content": text}, "done": False}
    fake_server.script(RawLine(json.dumps(chunk, ensure_ascii=False)), Text(" end"))
    events = await collect(make(fake_server), ask())
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    assert "".join(e.text for e in events if hasattr(e, "text") and not isinstance(e, ErrorEvent)) == text + " end"


async def test_request_carries_num_ctx_from_api_show_capped_by_setting(fake_server: FakeServer) -> None:
    fake_server.set_model("big:70b", context_length=131072)
    fake_server.set_model("small:1b", context_length=4096)
    await collect(make(fake_server, "big:70b"), ask())
    assert fake_server.chat_requests[-1].json["options"]["num_ctx"] == 32768  # default cap
    await collect(make(fake_server, "big:70b", num_ctx_cap=65536), ask())
    assert fake_server.chat_requests[-1].json["options"]["num_ctx"] == 65536
    provider = make(fake_server, "small:1b")
    await collect(provider, ask())
    await collect(provider, ask())
    assert [r.json["options"]["num_ctx"] for r in fake_server.chat_requests[-2:]] == [4096, 4096]
    shows = [r for r in fake_server.requests if r.path == "/api/show" and r.model == "small:1b"]
    assert len(shows) == 1  # cached per model
    info = await provider.model_info()
    assert (info.context_window, info.extra["trained_context"]) == (4096, 4096)


async def test_think_and_keep_alive_follow_capabilities_and_settings(fake_server: FakeServer) -> None:
    fake_server.set_model("thinker", capabilities=["completion", "tools", "thinking"])
    fake_server.set_model("plain", capabilities=["completion", "tools"])
    await collect(make(fake_server, "thinker", think="high", keep_alive="1h"), ask())
    body = fake_server.chat_requests[-1].json
    assert (body["think"], body["keep_alive"]) == ("high", "1h")
    await collect(make(fake_server, "plain", think=True), ask())
    assert "think" not in fake_server.chat_requests[-1].json
    await collect(make(fake_server, "thinker"), ask(think=False))
    assert fake_server.chat_requests[-1].json["think"] is False


@pytest.mark.parametrize(
    ("setting", "sent"),
    [(-1, -1), ("-1", -1), (0, 0), ("0", 0), (300, 300), ("1h", "1h"), ("-1m", "-1m"), ("0s", 0), ("0m0s", 0)],
)  # a zero with a unit is 0: the load before a cold model's chat leaves it out (it would unload the model again)
async def test_keep_alive_as_ollama_documents_it(fake_server: FakeServer, setting: object, sent: object) -> None:
    """``-1`` keeps the model loaded, ``0`` unloads it after the request (Ollama's FAQ, ``OLLAMA_KEEP_ALIVE``);
    Ollama reads a bare number as seconds and refuses ``"-1"`` (a duration string without a unit)."""
    fake_server.script(Text("ok"))
    events = await collect(make(fake_server, keep_alive=setting), ask())
    assert text_of(events) == "ok"
    body = fake_server.chat_requests[-1].json
    assert body["keep_alive"] == sent and type(body["keep_alive"]) is type(sent)


@pytest.mark.parametrize("loaded", [True, False])
async def test_a_model_too_big_for_memory_at_this_num_ctx_says_so_once(fake_server: FakeServer, loaded: bool) -> None:
    """Ollama's 500 "model requires more system memory" is no passing failure: asking again loads nothing more.
    The KV cache grows with num_ctx, so the way out names providers.num_ctx_cap and the value sent."""
    fake_server.set_model("big:8b", context_length=131072, loaded=loaded, fits_num_ctx=8192)
    events = await collect(make(fake_server, "big:8b"), ask())
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert "requires more system memory" in error.message and not error.retryable
    assert "num_ctx 32768" in (error.hint or "") and "providers.num_ctx_cap" in (error.hint or "")
    assert len(fake_server.chat_requests) == 1 and not any(isinstance(e, ProviderNotice) for e in events)
    fake_server.script(Text("fits now"))
    assert text_of(await collect(make(fake_server, "big:8b", num_ctx_cap=8192), ask())) == "fits now"


def test_a_keep_alive_ollama_cannot_read_is_a_settings_error() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="keep_alive"):
        ProviderSettings(keep_alive="ten minutes")


async def test_model_without_tools_runs_through_the_text_protocol(fake_server: FakeServer) -> None:
    fake_server.set_model("gemma:2b", capabilities=["completion"])
    call = '<tool_call>{"name": "read", "arguments": {"path": "a.py"}}</tool_call>'
    fake_server.script(Text("I will read it. "), Text(call[:17]), Text(call[17:]), Usage(50, 20))
    provider = make(fake_server, "gemma:2b")
    events = await collect(provider, ask())
    body = fake_server.chat_requests[-1].json
    assert "tools" not in body
    assert '<tool_call>\n{"name": "read"' in body["messages"][0]["content"]
    assert [e.text for e in events if isinstance(e, ProviderNotice)] == [
        "gemma:2b has no native tool calling; using the text tool protocol"
    ]
    assert text_of(events) == "I will read it. "
    (tool_call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert (tool_call.name, tool_call.arguments) == ("read", {"path": "a.py"})
    assert events[-1] == StopEvent(reason="tool_use")

    history = [UserMessage(content="hi"), assemble(events), ToolResultMessage.of(tool_call, "x = 1")]
    fake_server.script(Text("It sets x."))
    again = await collect(provider, ChatRequest(system="sys", messages=history, tools=TOOLS))
    assert not [e for e in again if isinstance(e, ProviderNotice)]  # said once
    sent = fake_server.chat_requests[-1].json["messages"]
    assert sent[2]["role"] == "assistant" and "tool_calls" not in sent[2]
    assert sent[2]["content"].endswith('<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tool_call>')
    assert sent[3] == {"role": "user", "content": '<tool_result name="read">\nx = 1\n</tool_result>'}


async def test_a_does_not_support_tools_400_switches_protocol_and_retries(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(400, f"registry.ollama.ai/library/{MODEL} does not support tools"))
    fake_server.script(Text('<tool_call>{"name": "read", "arguments": {"path": "q"}}</tool_call>'))
    provider = make(fake_server)
    events = await collect(provider, ask())
    assert not errors(events)
    notices = [e for e in events if isinstance(e, ProviderNotice)]
    assert len(notices) == 1 and "switched to the text tool protocol" in notices[0].text
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEvent)] == [{"path": "q"}]
    assert "tools" in fake_server.chat_requests[0].json and "tools" not in fake_server.chat_requests[1].json
    assert (await provider.model_info()).extra["tool_protocol"] == "text"


async def test_malformed_text_protocol_call_becomes_a_parse_error(fake_server: FakeServer) -> None:
    fake_server.set_model("tiny", capabilities=["completion"])
    fake_server.script(Text('<tool_call>{"name": "read", "arguments": {"path": "a.py"</tool_call>oops'))
    events = await collect(make(fake_server, "tiny"), ask())
    (call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert call.name == "read" and parse_error(call) is None  # repaired
    fake_server.script(Text("<tool_call>please read a.py</tool_call>"))
    events = await collect(make(fake_server, "tiny"), ask())
    (call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert "no JSON object" in (parse_error(call) or "")


async def test_think_rejection_retries_without_think(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL, capabilities=["completion", "tools", "thinking"])
    fake_server.script(HttpError(400, f'"{MODEL}" does not support thinking'))
    fake_server.script(Text("fine"))
    events = await collect(make(fake_server, think=True), ask())
    assert text_of(events) == "fine" and not errors(events)
    assert [("think" in r.json) for r in fake_server.chat_requests] == [True, False]


async def test_http_error_is_one_clear_error(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(400, "invalid option: num_ctx must be positive"))  # a 4xx is never retried
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["error"]
    assert events[0].status == 400 and "num_ctx must be positive" in events[0].message


async def test_busy_server_is_retried(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(503, "server busy, please try again.  maximum pending requests exceeded"))
    fake_server.script(Text("done"))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["notice", "text_delta", "usage", "stop"]
    assert "retrying" in events[0].text


async def test_mid_stream_error_line(fake_server: FakeServer) -> None:
    fake_server.script(Text("So far"), HttpError(500, "an error was encountered while running the model"))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "error"]
    assert "an error was encountered while running the model" in events[-1].message


async def test_not_running_and_not_pulled(fake_server: FakeServer) -> None:
    down = OllamaProvider(MODEL, f"http://127.0.0.1:{free_port()}")
    (event,) = await collect(down, ask())
    assert isinstance(event, ErrorEvent) and event.kind == "connection"
    assert "Ollama is not running at http://127.0.0.1:" in event.message and "ollama serve" in (event.hint or "")

    fake_server.set_model(MODEL)
    (event,) = await collect(make(fake_server, "llama9:70b"), ask())
    assert event.kind == "not_found" and event.hint == "/models pull llama9:70b downloads it"  # from inside navtui


async def test_a_model_removed_before_the_chat_names_the_pull_that_works_in_navtui(fake_server: FakeServer) -> None:
    """``ollama rm`` between the start-up check and the prompt: the chat's own 404 says /models pull, as the model
    card does, not a command for another terminal."""
    fake_server.script(HttpError(404, f"model '{MODEL}' not found"))
    (event,) = await collect(make(fake_server), ask())
    assert isinstance(event, ErrorEvent) and event.kind == "not_found"
    assert event.hint == f"/models pull {MODEL} downloads it" and f"'{MODEL}' not found" in event.message


async def test_the_openai_path_given_to_the_native_provider_says_so_and_the_fix(fake_server: FakeServer) -> None:
    """``-p ollama -b http://host:11434/v1``: Ollama's 404 for /v1/api/show read as a model not pulled, with
    ``/models pull`` for a model that was there."""
    fake_server.set_model(MODEL)
    provider = OllamaProvider(MODEL, fake_server.url + "/v1/")
    for failed in (provider.model_info(), provider.list_models()):
        with pytest.raises(ProviderError) as caught:
            await failed
        assert "OpenAI-compatible path (v1)" in caught.value.message and "-p ollama" in caught.value.message
        assert caught.value.hint == f"drop /v1: -b {fake_server.url}, or keep the URL with -p openai"
    (event,) = await collect(provider, ask())
    assert isinstance(event, ErrorEvent) and "pull" not in (event.hint or "") and "-p openai" in (event.hint or "")
    assert fake_server.chat_requests == []
    await provider.aclose()


async def test_list_models_and_model_info(fake_server: FakeServer) -> None:
    fake_server.set_model("qwen3:4b", context_length=40960, capabilities=["completion", "tools", "thinking"])
    fake_server.set_model("llava:7b", context_length=4096, capabilities=["completion", "vision"])
    provider = make(fake_server, "llava:7b")
    assert await provider.list_models() == ["llava:7b", "qwen3:4b"]
    info = await provider.model_info()
    assert (info.supports_tools, info.supports_vision, info.supports_thinking) == (False, True, False)
    await provider.aclose()


async def test_leaked_hermes_call_from_a_native_model(fake_server: FakeServer) -> None:
    fake_server.script(Text('<tool_call>\n{"name": "read", "arguments": {"path": "leak.py"}}\n</tool_call>'))
    events = await collect(make(fake_server), ask(tools=(READ,)))
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEvent)] == [{"path": "leak.py"}]
    assert text_of(events) == ""


async def test_the_connection_is_set_up_as_ollamas_own_client_does(fake_server: FakeServer, monkeypatch) -> None:
    """No SDK at run time: a host without a scheme is read as OLLAMA_HOST is, and OLLAMA_API_KEY is a bearer token."""
    monkeypatch.setenv("OLLAMA_API_KEY", "ollama-key")
    fake_server.set_model(MODEL)
    fake_server.script(Text("hello"))
    provider = OllamaProvider(MODEL, fake_server.url.removeprefix("http://"))  # "127.0.0.1:PORT", as in OLLAMA_HOST
    events = await collect(provider, ask())
    await provider.aclose()
    assert text_of(events) == "hello"
    request = fake_server.chat_requests[-1]
    assert request.headers["authorization"] == "Bearer ollama-key"
    assert request.headers["user-agent"].startswith("navtui/")
