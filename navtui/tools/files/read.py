"""read: a file's lines, numbered, a window at a time; directories listed, binaries and images described."""

from __future__ import annotations

import asyncio
import difflib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from pydantic import BaseModel, Field

from navtui.core.errors import ToolError
from navtui.core.text import decode_bytes
from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.files.listing import list_directory
from navtui.tools.files.pathtools import ReadsPath
from navtui.tools.files.textfile import (
    SNIFF_BYTES,
    UTF8_BOM,
    UTF16_BOMS,
    describe_binary,
    is_binary,
    kind_of,
    require_regular,
)
from navtui.tools.shell.output import human_size

MAX_LINES = 2000
MAX_BYTES = 50 * 1024
MAX_LINE_CHARS = 2000
COUNT_LINES_UP_TO = 100 * 1024 * 1024  # bigger files are paged without a total
MAX_UTF16_BYTES = 20 * 1024 * 1024
_CHUNK = 1 << 16


def _skip_lines(handle: BinaryIO, count: int) -> int:
    """Advance past ``count`` newlines; returns how many were skipped (fewer at end of file)."""
    skipped = 0
    while skipped < count:
        chunk = handle.read(_CHUNK)
        if not chunk:
            break
        newlines = chunk.count(b"\n")
        if skipped + newlines < count:
            skipped += newlines
            continue
        position = -1
        for _ in range(count - skipped):
            position = chunk.find(b"\n", position + 1)
        handle.seek(position + 1 - len(chunk), os.SEEK_CUR)
        return count
    return skipped


def _lines(handle: BinaryIO, cap: int) -> Iterator[tuple[bytes, bool]]:
    """Lines without their newline, each cut to ``cap`` bytes (flag True when cut); memory stays bounded."""
    buffer = b""
    cut = False
    while chunk := handle.read(_CHUNK):
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not cut:
                buffer += piece
                if len(buffer) > cap:
                    buffer, cut = buffer[:cap], True
            if end < 0:
                break
            yield buffer, cut
            buffer, cut, start = b"", False, end + 1
    if buffer or cut:
        yield buffer, cut


def _count_lines(path: Path, size: int) -> int | None:
    if size > COUNT_LINES_UP_TO:
        return None
    lines, last = 0, b"\n"
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (0 if last == b"\n" else 1)


def _locate_hint(ctx: ToolContext) -> str:
    """How to look for a file, with the tools on offer only (a small window's compact set has no find)."""
    tools = [name for name in ("find", "ls") if ctx.offers(name)]
    if not tools:
        return "read a directory to list it"
    return f"use {' or '.join(tools)} to locate it"


def _not_found(resolved: Path, shown: str, ctx: ToolContext) -> ToolError:
    parent = resolved.parent
    locate = _locate_hint(ctx)
    if not parent.is_dir():
        return ToolError(f"File not found: {shown} (its directory does not exist either); {locate}")
    try:
        names = os.listdir(parent)
    except OSError:
        names = []
    close = difflib.get_close_matches(resolved.name, names, n=3, cutoff=0.6)
    hint = f" Did you mean: {', '.join(close)}?" if close else f" {locate[0].upper()}{locate[1:]}."
    return ToolError(f"File not found: {shown}.{hint}")


class ReadArgs(BaseModel):
    path: str = Field(min_length=1, description="File (or directory) path, relative to the workspace.")
    offset: int | None = Field(
        None, ge=0, description="First line to show (1-based; 0, which models often send, means the first)."
    )
    limit: int | None = Field(None, ge=1, le=MAX_LINES, description=f"How many lines (at most {MAX_LINES}).")


