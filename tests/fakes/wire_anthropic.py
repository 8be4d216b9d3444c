"""Anthropic Messages API: SSE `/v1/messages`, `/v1/messages/count_tokens` and `/v1/models`."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

from .script import Done, Garbage, HttpError, RawBytes, RawLine, Step, Text, Thinking, ToolCall
from .stream import Encoder, Reply, play
from .wire_http import Connection, RecordedRequest

if TYPE_CHECKING:
    from .server import FakeServer

_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_use": "tool_use"}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def error_type(status: int) -> str:
    return _ERROR_TYPES.get(status) or ("api_error" if status >= 500 else "invalid_request_error")


def _event(name: str, obj: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode()


class AnthropicEncoder(Encoder):
    stream_content_type = "text/event-stream; charset=utf-8"

    def __init__(self, reply: Reply) -> None:
        super().__init__(reply)
        self._index = -1  # index of the last block started
        self._open: str | None = None  # "text" | "thinking" while a merged block is open
        self._signature: str | None = None
        self._tools = 0

    @property
    def headers(self) -> dict[str, str]:
        return {"request-id": f"req_fake{self.reply.seq:06d}"}

    def _error(self, err: HttpError) -> dict[str, Any]:
        return {"type": "error", "error": {"type": err.error_type or error_type(err.status), "message": err.message}}

    def error_body(self, err: HttpError) -> Any:
        return {**self._error(err), "request_id": f"req_fake{self.reply.seq:06d}"}

    def error_frames(self, err: HttpError) -> bytes:
        return _event("error", self._error(err))

    def _usage(self, output: int) -> dict[str, Any]:
        usage = self.reply.usage
        return {
            "input_tokens": usage.input,
            "cache_creation_input_tokens": usage.cache_write,
            "cache_read_input_tokens": usage.cache_read,
            "output_tokens": output,
        }

    def _message(self, content: list[dict[str, Any]], stop: str | None, output: int) -> dict[str, Any]:
        return {
            "id": f"msg_fake{self.reply.seq:06d}",
            "type": "message",
            "role": "assistant",
            "model": self.reply.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": self._usage(output),
        }

    def _tool_id(self, step: ToolCall, n: int) -> str:
        return step.id or f"toolu_fake{self.reply.seq:04d}{n:02d}"

    def _default_signature(self, index: int) -> str:
        return base64.b64encode(f"fake-signature-{self.reply.seq}-{index}".encode()).decode()

    def open(self) -> bytes:
        start = _event("message_start", {"type": "message_start", "message": self._message([], None, 1)})
        return start + _event("ping", {"type": "ping"})

    def _close_block(self) -> bytes:
        if self._open is None:
            return b""
        out = b""
        if self._open == "thinking":
            sig = self._signature or self._default_signature(self._index)
            delta = {"type": "signature_delta", "signature": sig}
            out += _event("content_block_delta", {"type": "content_block_delta", "index": self._index, "delta": delta})
        self._open, self._signature = None, None
        return out + _event("content_block_stop", {"type": "content_block_stop", "index": self._index})

    def _start_block(self, block: dict[str, Any]) -> bytes:
        out = self._close_block()
        self._index += 1
        return out + _event(
            "content_block_start", {"type": "content_block_start", "index": self._index, "content_block": block}
        )

    def _delta(self, delta: dict[str, Any]) -> bytes:
        return _event("content_block_delta", {"type": "content_block_delta", "index": self._index, "delta": delta})

    def frames(self, step: Step) -> bytes:
        if isinstance(step, Text):
            out = b"" if self._open == "text" else self._start_block({"type": "text", "text": ""})
            self._open = "text"
            return out + self._delta({"type": "text_delta", "text": step.text})
        if isinstance(step, Thinking):
            start = {"type": "thinking", "thinking": "", "signature": ""}
            out = b"" if self._open == "thinking" else self._start_block(start)
            self._open = "thinking"
            self._signature = step.signature or self._signature
            return out + self._delta({"type": "thinking_delta", "thinking": step.text})
        if isinstance(step, ToolCall):
            block = {"type": "tool_use", "id": self._tool_id(step, self._tools), "name": step.name, "input": {}}
            self._tools += 1
            out = self._start_block(block) + self._delta({"type": "input_json_delta", "partial_json": ""})
            for frag in step.fragments():
                out += self._delta({"type": "input_json_delta", "partial_json": frag})
            return out + _event("content_block_stop", {"type": "content_block_stop", "index": self._index})
        if isinstance(step, Garbage):
            return f"event: content_block_delta\ndata: {step.text}\n\n".encode()
        if isinstance(step, RawLine):
            head = f"event: {step.event}\n" if step.event else ""
            return f"{head}data: {step.line}\n\n".encode()
        if isinstance(step, RawBytes):
            return step.data
        return b""

    def _stop(self) -> str:
        return _STOP.get(self.reply.stop, self.reply.stop)

    def _stop_details(self) -> dict[str, Any]:
        """A refusal's ``stop_details`` (category and explanation), sent beside its stop_reason."""
        done = [s for s in self.reply.steps if isinstance(s, Done)]
        if not done or done[-1].reason != "refusal":
            return {}
        details = {"type": "refusal", "category": done[-1].category, "explanation": done[-1].explanation}
        return {"stop_details": details}

    def close(self) -> bytes:
        out = self._close_block()
        delta = {
            "type": "message_delta",
            "delta": {"stop_reason": self._stop(), "stop_sequence": None, **self._stop_details()},
            "usage": self._usage(self.reply.usage.output),
        }
        return out + _event("message_delta", delta) + _event("message_stop", {"type": "message_stop"})

    def complete(self, steps: tuple[Step, ...]) -> Any:
        content: list[dict[str, Any]] = []
        for step in steps:
            last = content[-1] if content else None
            if isinstance(step, Text):
                if last and last["type"] == "text":
                    last["text"] += step.text
                else:
                    content.append({"type": "text", "text": step.text})
            elif isinstance(step, Thinking):
                if last and last["type"] == "thinking":
                    last["thinking"] += step.text
                    last["signature"] = step.signature or last["signature"]
                else:
                    sig = step.signature or self._default_signature(len(content))
                    content.append({"type": "thinking", "thinking": step.text, "signature": sig})
            elif isinstance(step, ToolCall):
                n = sum(1 for b in content if b["type"] == "tool_use")
                content.append(
                    {"type": "tool_use", "id": self._tool_id(step, n), "name": step.name, "input": step.arguments}
                )
        return self._message(content, self._stop(), self.reply.usage.output)


