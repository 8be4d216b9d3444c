"""The OpenAI-compatible provider (httpx + httpx-sse) against the loopback fake server."""

from __future__ import annotations

import json

import pytest

from navtui.config.settings import ProviderSettings
from navtui.core.errors import ProviderError
from navtui.core.events import StopEvent, ThinkingDelta, ToolCallEvent
from navtui.core.messages import ToolResultMessage, UserMessage
from navtui.providers.base import ChatRequest, ProviderNotice
from navtui.providers.openai import OpenAIProvider
from tests.fakes import Done, Drop, HttpError, RawBytes, RawLine, Text, Thinking, ToolCall, Usage
from tests.fakes.server import FakeServer
from tests.providers.support import (
    TOOLS,
    assemble,
    collect,
    errors,
    free_port,
    kinds,
    raw_http_server,
    text_of,
    usage_of,
)

MODEL = "qwen2.5-coder-7b"


def make(server: FakeServer, base: str | None = None, **settings: object) -> OpenAIProvider:
    return OpenAIProvider(MODEL, base or server.url, ProviderSettings(**settings))  # type: ignore[arg-type]


def ask(text: str = "hi", **kw: object) -> ChatRequest:
    return ChatRequest(system="You are navtui.", messages=[UserMessage(content=text)], tools=TOOLS, **kw)  # type: ignore[arg-type]


def sse_chunk(delta: dict[str, object], finish: str | None = None) -> str:
    return json.dumps({"id": "x", "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": delta, "finish_reason": finish}]})  # fmt: skip


async def test_reasoning_and_text_stream_in_order(fake_server: FakeServer) -> None:
    fake_server.script(Thinking("Hmm, "), Thinking("easy."), Text("Four"), Text("."), Usage(15, 3))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["thinking_delta", "thinking_delta", "text_delta", "text_delta", "usage", "stop"]
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == "Hmm, easy."
    assert (usage_of(events).input, usage_of(events).output) == (15, 3)
    body = fake_server.chat_requests[-1].json
    assert body["stream_options"] == {"include_usage": True} and body["max_tokens"] == 8192
    assert fake_server.chat_requests[-1].path == "/v1/chat/completions"


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
async def test_base_url_with_or_without_v1(fake_server: FakeServer, suffix: str) -> None:
    fake_server.script(Text("ok"))
    events = await collect(make(fake_server, fake_server.url + suffix), ask())
    assert text_of(events) == "ok"


async def test_multi_tool_turn_round_trips_in_openai_shape(fake_server: FakeServer) -> None:
    fake_server.script(
        Text("Checking."), ToolCall("read", {"path": "a.py"}, id="call_A", pieces=5),
        ToolCall("read", {"path": "b.py"}, id="call_B"), Usage(50, 12),
    )  # fmt: skip
    provider = make(fake_server)
    first = await collect(provider, ask("compare"))
    calls = [e.call for e in first if isinstance(e, ToolCallEvent)]
    assert [(c.id, c.arguments) for c in calls] == [("call_A", {"path": "a.py"}), ("call_B", {"path": "b.py"})]
    assert first[-1] == StopEvent(reason="tool_use")
    history = [
        UserMessage(content="compare"),
        assemble(first),
        ToolResultMessage.of(calls[0], "A = 1"),
        ToolResultMessage.of(calls[1], "gone", is_error=True),
    ]
    fake_server.script(Text("Done."))
    await collect(provider, ChatRequest(system="You are navtui.", messages=history, tools=TOOLS))
    sent = fake_server.chat_requests[-1].json["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {"id": "call_A", "type": "function", "function": {"name": "read", "arguments": '{"path": "a.py"}'}},
            {"id": "call_B", "type": "function", "function": {"name": "read", "arguments": '{"path": "b.py"}'}},
        ],
    }
    assert sent[3:] == [
        {"role": "tool", "tool_call_id": "call_A", "content": "A = 1"},
        {"role": "tool", "tool_call_id": "call_B", "content": "gone"},
    ]


async def test_llama_cpp_python_style_deltas(fake_server: FakeServer) -> None:
    """No usage chunk, id and name repeated on every delta, a legacy function_call alongside, keep-alives."""
    pieces = ['{"pa', 'th": ', '"a.py"}']
    lines = [
        RawLine(sse_chunk({"tool_calls": [{"index": 0, "id": "call__0_read", "type": "function",
                                           "function": {"name": "read", "arguments": p}}],
                           "function_call": {"name": "read:", "arguments": p}}))
        for p in pieces
    ]  # fmt: skip
    fake_server.script(RawBytes(b": ping\n\n"), *lines, RawLine(sse_chunk({}, "tool_calls")))
    events = await collect(make(fake_server), ask())
    (call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert (call.id, call.name, call.arguments) == ("call__0_read", "read", {"path": "a.py"})
    assert "usage" in kinds(events)  # the fake adds its usage chunk; without one nothing breaks either


async def test_no_usage_chunk_and_no_done(fake_server: FakeServer) -> None:
    fake_server.script(RawLine(sse_chunk({"content": "hi"})), RawLine(sse_chunk({}, "stop")), Drop())
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "stop"]  # finish_reason arrived: complete without usage or [DONE]


