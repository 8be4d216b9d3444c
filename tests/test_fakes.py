"""The fake provider servers, checked with the real clients over loopback."""

# The fixture is imported by name below (as conftest will), so test parameters "redefine" it.
# ruff: noqa: F811

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import httpx
import ollama
import pytest
import pytest_asyncio
from httpx_sse import aconnect_sse

from tests.fakes import (
    Done,
    Drop,
    FakeServer,
    Garbage,
    HttpError,
    RawLine,
    RawResponse,
    Reset,
    Stall,
    Text,
    Thinking,
    ToolCall,
    Usage,
)
from tests.fakes.fixture import fake_server  # noqa: F401

USER = [{"role": "user", "content": "hi"}]


class Clients:
    """Real SDK clients pointed at the fake server, closed after the test."""

    def __init__(self, server: FakeServer) -> None:
        self.server = server
        self._open: list[ollama.AsyncClient | anthropic.AsyncAnthropic] = []

    def ollama_client(self, **kwargs: Any) -> ollama.AsyncClient:
        client = ollama.AsyncClient(host=self.server.url, **kwargs)
        self._open.append(client)
        return client

    def anthropic_client(self, retries: int = 0) -> anthropic.AsyncAnthropic:
        client = anthropic.AsyncAnthropic(base_url=self.server.url, api_key="x", max_retries=retries, timeout=5.0)
        self._open.append(client)
        return client

    async def close(self) -> None:
        for client in self._open:
            await client.close()


@pytest_asyncio.fixture
async def clients(fake_server: FakeServer) -> AsyncIterator[Clients]:
    opened = Clients(fake_server)
    yield opened
    await opened.close()


async def _openai_events(server: FakeServer, body: dict[str, Any]) -> list[dict[str, Any] | str]:
    """POST an OpenAI chat request with httpx-sse; JSON chunks, plus the literal "[DONE]"."""
    out: list[dict[str, Any] | str] = []
    async with (
        httpx.AsyncClient(base_url=server.url + "/v1") as client,
        aconnect_sse(client, "POST", "/chat/completions", json=body) as events,
    ):
        assert events.response.headers["content-type"].startswith("text/event-stream")
        async for sse in events.aiter_sse():
            out.append(sse.data if sse.data == "[DONE]" else json.loads(sse.data))
    return out


# --- Ollama ------------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_ollama_stream_text_thinking_tool_calls_and_usage(fake_server: FakeServer, clients: Clients) -> None:
    fake_server.script(
        Thinking("let me think"),
        Text("Hello "),
        Text("world"),
        ToolCall("read", {"path": "a.py"}),
        ToolCall("ls", {}, id="call_x"),
        Usage(input=12, output=3),
    )
    client = clients.ollama_client()
    parts = [p async for p in await client.chat(model="qwen3:4b", messages=USER, think=True, stream=True)]

    assert "".join(p.message.thinking or "" for p in parts) == "let me think"
    assert "".join(p.message.content or "" for p in parts) == "Hello world"
    calls = [c for p in parts for c in p.message.tool_calls or []]
    assert [(c.function.name, dict(c.function.arguments)) for c in calls] == [("read", {"path": "a.py"}), ("ls", {})]
    final = parts[-1]
    assert final.done and final.done_reason == "stop"
    assert (final.prompt_eval_count, final.eval_count) == (12, 3)
    req = fake_server.chat_requests[0]
    assert (req.method, req.path, req.model) == ("POST", "/api/chat", "qwen3:4b")
    assert req.json["stream"] is True and req.json["think"] is True and req.json["messages"] == USER


