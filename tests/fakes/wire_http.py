"""A minimal HTTP/1.1 server connection on asyncio streams: requests in, plain or chunked responses out."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from dataclasses import dataclass, field
from email.utils import formatdate
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit

_POLL = 0.01  # how often a silent stream checks whether the client went away
_REASONS = {529: "Site Overloaded", 499: "Client Closed Request"}


class ClientGone(Exception):
    """The client closed the connection while we were still answering."""


class BadRequest(Exception):
    """The bytes on the socket are not an HTTP request we understand."""


@dataclass
class RecordedRequest:
    """One request as the fake server received it."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes
    json: Any = None
    model: str | None = None
    reply: tuple[Any, ...] | None = field(default=None, repr=False)

    @property
    def keep_alive(self) -> bool:
        return self.headers.get("connection", "").lower() != "close"


async def read_request(reader: asyncio.StreamReader) -> RecordedRequest | None:
    """Read one request; None on a clean EOF before any byte of it."""
    line = await reader.readline()
    while line in (b"\r\n", b"\n"):
        line = await reader.readline()
    if not line:
        return None
    try:
        method, target, _version = line.decode("latin-1").rstrip("\r\n").split(" ", 2)
    except ValueError as exc:
        raise BadRequest(f"bad request line {line!r}") from exc
    headers: dict[str, str] = {}
    while True:
        raw = await reader.readline()
        if raw in (b"\r\n", b"\n", b""):
            break
        name, _, value = raw.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    else:
        body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
    if target.startswith("http://"):  # absolute form, as a client sends it to its HTTP proxy: the fake is that
        asked = urlsplit(target)  # proxy and the server asked for, whatever its name (a hosted API's, say)
        headers["host"] = asked.netloc
        target = (asked.path or "/") + (f"?{asked.query}" if asked.query else "")
    path, _, query = target.partition("?")
    parsed: Any = None
    if body:
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
    model = None
    if isinstance(parsed, dict):
        value = parsed.get("model", parsed.get("name"))
        model = value if isinstance(value, str) else None
    return RecordedRequest(method.upper(), path, query, headers, body, parsed, model)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readline()


class Connection:
    """The writing side of one client connection, with client-disconnect detection."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.closed = False
        self.streaming = False

    def gone(self) -> bool:
        """True once the client has closed its side (EOF/reset seen by the reader or the transport)."""
        return (
            self.closed
            or self.writer.transport.is_closing()
            or self.reader.at_eof()
            or self.reader.exception() is not None
        )

    async def sleep(self, seconds: float) -> None:
        """Sleep, but raise `ClientGone` as soon as the client disconnects."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while True:
            if self.gone():
                raise ClientGone
            left = end - loop.time()
            if left <= 0:
                return
            await asyncio.sleep(min(_POLL, left))

    async def _write(self, data: bytes) -> None:
        # Reader EOF only means "gone" mid-stream: a client may half-close after sending a plain request.
        if self.closed or self.writer.transport.is_closing() or (self.streaming and self.gone()):
            raise ClientGone
        try:
            self.writer.write(data)
            await self.writer.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise ClientGone from exc

    async def send(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json; charset=utf-8",
        headers: dict[str, str] | None = None,
        keep_alive: bool = True,
    ) -> None:
        """A complete response with Content-Length."""
        head = _head(
            status, {"Content-Type": content_type, "Content-Length": str(len(body)), **(headers or {})}, keep_alive
        )
        await self._write(head + body)

    async def send_json(
        self, status: int, obj: Any, headers: dict[str, str] | None = None, keep_alive: bool = True
    ) -> None:
        await self.send(status, json.dumps(obj).encode(), headers=headers, keep_alive=keep_alive)

    async def start_stream(
        self, status: int, content_type: str, headers: dict[str, str] | None = None, keep_alive: bool = True
    ) -> None:
        """Response head for a chunked body."""
        self.streaming = True
        head = _head(
            status,
            {
                "Content-Type": content_type,
                "Transfer-Encoding": "chunked",
                "Cache-Control": "no-cache",
                **(headers or {}),
            },
            keep_alive,
        )
        await self._write(head)

    async def write_chunk(self, data: bytes) -> None:
        if data:
            await self._write(b"%x\r\n%s\r\n" % (len(data), data))

    async def end_stream(self) -> None:
        await self._write(b"0\r\n\r\n")
        self.streaming = False

    def abort(self, force: bool = False) -> None:
        """Close the socket as it is: what was written goes out, then FIN, no terminator. `force` resets it now."""
        self.closed = True
        try:
            if force:
                self.writer.transport.abort()
            else:
                self.writer.close()
        except (ConnectionError, RuntimeError):
            pass

    async def reset(self) -> None:
        """Send an RST: the bytes already written reach the client first, then the connection is torn down."""
        await asyncio.sleep(0.05)  # let the client read what was sent, as it would before a real reset
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            # SO_LINGER on with a zero timeout makes close() send RST instead of FIN.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.abort(force=True)

    async def send_raw(
        self, status: int, headers: dict[str, str], body: bytes, parts: tuple[bytes, ...] | None, gap: float
    ) -> None:
        """A response with exactly this status, these headers and this body (chunked when `parts` are given)."""
        if parts is None:
            await self._write(_head(status, {**headers, "Content-Length": str(len(body))}, True) + body)
            return
        await self.start_stream(status, headers.pop("Content-Type", "application/octet-stream"), headers)
        for index, part in enumerate(parts):
            if index and gap:
                await self.sleep(gap)
            await self.write_chunk(part)
        await self.end_stream()


def _head(status: int, headers: dict[str, str], keep_alive: bool) -> bytes:
    try:
        reason = _REASONS.get(status) or HTTPStatus(status).phrase
    except ValueError:
        reason = "Unknown"
    lines = [f"HTTP/1.1 {status} {reason}", f"Date: {formatdate(usegmt=True)}", "Server: navtui-fake"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines.append(f"Connection: {'keep-alive' if keep_alive else 'close'}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
