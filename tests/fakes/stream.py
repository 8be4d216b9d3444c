"""The format-independent part of answering a chat request: pacing, errors, drops and stalls.

Each wire format subclasses `Encoder` to turn steps into its own frames; `play()` drives one reply.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from .script import (
    CONTENT_STEPS,
    Done,
    Drop,
    Garbage,
    HttpError,
    RawBytes,
    RawLine,
    RawResponse,
    Reset,
    Stall,
    Step,
    Usage,
    estimate_usage,
    stop_reason,
)
from .wire_http import Connection, RecordedRequest

_MAX_BACKLOG = 0.05  # a paced stream that fell behind catches up by at most this much in one burst
_RETRY_STATUSES = (429, 503, 529)


@dataclass
class Reply:
    """What an encoder knows about the reply it is encoding."""

    request: RecordedRequest
    steps: tuple[Step, ...]
    seq: int

    @property
    def body(self) -> dict[str, Any]:
        return self.request.json if isinstance(self.request.json, dict) else {}

    @property
    def model(self) -> str:
        return self.request.model or "fake-model"

    @property
    def usage(self) -> Usage:
        return estimate_usage(self.steps, self.request.json)

    @property
    def stop(self) -> str:
        """Generic stop reason: stop, length, tool_use, or a scripted provider-specific value."""
        return stop_reason(self.steps)


class Encoder:
    """Turns steps into one wire format's frames. Subclasses override what their format needs."""

    stream_content_type = "application/json"

    def __init__(self, reply: Reply) -> None:
        self.reply = reply

    @property
    def headers(self) -> dict[str, str]:
        """Extra response headers (request ids)."""
        return {}

    def error_body(self, err: HttpError) -> Any:
        """The provider's JSON body for an HTTP error status."""
        raise NotImplementedError

    def open(self) -> bytes:
        """Frames before the first content step."""
        return b""

    def frames(self, step: Step) -> bytes:
        """Frames for one content step (`Text`, `Thinking`, `ToolCall`, `Garbage`, `RawLine`)."""
        raise NotImplementedError

    def error_frames(self, err: HttpError) -> bytes:
        """An in-stream error (after the 200 head was sent)."""
        raise NotImplementedError

    def close(self) -> bytes:
        """Final frames: stop reason, usage, terminator."""
        return b""

    def complete(self, steps: tuple[Step, ...]) -> Any:
        """The whole reply as one non-streaming JSON body."""
        raise NotImplementedError


def error_headers(err: HttpError) -> dict[str, str]:
    if not err.retry_headers:
        return {}
    retry = err.retry_after
    if retry is None and err.status in _RETRY_STATUSES:
        retry = 0.0
    if retry is None:
        return {}
    # `retry-after: 0` makes the Stainless SDKs fall back to their 0.5 s+ backoff; `retry-after-ms` wins there.
    seconds = str(int(retry)) if float(retry).is_integer() else str(retry)
    return {"retry-after": seconds, "retry-after-ms": str(max(1, int(retry * 1000)))}


def presented_key(request: Any) -> str:
    """The API key the client sent (``Authorization: Bearer`` or ``x-api-key``)."""
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[len("bearer ") :]
    return request.headers.get("x-api-key", "")


async def send_error(conn: Connection, enc: Encoder, err: HttpError, keep_alive: bool) -> None:
    if "{api_key}" in err.message:  # quote the key back, as OpenAI's real 401 body does
        err = replace(err, message=err.message.replace("{api_key}", presented_key(enc.reply.request)))
    await conn.send_json(err.status, enc.error_body(err), {**enc.headers, **error_headers(err)}, keep_alive)


async def play(conn: Connection, enc: Encoder, stream: bool, keep_alive: bool) -> bool:
    """Send the reply. Returns whether the connection may serve another request. Raises `ClientGone`."""
    steps = enc.reply.steps
    if steps and isinstance(steps[0], RawResponse):
        return await _play_raw(conn, steps[0], keep_alive)
    if not stream:
        return await _play_whole(conn, enc, steps, keep_alive)
    loop = asyncio.get_running_loop()
    next_at = loop.time()
    started = False

    async def ensure_started() -> None:
        nonlocal started
        if not started:
            started = True
            await conn.start_stream(200, enc.stream_content_type, enc.headers, keep_alive)
            await conn.write_chunk(enc.open())

    for step in steps:
        if step.until is not None:
            deadline = loop.time() + 30.0
            while not step.until.is_set() and loop.time() < deadline:
                await conn.sleep(0.01)
        if step.delay > 0:
            now = loop.time()
            next_at = max(next_at, now - _MAX_BACKLOG) + step.delay
            if next_at > now:
                await conn.sleep(next_at - now)
        if isinstance(step, HttpError):
            if not started:
                await send_error(conn, enc, step, keep_alive)
                return keep_alive
            await conn.write_chunk(enc.error_frames(step))
            await conn.end_stream()
            return keep_alive
        if isinstance(step, Drop):
            conn.abort()
            return False
        if isinstance(step, Reset):
            await conn.reset()
            return False
        if isinstance(step, Stall):
            await conn.sleep(step.seconds)
            if not step.resume:
                conn.abort()
                return False
            next_at = loop.time()
        elif isinstance(step, CONTENT_STEPS):
            await ensure_started()
            await conn.write_chunk(enc.frames(step))
    await ensure_started()
    await conn.write_chunk(enc.close())
    await conn.end_stream()
    return keep_alive


async def _play_whole(conn: Connection, enc: Encoder, steps: tuple[Step, ...], keep_alive: bool) -> bool:
    kept: list[Step] = []
    for step in steps:
        if step.delay > 0:
            await conn.sleep(step.delay)
        if isinstance(step, HttpError):
            await send_error(conn, enc, step, keep_alive)
            return keep_alive
        if isinstance(step, Drop):
            conn.abort()
            return False
        if isinstance(step, Reset):
            await conn.reset()
            return False
        if isinstance(step, Stall):
            await conn.sleep(step.seconds)
            if not step.resume:
                conn.abort()
                return False
        elif isinstance(step, (*CONTENT_STEPS, Usage, Done)):
            kept.append(step)
    raw = [s for s in kept if isinstance(s, Garbage | RawLine | RawBytes)]
    if raw:
        body = b"\n".join(_raw_bytes(s) for s in raw)
        await conn.send(200, body, headers=enc.headers, keep_alive=keep_alive)
    else:
        await conn.send_json(200, enc.complete(tuple(kept)), enc.headers, keep_alive)
    return keep_alive


async def _play_raw(conn: Connection, step: RawResponse, keep_alive: bool) -> bool:
    if step.delay > 0:
        await conn.sleep(step.delay)
    headers = {"Content-Type": step.content_type, **dict(step.headers)}
    await conn.send_raw(step.status, headers, step.body, step.parts, step.gap)
    return keep_alive


def _raw_bytes(step: Step) -> bytes:
    if isinstance(step, RawBytes):
        return step.data
    if isinstance(step, Garbage):
        return step.text.encode()
    return step.line.encode() if isinstance(step, RawLine) else b""