async def test_empty_200_stream_is_an_error() -> None:
    """llama-cpp-python answers a context overflow with HTTP 200, an event stream and no events."""
    empty = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    async with raw_http_server(empty) as url:
        (error,) = await collect(OpenAIProvider(MODEL, url), ask())
    assert error.kind == "stream" and "empty stream" in error.message
    assert "context window" in (error.hint or "")


async def test_stream_cut_before_any_content_is_retried(fake_server: FakeServer) -> None:
    fake_server.script(RawBytes(b""), Drop())  # headers and the role chunk, then the connection drops
    fake_server.script(Text("second try"))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["notice", "text_delta", "usage", "stop"] and "dropped" in events[0].text


async def test_stream_options_rejected_then_remembered(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(400, "Unrecognized request argument supplied: stream_options"))
    fake_server.script(Text("first"))
    fake_server.script(Text("second"))
    provider = make(fake_server)
    assert text_of(await collect(provider, ask())) == "first"
    assert text_of(await collect(provider, ask())) == "second"
    assert ["stream_options" in r.json for r in fake_server.chat_requests] == [True, False, False]


async def test_tools_rejected_switches_to_text_protocol(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(400, "tools param requires --jinja flag"))
    fake_server.script(Text('<tool_call>{"name": "read", "arguments": {"path": "t"}}</tool_call>'))
    events = await collect(make(fake_server), ask())
    assert any(isinstance(e, ProviderNotice) and "text tool protocol" in e.text for e in events)
    assert [e.call.arguments for e in events if isinstance(e, ToolCallEvent)] == [{"path": "t"}]
    assert "tools" not in fake_server.chat_requests[-1].json


async def test_http_error_is_one_clear_error(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(404, "model 'nope' not found"))
    (error,) = await collect(make(fake_server), ask())
    assert error.kind == "not_found" and "/v1" in (error.hint or "")


async def test_quota_429_is_not_retried(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(429, "You exceeded your current quota", error_type="insufficient_quota"))
    (error,) = await collect(make(fake_server), ask())
    assert error.kind == "quota" and len(fake_server.chat_requests) == 1


async def test_rate_limit_429_is_retried(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(429, "slow down"))
    fake_server.script(Text("ok"))
    events = await collect(make(fake_server), ask())
    assert kinds(events)[0] == "notice" and text_of(events) == "ok"


async def test_mid_stream_error_object(fake_server: FakeServer) -> None:
    fake_server.script(Text("So far"), HttpError(500, "Context size has been exceeded."))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "error"] and "Context size" in events[-1].message


async def test_a_refusal_is_shown_and_a_content_filter_stop_is_an_error(fake_server: FakeServer) -> None:
    """OpenAI streams a refusal in ``delta.refusal`` (content null): it is the answer the user must see. A reply
    cut by the content filter (``finish_reason: content_filter``, OpenAI and Azure) ends in an error saying so."""
    fake_server.script(
        RawLine(sse_chunk({"role": "assistant", "content": None, "refusal": "I'm sorry, "})),
        RawLine(sse_chunk({"refusal": "I can't help with that."})),
    )
    events = await collect(make(fake_server), ask())
    assert text_of(events) == "I'm sorry, I can't help with that." and events[-1] == StopEvent(reason="stop")
    fake_server.script(Text("Here is how"), Done("content_filter"), Usage(30, 4))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "usage", "error"]
    error = events[-1]
    assert error.kind == "refusal" and "content_filter" in error.message and not error.retryable
    assert len(fake_server.chat_requests) == 2


@pytest.mark.parametrize("before", [(), (Text("So far"),)])
async def test_a_context_overflow_inside_the_stream_is_an_overflow(fake_server: FakeServer, before: tuple) -> None:
    """llama.cpp's server reports the context filling up mid-reply as an error object in the 200 stream: asking
    again as for a broken stream re-reads the whole prompt (minutes on a CPU) to fail the same way."""
    message = "Context size has been exceeded."
    fake_server.script(*before, HttpError(500, message, error_type="exceed_context_size_error"))
    events = await collect(make(fake_server), ask())
    (error,) = [e for e in events if e.type == "error"]
    assert error.kind == "overflow" and not error.retryable and message in error.message
    assert len(fake_server.chat_requests) == 1 and not [e for e in events if isinstance(e, ProviderNotice)]