@pytest.mark.asyncio
async def test_ollama_wire_has_index_always_and_id_only_when_given(fake_server: FakeServer) -> None:
    fake_server.script(ToolCall("a", {"x": 1}), ToolCall("b", {}, id="call_b"), Usage(0, 0))
    async with httpx.AsyncClient() as client:
        resp = await client.post(fake_server.url + "/api/chat", json={"model": "m", "messages": USER})
    assert resp.headers["content-type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in resp.text.splitlines()]
    assert lines[0]["message"]["tool_calls"] == [{"function": {"index": 0, "name": "a", "arguments": {"x": 1}}}]
    assert lines[1]["message"]["tool_calls"] == [
        {"id": "call_b", "function": {"index": 1, "name": "b", "arguments": {}}}
    ]
    assert lines[-1]["done"] is True
    assert "eval_count" not in lines[-1] and "prompt_eval_count" not in lines[-1]  # omitempty


@pytest.mark.asyncio
async def test_ollama_non_streaming_merges_the_reply(fake_server: FakeServer, clients: Clients) -> None:
    fake_server.script(Thinking("t1"), Thinking("t2"), Text("a"), Text("b"), ToolCall("read", {"p": 1}), Done("length"))
    resp = await clients.ollama_client().chat(model="m", messages=USER, stream=False)
    assert (resp.message.content, resp.message.thinking) == ("ab", "t1t2")
    assert resp.message.tool_calls and resp.message.tool_calls[0].function.name == "read"
    assert resp.done_reason == "length"


@pytest.mark.asyncio
async def test_ollama_models_show_tags_version_embed(fake_server: FakeServer, clients: Clients) -> None:
    client = clients.ollama_client()
    assert (await client.show("anything")).modelinfo["llama.context_length"] == 32768  # every model known by default

    fake_server.set_model(
        "qwen2.5-coder:7b", context_length=16384, capabilities=["completion", "tools"], family="qwen2"
    )
    fake_server.set_model("gemma:2b", capabilities=["completion"], family="gemma")
    shown = await client.show("qwen2.5-coder:7b")
    assert shown.modelinfo["general.architecture"] == "qwen2"
    assert shown.modelinfo["qwen2.context_length"] == 16384
    assert shown.capabilities == ["completion", "tools"]
    assert shown.details.family == "qwen2"
    with pytest.raises(ollama.ResponseError) as missing:
        await client.show("nope")
    assert (missing.value.status_code, missing.value.error) == (404, "model 'nope' not found")

    assert [m.model for m in (await client.list()).models] == ["qwen2.5-coder:7b", "gemma:2b"]
    async with httpx.AsyncClient() as raw:
        assert "version" in (await raw.get(fake_server.url + "/api/version")).json()

    tool = {"type": "function", "function": {"name": "read", "parameters": {"type": "object", "properties": {}}}}
    with pytest.raises(ollama.ResponseError) as no_tools:
        await client.chat(model="gemma:2b", messages=USER, tools=[tool])
    assert no_tools.value.status_code == 400
    assert no_tools.value.error == "registry.ollama.ai/library/gemma:2b does not support tools"

    emb = await client.embed(model="gemma:2b", input=["a", "b", "a"])
    assert len(emb.embeddings) == 3 and len(emb.embeddings[0]) == 64
    assert emb.embeddings[0] == emb.embeddings[2] != emb.embeddings[1]


async def test_ollama_memory_and_pull_as_the_official_client_reads_them(
    fake_server: FakeServer, clients: Clients
) -> None:
    client = clients.ollama_client()
    fake_server.set_model("qwen2.5-coder:7b", context_length=16384)
    fake_server.set_model("gemma:2b", loaded=False)
    running = (await client.ps()).models
    assert [(m.model, m.context_length) for m in running] == [("qwen2.5-coder:7b", 16384)]
    fake_server.unload("qwen2.5-coder:7b")
    assert (await client.ps()).models == []
    await client.chat(model="gemma:2b", messages=[])  # an empty chat loads the model, as Ollama's does
    assert [m.model for m in (await client.ps()).models] == ["gemma:2b"]

    fake_server.set_pullable("smollm2:135m", size=1000, steps=2)
    steps = [step async for step in await client.pull("smollm2:135m", stream=True)]
    assert [(s.status, s.completed, s.total) for s in steps[1:4]] == [
        (steps[1].status, 0, 1000), (steps[2].status, 500, 1000), (steps[3].status, 1000, 1000),
    ]  # fmt: skip
    assert steps[0].status == "pulling manifest" and steps[-1].status == "success"
    assert "smollm2:135m" in [m.model for m in (await client.list()).models]
    with pytest.raises(ollama.ResponseError, match="file does not exist"):
        async for _ in await client.pull("nope", stream=True):
            pass


@pytest.mark.asyncio
async def test_ollama_errors_status_and_mid_stream(fake_server: FakeServer, clients: Clients) -> None:
    client = clients.ollama_client()
    fake_server.script(HttpError(500, "boom"))
    stream = await client.chat(model="m", messages=USER, stream=True)  # lazy: the request goes out on iteration
    with pytest.raises(ollama.ResponseError) as status_err:
        await anext(stream)
    assert (status_err.value.status_code, status_err.value.error) == (500, "boom")

    fake_server.script(Text("partial"), HttpError(500, "an error was encountered while running the model"))
    got: list[str] = []
    with pytest.raises(ollama.ResponseError) as stream_err:
        async for part in await client.chat(model="m", messages=USER, stream=True):
            got.append(part.message.content or "")
    assert got == ["partial"] and stream_err.value.status_code == -1

    fake_server.script(Text("x"), Garbage("not json at all"))
    with pytest.raises(json.JSONDecodeError):
        async for _ in await client.chat(model="m", messages=USER, stream=True):
            pass


async def test_ollama_keep_alive_is_seconds_or_a_go_duration(fake_server: FakeServer, clients: Clients) -> None:
    """As Ollama's ``api.Duration`` decodes it: ``-1`` (a number) keeps the model loaded, ``"-1"`` has no unit."""
    client = clients.ollama_client()
    for fine in (-1, 0, "10m", "-1h", "0"):
        fake_server.script(Text("ok"))
        reply = await client.chat(model="m", messages=USER, keep_alive=fine)
        assert reply.message.content == "ok"
    with pytest.raises(ollama.ResponseError) as refused:
        await client.chat(model="m", messages=USER, keep_alive="-1")
    assert (refused.value.status_code, refused.value.error) == (400, 'time: missing unit in duration "-1"')


# --- Anthropic ---------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_anthropic_raw_events_thinking_and_tool_use(fake_server: FakeServer, clients: Clients) -> None:
    fake_server.script(
        Thinking("let me "),
        Thinking("think", signature="c2ln"),
        Text("I'll read it."),
        ToolCall("read", {"path": "a.py", "limit": 5}),
        Usage(input=30, output=7, cache_read=20, cache_write=4),
    )
    stream = await clients.anthropic_client().messages.create(
        model="claude-test", max_tokens=100, messages=USER, stream=True
    )
    events = [e async for e in stream]
    types = [e.type for e in events]
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    assert "ping" not in types  # sent on the wire, skipped by the SDK

    start = events[0].message.usage
    assert (start.input_tokens, start.cache_read_input_tokens, start.cache_creation_input_tokens) == (30, 20, 4)
    deltas = [e.delta for e in events if e.type == "content_block_delta"]
    assert "".join(d.thinking for d in deltas if d.type == "thinking_delta") == "let me think"
    assert [d.signature for d in deltas if d.type == "signature_delta"] == ["c2ln"]
    tool_start = next(e for e in events if e.type == "content_block_start" and e.content_block.type == "tool_use")
    partial = "".join(d.partial_json for d in deltas if d.type == "input_json_delta")
    assert tool_start.index == 2 and json.loads(partial) == {"path": "a.py", "limit": 5}
    assert events[-2].delta.stop_reason == "tool_use" and events[-2].usage.output_tokens == 7
    req = fake_server.chat_requests[0]
    assert req.path == "/v1/messages" and "anthropic-version" in req.headers and req.json["max_tokens"] == 100


@pytest.mark.asyncio
async def test_anthropic_helper_accumulates_final_message(fake_server: FakeServer, clients: Clients) -> None:
    fake_server.script(Text("Hi "), Text("there"), ToolCall("grep", {"pattern": 'x"y'}, id="toolu_1"))
    client = clients.anthropic_client()
    async with client.messages.stream(model="claude", max_tokens=10, messages=USER) as stream:
        final = await stream.get_final_message()
    assert [b.type for b in final.content] == ["text", "tool_use"]
    assert final.content[0].text == "Hi there"
    assert (final.content[1].id, final.content[1].input) == ("toolu_1", {"pattern": 'x"y'})
    assert final.stop_reason == "tool_use"

    fake_server.script(Text("plain"), Done("length"))
    whole = await client.messages.create(model="claude", max_tokens=10, messages=USER)
    assert whole.content[0].text == "plain" and whole.stop_reason == "max_tokens"


@pytest.mark.asyncio
async def test_anthropic_error_classes_and_fast_retries(fake_server: FakeServer, clients: Clients) -> None:
    fake_server.script(HttpError(529, "Overloaded"))
    with pytest.raises(anthropic.OverloadedError) as overloaded:
        await clients.anthropic_client().messages.create(model="c", max_tokens=5, messages=USER, stream=True)
    assert overloaded.value.body["error"]["type"] == "overloaded_error"

    fake_server.script(HttpError(400, "bad"))
    with pytest.raises(anthropic.BadRequestError):
        await clients.anthropic_client().messages.create(model="c", max_tokens=5, messages=USER)

    fake_server.reset()
    fake_server.script(HttpError(429, "slow down"))
    fake_server.script(Text("after retry"))
    began = time.monotonic()
    reply = await clients.anthropic_client(retries=2).messages.create(model="c", max_tokens=5, messages=USER)
    assert reply.content[0].text == "after retry" and time.monotonic() - began < 1.0
    assert len(fake_server.chat_requests) == 2

    fake_server.script(Text("so far"), HttpError(529, "Overloaded"))
    stream = await clients.anthropic_client().messages.create(model="c", max_tokens=5, messages=USER, stream=True)
    with pytest.raises(anthropic.APIStatusError) as mid:
        async for _ in stream:
            pass
    assert mid.value.status_code == 200 and mid.value.body["error"]["type"] == "overloaded_error"


@pytest.mark.asyncio
async def test_models_endpoint_is_shared_by_anthropic_and_openai(fake_server: FakeServer, clients: Clients) -> None:
    fake_server.set_model("claude-x", context_length=200_000)
    page = await clients.anthropic_client().models.list()
    assert [(m.id, m.max_input_tokens) for m in page.data] == [("claude-x", 200_000)]
    async with httpx.AsyncClient() as client:
        listed = (await client.get(fake_server.url + "/v1/models")).json()
    assert listed["object"] == "list" and listed["data"][0]["id"] == "claude-x"


# --- OpenAI-compatible -------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_openai_chunks_tool_deltas_and_usage_when_asked(fake_server: FakeServer) -> None:
    fake_server.script(Thinking("hmm"), Text("Hi"), ToolCall("read", {"path": "a.py"}), Usage(input=9, output=4))
    body = {"model": "local", "messages": USER, "stream": True, "stream_options": {"include_usage": True}}
    events = await _openai_events(fake_server, body)
    assert events[-1] == "[DONE]"
    chunks = [e for e in events if isinstance(e, dict)]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert "".join(d.get("reasoning_content", "") for d in deltas) == "hmm"
    assert "".join(d.get("content") or "" for d in deltas) == "Hi"
    calls = [tc for d in deltas for tc in d.get("tool_calls", [])]
    assert calls[0]["index"] == 0 and calls[0]["id"].startswith("call_") and calls[0]["function"]["name"] == "read"
    assert len(calls) > 2 and all("id" not in c and "name" not in c["function"] for c in calls[1:])
    assert json.loads("".join(c["function"]["arguments"] for c in calls)) == {"path": "a.py"}
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 9

    fake_server.script(Text("x"))
    plain = await _openai_events(fake_server, {"model": "local", "messages": USER, "stream": True})
    assert not any(isinstance(e, dict) and "usage" in e for e in plain)


@pytest.mark.asyncio
async def test_openai_errors_and_raw_lines(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(429, "slow down"))
    async with httpx.AsyncClient() as client:
        body = {"model": "m", "messages": USER, "stream": True}
        resp = await client.post(fake_server.url + "/v1/chat/completions", json=body)
        assert resp.status_code == 429 and resp.headers["retry-after"] == "0"
        assert resp.json()["error"]["message"] == "slow down" and "type" in resp.json()["error"]

    fake_server.script(RawLine('{"choices":[{"delta":{"reasoning":"vllm"}}]}'), Text("a"), HttpError(500, "ctx"))
    events = await _openai_events(fake_server, {"model": "m", "messages": USER, "stream": True})
    assert events[1] == {"choices": [{"delta": {"reasoning": "vllm"}}]}
    assert events[-1] == {"error": {"message": "ctx", "type": "server_error", "param": None, "code": None}}


# --- connection faults -------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_drop_ends_each_stream_with_an_error(fake_server: FakeServer, clients: Clients) -> None:
    fake_server.script(Text("partial "), Drop())
    got: list[str] = []
    with pytest.raises(httpx.RemoteProtocolError):
        async for part in await clients.ollama_client().chat(model="m", messages=USER, stream=True):
            got.append(part.message.content or "")
    assert got == ["partial "]

    fake_server.script(Text("partial "), Drop())
    with pytest.raises(httpx.RemoteProtocolError):
        await _openai_events(fake_server, {"model": "m", "messages": USER, "stream": True})

    fake_server.script(Text("partial "), Drop())
    stream = await clients.anthropic_client().messages.create(model="c", max_tokens=5, messages=USER, stream=True)
    with pytest.raises(Exception) as dropped:  # noqa: B017 - the SDK surfaces httpx2's transport error as is
        async for _ in stream:
            pass
    assert "incomplete" in str(dropped.value).lower() or "closed" in str(dropped.value).lower()


@pytest.mark.asyncio
async def test_stall_hits_the_client_read_timeout_and_counts_a_disconnect(
    fake_server: FakeServer, clients: Clients
) -> None:
    fake_server.script(Text("first"), Stall(5.0))
    client = clients.ollama_client(timeout=httpx.Timeout(5.0, read=0.3))
    began = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        async for _ in await client.chat(model="m", messages=USER, stream=True):
            pass
    assert time.monotonic() - began < 2.0
    assert await fake_server.wait_for_disconnect_async(timeout=2.0)

    fake_server.script(Text("a"), Stall(0.05, resume=True), Text("b"))
    parts = [p.message.content async for p in await client.chat(model="m", messages=USER, stream=True)]
    assert "".join(p or "" for p in parts) == "ab"


@pytest.mark.asyncio
async def test_client_closing_early_is_counted(fake_server: FakeServer, clients: Clients) -> None:
    chunks = fake_server.script_stream("x" * 4000, tokens_per_second=200, chunk_chars=4)
    assert chunks == 1000
    stream = await clients.ollama_client().chat(model="m", messages=USER, stream=True)
    seen = 0
    async for _ in stream:
        seen += 1
        if seen == 3:
            break
    await stream.aclose()
    assert await fake_server.wait_for_disconnect_async(timeout=2.0)
    assert fake_server.disconnects == 1 and fake_server.errors == []


def test_per_model_queues_default_reply_and_keep_alive_from_sync_code(fake_server: FakeServer) -> None:
    fake_server.script(Text("for qwen"), model="qwen2.5-coder:7b")
    fake_server.script(Text("default"))
    with httpx.Client(base_url=fake_server.url) as client:

        def ask(model: str) -> str:
            resp = client.post("/api/chat", json={"model": model, "messages": USER, "stream": False})
            return resp.json()["message"]["content"]

        assert ask("llama3") == "default"
        assert ask("qwen2.5-coder:7b") == "for qwen"
        assert ask("qwen2.5-coder:7b") == "ok"  # both queues empty: default Text("ok"), never a hang
    assert fake_server.connections == 1  # keep-alive reused one connection
    recorded = fake_server.chat_requests
    assert [r.model for r in recorded] == ["llama3", "qwen2.5-coder:7b", "qwen2.5-coder:7b"]
    assert [len(r.reply or ()) for r in recorded] == [1, 1, 1]
    assert recorded[0].headers["content-type"] == "application/json"
    fake_server.reset()
    assert fake_server.requests == [] and fake_server.pending() == 0


def test_context_manager_and_paced_stream() -> None:
    with FakeServer() as server:
        server.script_stream("abcdefgh" * 25, tokens_per_second=1000, chunk_chars=4)  # 50 chunks, ~50 ms
        began = time.monotonic()
        with httpx.Client() as client:
            lines = client.post(server.url + "/api/chat", json={"model": "m", "messages": USER}).text.splitlines()
        elapsed = time.monotonic() - began
        assert len(lines) == 51 and json.loads(lines[-1])["eval_count"] == 50
        assert 0.04 <= elapsed < 1.0
    with contextlib.suppress(RuntimeError), pytest.raises(RuntimeError):
        _ = server.url


# --- Fault-injection harness (tests/reliability) -----------------------------------------------------------------


@pytest.mark.asyncio
async def test_reset_delivers_what_was_sent_then_resets(fake_server: FakeServer) -> None:
    fake_server.script(Text("partial "), Reset())
    got: list[str] = []
    async with httpx.AsyncClient(base_url=fake_server.url) as client:
        with pytest.raises(httpx.ReadError) as reset:
            async with client.stream("POST", "/api/chat", json={"model": "m", "messages": USER}) as response:
                async for line in response.aiter_lines():
                    got.append(json.loads(line)["message"]["content"])
    assert got == ["partial "]
    chain: list[BaseException] = []
    error: BaseException | None = reset.value
    while error is not None and len(chain) < 10:
        chain.append(error)
        error = error.__cause__ or error.__context__
    assert any(isinstance(e, ConnectionResetError) for e in chain), chain  # an RST, not a FIN


def test_raw_response_sends_exactly_the_scripted_status_headers_and_parts(fake_server: FakeServer) -> None:
    fake_server.script(RawResponse(502, b"<html>Bad Gateway</html>", content_type="text/html"))
    fake_server.script(RawResponse(200, parts=(b"da", b"ta: x\n", b"\n"), content_type="text/event-stream"))
    with httpx.Client(base_url=fake_server.url) as client:
        page = client.post("/v1/chat/completions", json={"model": "m", "messages": USER, "stream": True})
        assert (page.status_code, page.headers["content-type"], page.text) == (
            502,
            "text/html",
            "<html>Bad Gateway</html>",
        )
        parts = client.post("/v1/chat/completions", json={"model": "m", "messages": USER, "stream": True})
        assert (parts.status_code, parts.text) == (200, "data: x\n\n")


def test_the_validator_finds_what_providers_reject() -> None:
    from tests.fakes.validate import request_problems
    from tests.fakes.wire_http import RecordedRequest

    def problems(path: str, messages: list[Any]) -> list[str]:
        return request_problems(RecordedRequest("POST", path, "", {}, b"", {"messages": messages}))

    call = {"id": "c1", "function": {"name": "read", "arguments": {}}}
    good = [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"}, {"role": "assistant", "content": "done"}]  # fmt: skip
    assert problems("/api/chat", good) == []
    assert problems("/api/chat", good[:2] + good[3:]) != []  # a call without its result
    twice = [*good, {"role": "user", "content": "again"}, *good[1:3]]
    assert any("used twice" in p for p in problems("/v1/chat/completions", twice))
    use = {"type": "tool_use", "id": "t1", "name": "read", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
    anthropic_good = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [use]},
                      {"role": "user", "content": [result]}]  # fmt: skip
    assert problems("/v1/messages", anthropic_good) == []
    after = [
        anthropic_good[0],
        {"role": "assistant", "content": [use, {"type": "text", "text": "x"}]},
        anthropic_good[2],
    ]
    assert any("content after" in p for p in problems("/v1/messages", after))
    empty = [{"role": "user", "content": [{"type": "text", "text": ""}]}]
    assert any("empty text" in p for p in problems("/v1/messages", empty))