async def _invalid(conn: Connection, req: RecordedRequest, message: str) -> bool:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    await conn.send_json(400, body, keep_alive=req.keep_alive)
    return req.keep_alive


def _problem(body: Any) -> str | None:
    if not isinstance(body, dict):
        return "There was an error parsing the body of your request"
    for key in ("model", "messages", "max_tokens"):
        if key not in body:
            return f"{key}: Field required"
    return None


async def messages(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    problem = _problem(req.json)
    if problem:
        return await _invalid(conn, req, problem)
    reply = server.next_reply(req)
    return await play(conn, AnthropicEncoder(reply), req.json.get("stream") is True, req.keep_alive)


async def count_tokens(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    body = req.json
    if not isinstance(body, dict) or "messages" not in body:
        return await _invalid(conn, req, "messages: Field required")
    chars = len(json.dumps([body.get("system"), body.get("messages"), body.get("tools")]))
    await conn.send_json(200, {"input_tokens": max(1, chars // 4)}, keep_alive=req.keep_alive)
    return req.keep_alive


async def models(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    data = [
        {
            "type": "model",
            "id": m.name,
            "display_name": m.name,
            "created_at": "2025-01-01T00:00:00Z",
            "lifecycle": "active",
            "max_input_tokens": m.context_length,
            "max_tokens": 8192,
        }
        for m in server.models
    ]
    body = {
        "data": data,
        "has_more": False,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
    }
    await conn.send_json(200, body, keep_alive=req.keep_alive)
    return req.keep_alive