async def test_a_gateway_timeout_in_go_s_words_is_retried_not_compacted(fake_server: FakeServer) -> None:
    """Go's timeout, "context deadline exceeded" (a gateway's, a proxy's), names a context and says exceeded: it
    was taken for a context overflow, so the conversation was compacted instead of asked again."""
    fake_server.script(HttpError(504, "upstream: context deadline exceeded"))
    fake_server.script(Text("ok"))
    events = await collect(make(fake_server), ask())
    assert kinds(events)[0] == "notice" and text_of(events) == "ok", events


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "You have insufficient permissions for this operation. Missing scopes: api.model.read. Check that "
         "you have the correct role in your organization, and if you're using a restricted API key, that it has "
         "the necessary scopes."),
        (403, "Listing models is disabled for this key"),
    ],
)  # fmt: skip
async def test_a_key_that_may_chat_but_not_list_models_passes_the_start(
    fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch, status: int, message: str
) -> None:
    """An OpenAI key restricted to the model capabilities (no Models read scope) gets 401 on the model list and
    chats: the start-up check, which asks the list for the window, must not refuse it as a wrong key."""
    fake_server.require_key = "sk-restricted"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-restricted")
    fake_server.refuse_model_list = (status, message)
    provider = make(fake_server)
    info = await provider.model_info()
    assert info.context_window is None or info.context_window > 0
    fake_server.script(Text("ok"))
    assert text_of(await collect(provider, ask())) == "ok"


async def test_connection_refused() -> None:
    provider = OpenAIProvider(MODEL, f"http://127.0.0.1:{free_port()}")
    (error,) = await collect(provider, ask())
    assert error.kind == "connection" and "-b/--base-url" in (error.hint or "")


async def test_a_server_that_is_not_there_is_said_at_the_start() -> None:
    """The start-up check (``model_info``) says the server cannot be reached, as Ollama's does, rather than
    that the server does not report its window (and the first prompt then failing)."""
    provider = OpenAIProvider(MODEL, f"http://127.0.0.1:{free_port()}")
    with pytest.raises(ProviderError) as caught:
        await provider.model_info()
    assert caught.value.kind == "connection" and "Cannot connect" in caught.value.message
    assert "-b/--base-url" in (caught.value.hint or "")
    await provider.aclose()


async def test_a_refused_key_is_said_at_the_start(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """llama-server --api-key, a gateway, OpenAI: the model list answers 401 to a wrong or missing key. The start-up
    check says so, not that the server does not report its window."""
    fake_server.require_key = "sk-right"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with pytest.raises(ProviderError) as caught:
        await make(fake_server).model_info()
    assert caught.value.kind == "auth" and "check OPENAI_API_KEY" in (caught.value.hint or "")
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ProviderError) as caught:
        await make(fake_server).model_info()
    assert caught.value.kind == "auth" and "set OPENAI_API_KEY or NAVTUI_API_KEY" in (caught.value.hint or "")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-right")
    fake_server.set_model(MODEL, context_length=16384)
    assert (await make(fake_server).model_info()).context_window == 16384


async def test_non_streaming_json_answer_is_accepted(fake_server: FakeServer) -> None:
    """Some proxies ignore "stream": the whole completion arrives as one JSON body."""
    fake_server.script(Text("whole"), ToolCall("read", {"path": "w"}, id="c1"))
    provider = make(fake_server)
    body = provider._body(ask())
    body["stream"] = False
    response = await provider._http().post("chat/completions", json=body)
    from navtui.providers.openai import _whole_response
    from navtui.providers.openai_stream import ChunkAccumulator
    from navtui.providers.toolargs import call_ids

    accumulator = ChunkAccumulator(call_ids())
    deltas = accumulator.feed(_whole_response(response, provider.model, provider.base_url or ""))
    assert [d.text for d in deltas] == ["whole"]
    assert [(c.id, c.arguments) for c in accumulator.tool_calls()] == [("c1", {"path": "w"})]
    await provider.aclose()


async def test_key_header_and_context_window(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_server.set_model(MODEL, context_length=32768)
    provider = make(fake_server)
    fake_server.script(Text("ok"))
    await collect(provider, ask())
    assert fake_server.chat_requests[-1].headers["authorization"] == "Bearer sk-test"
    assert (await provider.model_info()).context_window == 32768
    assert await provider.list_models() == [MODEL]
    configured = make(fake_server, context_window=4096)
    assert (await configured.model_info()).context_window == 4096
    assert not errors([])


async def test_no_key_sends_no_authorization(fake_server: FakeServer) -> None:
    fake_server.script(Text("ok"))
    await collect(make(fake_server), ask())
    assert "authorization" not in fake_server.chat_requests[-1].headers
