"""Shaping command output for a model: terminal noise removed, long output cut to its head and tail."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

# CSI sequences, OSC sequences (terminated by BEL or ST) and other two-byte escapes.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
# C0 controls except tab and newline, DEL and C1 controls: never useful to a model, harmful on a terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# A tool result longer than this (any tool: an MCP server can return megabytes) is cut to its head and tail for
# the model and the session; the whole text is kept in a private artifact file the model is pointed at.
MAX_RESULT_CHARS = 100_000
RESULT_HEAD_CHARS = 20_000
RESULT_TAIL_CHARS = 60_000
HEAD_BYTES = 8 * 1024
HEAD_LINES = 80
TAIL_BYTES = 24 * 1024
TAIL_LINES = 300


def sanitize(text: str) -> str:
    """Plain text: CRLF to LF, progress-bar rewrites (``\\r``) collapsed, escapes and controls removed."""
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        text = "\n".join(line.rsplit("\r", 1)[-1] if "\r" in line else line for line in text.split("\n"))
    text = _ANSI.sub("", text)
    return _CONTROL.sub("", text)


LOW_DISK_BYTES = 64 * 1024


def disk_full_note(directory: Path) -> str | None:
    """A line for the model and the user when the disk holding ``directory`` has (almost) no room left."""
    try:
        st = os.statvfs(directory)
    except OSError:
        return None
    free = st.f_bavail * st.f_frsize
    if free >= LOW_DISK_BYTES:
        return None
    return (
        f"[the disk holding {directory} is full ({human_size(free)} free): the command's output could not be kept, "
        "and the command may have failed for that reason; free some space, or set NAVTUI_HOME to another disk]"
    )


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # unreachable


@dataclass
class Excerpt:
    """What the model sees of an output: its head, its tail and what was left out between them."""

    head: str
    tail: str
    total_bytes: int
    total_lines: int
    omitted_bytes: int
    omitted_lines: int

    @property
    def truncated(self) -> bool:
        return self.omitted_bytes > 0

    def render(self, full_output: str | None = None) -> str:
        if not self.truncated:
            return self.head
        where = f" Full output: {full_output}" if full_output else ""
        note = (
            f"\n[... {self.omitted_lines} lines ({human_size(self.omitted_bytes)}) omitted of "
            f"{self.total_lines} lines ({human_size(self.total_bytes)}).{where} ...]\n"
        )
        return self.head.rstrip("\n") + note + self.tail


def _count_lines(path: Path, size: int) -> int:
    lines = 0
    last = b"\n"
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (1 if size and last != b"\n" else 0)


def _first_lines(data: bytes, max_lines: int) -> bytes:
    end = -1
    for _ in range(max_lines):
        end = data.find(b"\n", end + 1)
        if end < 0:
            return data
    return data[: end + 1]


def _last_lines(data: bytes, max_lines: int) -> bytes:
    body = data[:-1] if data.endswith(b"\n") else data
    start = len(body)
    for _ in range(max_lines):
        start = body.rfind(b"\n", 0, start)
        if start < 0:
            return data
    return data[start + 1 :]


def excerpt_file(
    path: Path,
    *,
    head_bytes: int = HEAD_BYTES,
    head_lines: int = HEAD_LINES,
    tail_bytes: int = TAIL_BYTES,
    tail_lines: int = TAIL_LINES,
) -> Excerpt:
    """Read at most ``head_bytes + tail_bytes`` of ``path`` (never the whole file) and cut at line ends."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return Excerpt("", "", 0, 0, 0, 0)
    with path.open("rb") as handle:
        if size <= head_bytes + tail_bytes:
            data = handle.read(size)
            lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
            if lines <= head_lines + tail_lines:
                return Excerpt(sanitize(data.decode("utf-8", "surrogateescape")), "", size, lines, 0, 0)
            head = _first_lines(data[:head_bytes], head_lines)
            tail = _last_lines(data[len(head) :][-tail_bytes:], tail_lines)
        else:
            head = handle.read(head_bytes)
            handle.seek(size - tail_bytes)
            tail = handle.read(tail_bytes)
            if b"\n" in head:
                head = head[: head.rfind(b"\n") + 1]
            if b"\n" in tail[:-1]:
                tail = tail[tail.find(b"\n") + 1 :]
            head = _first_lines(head, head_lines)
            tail = _last_lines(tail, tail_lines)
    total_lines = _count_lines(path, size)
    omitted_bytes = size - len(head) - len(tail)
    shown_lines = head.count(b"\n") + tail.count(b"\n") + (0 if tail.endswith(b"\n") or not tail else 1)
    return Excerpt(
        head=sanitize(head.decode("utf-8", "surrogateescape")),
        tail=sanitize(tail.decode("utf-8", "surrogateescape")),
        total_bytes=size,
        total_lines=total_lines,
        omitted_bytes=omitted_bytes,
        omitted_lines=max(total_lines - shown_lines, 0),
    )


def read_tail(path: Path, max_bytes: int, max_lines: int) -> str:
    """The last lines of a file, sanitised, reading at most ``max_bytes``."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return ""
    with path.open("rb") as handle:
        handle.seek(max(size - max_bytes, 0))
        data = handle.read(max_bytes)
    if size > max_bytes and b"\n" in data[:-1]:
        data = data[data.find(b"\n") + 1 :]
    return sanitize(_last_lines(data, max_lines).decode("utf-8", "surrogateescape"))


def keep_long_result(text: str, artifacts_dir: Path, call_id: str) -> str:
    """``text`` if it is short enough, else its head and tail with the whole text saved to a file beside it."""
    if len(text) <= MAX_RESULT_CHARS:
        return text
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", call_id)[:64] or "call"
    path = artifacts_dir / f"tool-result-{safe}.txt"
    try:
        artifacts_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text)
        where = f" The whole result is in {path}."
    except OSError as exc:
        where = f" (The whole result could not be kept: {exc.strerror or exc}.)"
    omitted = len(text) - RESULT_HEAD_CHARS - RESULT_TAIL_CHARS
    note = f"\n[... {omitted} characters of {len(text)} omitted.{where} ...]\n"
    return text[:RESULT_HEAD_CHARS] + note + text[-RESULT_TAIL_CHARS:]