class ReadTool(ReadsPath, Tool[ReadArgs]):
    name = "read"
    description = (
        f"Read a text file with numbered lines (up to {MAX_LINES} lines or 50 KB per call; the result says where to "
        "continue). A directory is listed; images and binary files are described, not dumped. "
        'Example: {"path": "src/app.py", "offset": 120, "limit": 80}'
    )
    Args = ReadArgs
    tier = "read"

    def summary(self, args: ReadArgs) -> str:
        if args.offset or args.limit:
            start = args.offset or 1
            return f"{args.path}:{start}-{start + (args.limit or MAX_LINES) - 1}"
        return args.path

    async def run(self, args: ReadArgs, ctx: ToolContext) -> ToolResult:
        resolved = ctx.workspace.resolve(args.path)
        shown = ctx.workspace.display(resolved)
        if resolved.is_dir():
            return ToolResult(list_directory(resolved, shown), details={"path": str(resolved), "directory": True})
        try:
            size = require_regular(resolved, shown)
        except ToolError as exc:
            if not resolved.exists() and not resolved.is_symlink():
                raise _not_found(resolved, shown, ctx) from exc
            raise
        try:
            return await asyncio.to_thread(self._read, resolved, shown, size, args, ctx)
        except OSError as exc:  # EIO from /proc, a file removed meanwhile, ...
            raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}") from exc

    def _read(self, path: Path, shown: str, size: int, args: ReadArgs, ctx: ToolContext) -> ToolResult:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
        details: dict[str, object] = {"path": str(path), "size": size}
        if size == 0 and not head:
            ctx.file_state.record(path, b"")
            return ToolResult(f"{shown} is empty (0 bytes).", details=details)
        if is_binary(head):
            kind = kind_of(head) or "binary"
            return ToolResult(describe_binary(path, head, size), details={**details, "binary": True, "kind": kind})
        offset = args.offset or 1
        limit = args.limit or MAX_LINES
        utf16 = next((enc for bom, enc in UTF16_BOMS.items() if head.startswith(bom)), None)
        if utf16:
            window, total, cut_any, lossy = self._window_utf16(path, shown, size, utf16, offset, limit)
        else:
            window, total, cut_any, lossy = self._window_utf8(path, size, offset, limit, head.startswith(UTF8_BOM))
        if not window:
            raise ToolError(f"offset {offset} is past the end of {shown} ({total} lines)")
        out: list[str] = []
        used = 0
        for number, text in window:
            line = f"{number:>6}\t{text}"
            if out and used + len(line) + 1 > MAX_BYTES:
                break
            out.append(line)
            used += len(line) + 1
        first, last = window[0][0], window[len(out) - 1][0]
        notes: list[str] = []
        if cut_any:
            notes.append(f"[long lines were cut at {MAX_LINE_CHARS} characters]")
        if lossy:
            notes.append("[not valid UTF-8: undecodable bytes are shown as U+FFFD]")
        if utf16:
            notes.append(f"[decoded from {utf16.upper()}]")
        at_eof = len(window) < limit and len(out) == len(window)
        more = not at_eof if total is None else last < total
        if more:
            of = f" of {total}" if total is not None else ""
            notes.append(f"[lines {first}-{last}{of}; continue with offset={last + 1}]")
        elif first > 1:
            notes.append(f"[lines {first}-{last} of {total}; end of file]")
        ctx.file_state.record(path, whole=first == 1 and not more and not cut_any)
        details.update(first_line=first, last_line=last, total_lines=total, truncated=more)
        return ToolResult("\n".join(out + notes), details=details)

    @staticmethod
    def _decode(data: bytes, cut: bool) -> tuple[str, bool]:
        """(text, lossy) for one line's bytes; a cut line may end inside a character, which is not lossy."""
        try:
            return data.decode("utf-8"), False
        except UnicodeDecodeError as exc:
            if cut and exc.start >= len(data) - 3:
                return data[: exc.start].decode("utf-8", "surrogateescape"), False
            return decode_bytes(data), True

    def _window_utf8(
        self, path: Path, size: int, offset: int, limit: int, bom: bool
    ) -> tuple[list[tuple[int, str]], int | None, bool, bool]:
        window: list[tuple[int, str]] = []
        cut_any = lossy = False
        with path.open("rb") as handle:
            if bom:
                handle.seek(len(UTF8_BOM))
            if _skip_lines(handle, offset - 1) < offset - 1:
                return [], _count_lines(path, size), False, False
            for number, (data, cut) in enumerate(_lines(handle, MAX_LINE_CHARS * 4), start=offset):
                text, bad = self._decode(data.removesuffix(b"\r"), cut)
                if cut or len(text) > MAX_LINE_CHARS:
                    text = text[:MAX_LINE_CHARS] + " [... line cut]"
                    cut_any = True
                lossy = lossy or bad
                window.append((number, text))
                if len(window) >= limit:
                    break
        return window, _count_lines(path, size), cut_any, lossy

    @staticmethod
    def _window_utf16(
        path: Path, shown: str, size: int, encoding: str, offset: int, limit: int
    ) -> tuple[list[tuple[int, str]], int | None, bool, bool]:
        if size > MAX_UTF16_BYTES:
            raise ToolError(f"{shown} is a {human_size(size)} UTF-16 file; convert it (iconv) to read it in pages")
        text = path.read_bytes()[2:].decode(encoding, "replace").replace("\r\n", "\n")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        cut_any = any(len(line) > MAX_LINE_CHARS for line in lines[offset - 1 : offset - 1 + limit])
        window = [
            (number, line[:MAX_LINE_CHARS] + (" [... line cut]" if len(line) > MAX_LINE_CHARS else ""))
            for number, line in enumerate(lines[offset - 1 : offset - 1 + limit], start=offset)
        ]
        return window, len(lines), cut_any, "\ufffd" in text
