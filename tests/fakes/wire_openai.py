"""OpenAI-compatible Chat Completions: SSE `/v1/chat/completions` and `/v1/models`."""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any

from .script import Garbage, HttpError, RawBytes, RawLine, Step, Text, Thinking, ToolCall
from .stream import Encoder, Reply, play
from .wire_http import Connection, RecordedRequest

if TYPE_CHECKING:
    from .server import FakeServer

_FINISH = {"stop": "stop", "length": "length", "tool_use": "tool_calls"}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "server_error",
    503: "unavailable_error",
}


def error_type(status: int) -> str:
    return _ERROR_TYPES.get(status) or ("server_error" if status >= 500 else "invalid_request_error")


def _sse(data: str, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data}\n\n".encode()


class OpenAIEncoder(Encoder):
    stream_content_type = "text/event-stream; charset=utf-8"

    def __init__(self, reply: Reply) -> None:
        super().__init__(reply)
        self._id = f"chatcmpl-fake{reply.seq:06d}"
        self._created = int(time.time())
        self._calls = 0

    @property
    def headers(self) -> dict[str, str]:
        return {"x-request-id": f"req_fake{self.reply.seq:06d}"}

    def _error(self, err: HttpError) -> dict[str, Any]:
        code = "rate_limit_exceeded" if err.status == 429 else None
        return {"message": err.message, "type": err.error_type or error_type(err.status), "param": None, "code": code}

    def error_body(self, err: HttpError) -> Any:
        return {"error": self._error(err)}

    def error_frames(self, err: HttpError) -> bytes:
        return _sse(json.dumps({"error": self._error(err)}))

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        return self._frame([{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])

    def _frame(self, choices: list[dict[str, Any]], **extra: Any) -> bytes:
        obj = {
            "id": self._id,
            "object": "chat.completion.chunk",
            "created": self._created,
            "model": self.reply.model,
            "system_fingerprint": "fp_fake",
            "choices": choices,
            **extra,
        }
        return _sse(json.dumps(obj))

    def _call_id(self, step: ToolCall, index: int) -> str:
        return step.id or f"call_fake{self.reply.seq:04d}{index:02d}"

    def open(self) -> bytes:
        return self._chunk({"role": "assistant", "content": ""})

    def frames(self, step: Step) -> bytes:
        if isinstance(step, Text):
            return self._chunk({"content": step.text})
        if isinstance(step, Thinking):
            return self._chunk({"reasoning_content": step.text})
        if isinstance(step, ToolCall):
            index = self._calls
            self._calls += 1
            first = {
                "index": index,
                "id": self._call_id(step, index),
                "type": "function",
                "function": {"name": step.name, "arguments": ""},
            }
            out = [self._chunk({"tool_calls": [first]})]
            out += [
                self._chunk({"tool_calls": [{"index": index, "function": {"arguments": frag}}]})
                for frag in step.fragments()
            ]
            return b"".join(out)
        if isinstance(step, Garbage):
            return _sse(step.text)
        if isinstance(step, RawLine):
            return _sse(step.line, step.event)
        if isinstance(step, RawBytes):
            return step.data
        return b""

    def _usage(self) -> dict[str, Any]:
        usage = self.reply.usage
        out: dict[str, Any] = {
            "prompt_tokens": usage.input,
            "completion_tokens": usage.output,
            "total_tokens": usage.input + usage.output,
        }
        if usage.cache_read:
            out["prompt_tokens_details"] = {"cached_tokens": usage.cache_read}
        return out

    def _finish(self) -> str:
        return _FINISH.get(self.reply.stop, self.reply.stop)

    def close(self) -> bytes:
        out = [self._chunk({}, self._finish())]
        options = self.reply.body.get("stream_options")
        if isinstance(options, dict) and options.get("include_usage"):
            out.append(self._frame([], usage=self._usage()))
        out.append(_sse("[DONE]"))
        return b"".join(out)

    def complete(self, steps: tuple[Step, ...]) -> Any:
        text = "".join(s.text for s in steps if isinstance(s, Text))
        msg: dict[str, Any] = {"role": "assistant", "content": text or None}
        thinking = "".join(s.text for s in steps if isinstance(s, Thinking))
        if thinking:
            msg["reasoning_content"] = thinking
        calls = [s for s in steps if isinstance(s, ToolCall)]
        if calls:
            msg["tool_calls"] = [
                {
                    "id": self._call_id(c, i),
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments_json()},
                }
                for i, c in enumerate(calls)
            ]
        return {
            "id": self._id,
            "object": "chat.completion",
            "created": self._created,
            "model": self.reply.model,
            "system_fingerprint": "fp_fake",
            "choices": [{"index": 0, "message": msg, "logprobs": None, "finish_reason": self._finish()}],
            "usage": self._usage(),
        }


async def chat(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    body = req.json
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        err = {
            "message": "'messages' is a required property" if isinstance(body, dict) else "Invalid JSON body",
            "type": "invalid_request_error",
            "param": None,
            "code": None,
        }
        await conn.send_json(400, {"error": err}, keep_alive=req.keep_alive)
        return req.keep_alive
    if _has_images(body["messages"]) and not server.sees_images(req.model or ""):  # llama.cpp's words
        err = {"code": 400, "message": "image input is not supported - hint: if this is unexpected, you may need to "
               "provide the mmproj", "type": "invalid_request_error"}  # fmt: skip
        await conn.send_json(400, {"error": err}, keep_alive=req.keep_alive)
        return req.keep_alive
    if server.mistral_ids and not all(re.fullmatch(r"[A-Za-z0-9]{9}", i) for i in _call_ids(body["messages"])):
        err = {"code": 500, "message": "Tool call IDs should be alphanumeric strings with length 9!",
               "type": "server_error"}  # fmt: skip
        await conn.send_json(500, {"error": err}, keep_alive=req.keep_alive)
        return req.keep_alive
    roles = [m.get("role") for m in body["messages"] if isinstance(m, dict)]
    if server.alternating_roles and any(a == b == "user" for a, b in zip(roles, roles[1:], strict=False)):
        err = {"code": 500, "message": "After the optional system message, conversation roles must alternate "
               "user/assistant/user/assistant/...", "type": "server_error"}  # fmt: skip
        await conn.send_json(500, {"error": err}, keep_alive=req.keep_alive)
        return req.keep_alive
    reply = server.next_reply(req)
    return await play(conn, OpenAIEncoder(reply), body.get("stream") is True, req.keep_alive)


def _call_ids(messages: list[Any]) -> list[str]:
    ids: list[str] = []
    for message in messages:
        if isinstance(message, dict):
            ids += [str(c.get("id")) for c in message.get("tool_calls") or [] if isinstance(c, dict)]
            ids += [str(message["tool_call_id"])] if message.get("role") == "tool" else []
    return ids


def _has_images(messages: list[Any]) -> bool:
    return any(
        isinstance(part, dict) and part.get("type") == "image_url"
        for message in messages
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        for part in message["content"]
    )


async def models(server: FakeServer, req: RecordedRequest, conn: Connection) -> bool:
    """vLLM's shape (its ``max_model_len``), or Ollama's (no window, ``owned_by: library``) with ``ollama_root``."""
    ollama = server.ollama_root
    data = [
        {
            "id": m.name,
            "object": "model",
            "created": 1_700_000_000,
            "owned_by": "library" if ollama else "navtui-fake",
            **({} if ollama else {"max_model_len": m.context_length}),
        }
        for m in server.models
    ]
    await conn.send_json(200, {"object": "list", "data": data}, keep_alive=req.keep_alive)
    return req.keep_alive
