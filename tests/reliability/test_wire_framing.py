"""P11: the same stream cut into any HTTP chunks parses to the same events (SSE and NDJSON framing).

The fake server sends each part as its own HTTP chunk, cut anywhere: inside a UTF-8 character, inside ``\\r\\n``,
inside ``data:``. The streams carry what real servers send: CRLF line ends, ``: ping`` comments, ``data:`` with no
space, an ``event:`` without data, blank NDJSON lines.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navtui.config.settings import ProviderSettings
from navtui.core.messages import UserMessage
from navtui.providers.anthropic import AnthropicProvider
from navtui.providers.base import ChatRequest, Provider
from navtui.providers.ollama import OllamaProvider
from navtui.providers.openai import OpenAIProvider
from tests.fakes import FakeServer, RawResponse
from tests.providers.support import TOOLS


def _sse(*events: tuple[str | None, dict[str, Any] | str], crlf: bool = False, space: bool = True) -> bytes:
    end = "\r\n" if crlf else "\n"
    out = ""
    for name, data in events:
        if name:
            out += f"event: {name}{end}"
        payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        out += f"data:{' ' if space else ''}{payload}{end}{end}"
    return out.encode()


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


CALL = {"index": 0, "id": "t1", "type": "function", "function": {"name": "read", "arguments": '{"path": "aé.py"}'}}
OPENAI = (
    b": ping\r\n\r\n"
    + _sse((None, _chunk({"role": "assistant", "content": "héllo "})), crlf=True, space=False)
    + b"event: keepalive\r\n\r\n"
    + _sse((None, _chunk({"content": "wörld 🦀"})), (None, _chunk({"tool_calls": [CALL]})))
    + _sse((None, _chunk({}, "tool_calls")), (None, "[DONE]"))
)
START = {"type": "message_start", "message": {"id": "m1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
         "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}  # fmt: skip
ANTHROPIC = (
    _sse(("message_start", START), crlf=True)
    + _sse(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}), space=False)
    + _sse(("ping", {"type": "ping"}))
    + b": comment\n\n"
    + _sse(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "héllo wörld 🦀"}}))
    + _sse(("content_block_stop", {"type": "content_block_stop", "index": 0}), crlf=True)
    + _sse(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 5}}))
    + _sse(("message_stop", {"type": "message_stop"}))
)  # fmt: skip


def _line(message: dict[str, Any], **final: Any) -> str:
    return json.dumps({"model": "m", "created_at": "2026-01-01T00:00:00Z", "message": message, "done": bool(final), **final}, ensure_ascii=False)  # fmt: skip


OLLAMA = (
    _line({"role": "assistant", "content": "héllo "}) + "\r\n\n"
    + _line({"role": "assistant", "content": "wörld 🦀"}) + "\n"
    + _line({"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "read", "arguments": {"path": "aé.py"}}}]}) + "\n"
    + _line({"role": "assistant", "content": ""}, done_reason="stop", prompt_eval_count=10, eval_count=5) + "\n"
).encode()  # fmt: skip

STREAMS = {
    "openai": (OPENAI, "text/event-stream"),
    "anthropic": (ANTHROPIC, "text/event-stream"),
    "ollama": (OLLAMA, "application/x-ndjson"),
}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer() as running:
        yield running


def _provider(kind: str, server: FakeServer) -> Provider:
    if kind == "openai":
        return OpenAIProvider("m", server.url, ProviderSettings(context_window=8192))
    if kind == "anthropic":
        return AnthropicProvider("claude-haiku-4-5", server.url, ProviderSettings(), api_key="sk-test")
    return OllamaProvider("m", server.url, ProviderSettings())


async def _events(kind: str, server: FakeServer, parts: tuple[bytes, ...]) -> list[dict[str, Any]]:
    server.script(RawResponse(200, parts=parts, content_type=STREAMS[kind][1]))
    provider = _provider(kind, server)
    request = ChatRequest(system="s", messages=[UserMessage(content="hi")], tools=TOOLS)
    try:
        async with contextlib.aclosing(provider.stream(request)) as stream:
            return [event.to_json() async for event in stream if event.type != "notice"]
    finally:
        await provider.aclose()


_WHOLE: dict[str, list[dict[str, Any]]] = {}


@pytest.mark.parametrize("kind", list(STREAMS))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_p11_a_stream_cut_anywhere_parses_to_the_same_events(
    server: FakeServer, kind: str, data: st.DataObject
) -> None:
    whole, _ = STREAMS[kind]
    cuts = sorted(data.draw(st.sets(st.integers(1, len(whole) - 1), max_size=40), label="cuts"))
    parts = tuple(whole[a:b] for a, b in zip([0, *cuts], [*cuts, len(whole)], strict=True))
    if kind not in _WHOLE:
        _WHOLE[kind] = asyncio.run(_events(kind, server, (whole,)))
        text = "".join(e.get("text", "") for e in _WHOLE[kind] if e["type"] == "text_delta")
        assert text == "héllo wörld 🦀" and _WHOLE[kind][-1]["type"] == "stop", _WHOLE[kind]
    assert asyncio.run(_events(kind, server, parts)) == _WHOLE[kind]
