"""The session file on disk: lenient reads, locked appends that never fuse with a torn line, atomic rewrites.

Framing is bytes split on ``\\n`` only (U+2028 and friends are legal inside JSON strings). A line that does
not decode is skipped and reported, and never hides the lines after it. Appends hold ``flock`` on the
file, start on a fresh line when the file ends mid-line (a crash or another process's torn write), and
roll a failed write back to the size before it, so a full disk leaves no half line behind. Rewrites
re-check the file under the lock and go through temp + fsync + rename.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from navtui.core.crash import crash_point
from navtui.core.errors import NavtuiError
from navtui.core.fs import atomic_write_bytes, fsync_dir, make_temp

FILE_MODE = 0o600
DIR_MODE = 0o700
_TAIL_CHUNK = 64 * 1024
# A line nested deeper is damaged: a message's own values nest 100 levels at most (core/messages.py MAX_NESTING),
# with some 20 for the entry around them; pydantic writes 255 at most.
MAX_LINE_NESTING = 120


class FileVanished(NavtuiError):
    """The session file was deleted or moved away while navtui was writing it."""


class FileConflict(NavtuiError):
    """The session file changed on disk since it was read; a rewrite would lose someone's entries."""


@dataclass(frozen=True)
class FileStamp:
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileStamp:
        return cls(st.st_ino, st.st_size, st.st_mtime_ns)


JsonlRecord = tuple[int, bytes, dict[str, Any]]  # (line index, the line, its object)


@dataclass
class JsonlLines:
    """What a lenient read of a JSONL file found."""

    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (line index, object)
    bad_lines: list[int] = field(default_factory=list)  # 0-based indexes of lines that did not decode
    torn_tail: bool = False  # the file does not end with a newline
    stamp: FileStamp | None = None
    size: int = 0

    def warning(self, path: Path) -> str | None:
        """One message for all unreadable lines (``None`` when there were none)."""
        if not self.bad_lines:
            return None
        numbers = ", ".join(str(i + 1) for i in self.bad_lines[:10])
        more = f" and {len(self.bad_lines) - 10} more" if len(self.bad_lines) > 10 else ""
        torn = " (the last one was cut short by an interrupted write)" if self.torn_tail and self._last_is_bad else ""
        count = len(self.bad_lines)
        return f"{path}: skipped {count} unreadable line{'s' if count > 1 else ''} ({numbers}{more}){torn}"

    @property
    def _last_is_bad(self) -> bool:
        return bool(self.bad_lines) and (not self.records or self.bad_lines[-1] > self.records[-1][0])


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Building tens of thousands of objects triggers full collections that cost more than the parse."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse_jsonl(data: bytes) -> JsonlLines:
    result = JsonlLines(size=len(data))
    records = result.records
    with gc_paused():
        for index, _line, value in scan_jsonl(data, result):
            records.append((index, value))
    return result


def scan_jsonl(data: bytes, result: JsonlLines) -> Iterator[JsonlRecord]:
    """The lines of ``data`` that decode to objects, in order: (line index, the line, its object).

    Lines that do not decode go to ``result.bad_lines`` as they are passed; ``result.torn_tail`` is set first.
    A line is the file's bytes without its newline (and without a run of NULs before it).
    """
    parts = data.split(b"\n")
    result.torn_tail = parts[-1] != b""
    if not result.torn_tail:
        parts.pop()
    loads = json.loads
    bad = result.bad_lines
    for index, part in enumerate(parts):
        if not part or part.isspace():
            continue
        if part[0] == 0:  # a run of NULs left by a crash (delayed allocation) may prefix a good line
            part = part.lstrip(b"\x00")
            if not part:
                bad.append(index)
                continue
        try:
            value = loads(part)
        except (ValueError, RecursionError):  # RecursionError: a line nested deeper than Python's stack
            bad.append(index)
            continue
        if type(value) is dict and not _too_deep(part, value):
            yield index, part, value
        else:
            bad.append(index)


def _too_deep(line: bytes, value: dict[str, Any]) -> bool:
    """A line nested deeper than navtui writes one: its message could not be measured, sent or copied (pydantic
    writes 255 levels; json read it). Only a line with that many brackets is looked into."""
    limit = MAX_LINE_NESTING
    if len(line) <= 2 * limit or line.count(b"[") + line.count(b"{") <= limit:
        return False
    from navtui.core.messages import nests_deeper  # lazy: pydantic, for the rare line with that many brackets

    return nests_deeper(value, limit)


def read_jsonl(path: Path) -> JsonlLines:
    """Read and leniently parse ``path`` (``OSError`` when it cannot be read at all)."""
    data, stamp = read_file(path)
    result = parse_jsonl(data)
    result.stamp = stamp
    return result


def read_file(path: Path) -> tuple[bytes, FileStamp]:
    """The bytes of ``path`` and its stamp as they were read (``OSError`` when it cannot be read)."""
    with open(path, "rb") as handle:
        stamp = FileStamp.of(os.fstat(handle.fileno()))
        return handle.read(), stamp


def encode_line(value: dict[str, Any]) -> bytes:
    """One JSONL record. ``json.dumps`` escapes every ``\\n``, so a record is always exactly one line."""
    try:
        return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a badly decoded tool output: escape it instead
        return (json.dumps(value, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


TITLE_SLOT_START = b'{"type":"title","v":1'  # omp 17+ files open with a fixed-width title line


def read_tail(path: Path, count: int) -> tuple[bytes | None, list[bytes]]:
    """The header line and the last ``count`` non-blank lines of ``path``, reading backwards from the end."""
    with open(path, "rb") as handle:
        first = _first_line(handle)
        head = [first] if first is not None else []
        if first is not None and first.startswith(TITLE_SLOT_START):
            handle.seek(len(first) + 1)
            first = _first_line(handle)  # the header comes after omp's title slot
            if first is not None:
                head.append(first)
        end = handle.seek(0, os.SEEK_END)
        position, buffer, newlines, chunk = end, b"", 0, _TAIL_CHUNK
        while position > 0 and newlines <= count + 1:
            step = min(chunk, position)
            position -= step
            handle.seek(position)
            piece = handle.read(step)
            newlines += piece.count(b"\n")
            buffer = piece + buffer
            chunk = min(chunk * 2, 16 * 1024 * 1024)
    lines = buffer.split(b"\n")
    # From mid-file the first piece is part of a line; from the start, skip the header (and the title slot).
    lines = lines[1:] if position > 0 else lines[len(head) :]
    lines = [line for line in lines if line and not line.isspace()]
    return first, lines[-count:] if count > 0 else []


def _first_line(handle: Any) -> bytes | None:
    data = b""
    while len(data) < 4 * 1024 * 1024:
        piece = handle.read(_TAIL_CHUNK)
        if not piece:
            break
        data += piece
        cut = data.find(b"\n")
        if cut >= 0:
            return data[:cut]
    return data or None


class SessionFile:
    """One JSONL file opened for appending; safe against other navtui processes appending to it too."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    # ---------------------------------------------------------------- writing
    def create(self, data: bytes) -> None:
        """Write a new file holding ``data``; never replaces an existing file."""
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        fd, tmp = make_temp(self.path)
        try:
            try:
                _write_all(fd, data)
                crash_point("session:after_temp_write")
                os.fsync(fd)
                crash_point("session:after_temp_fsync")
            finally:
                os.close(fd)
            os.chmod(tmp, FILE_MODE)
            try:
                os.link(tmp, self.path)  # atomic and refuses to clobber (FileExistsError)
            except FileExistsError:
                raise
            except OSError:  # a filesystem without hard links
                self._create_exclusive(data)
            crash_point("session:after_link")
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        fsync_dir(directory)

    def _create_exclusive(self, data: bytes) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    def append(self, data: bytes) -> None:
        """Append whole lines under the lock; on failure the file is cut back to its size before."""
        for _attempt in range(5):
            fd = self._append_fd()
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                if not self._still_current(fd):
                    self.close()  # replaced by another process's rewrite: append to the new file
                    continue
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    data = b"\n" + data  # never fuse with a torn last line
                crash_point("append:before_write")
                try:
                    _write_all(fd, data)
                except OSError:
                    with contextlib.suppress(OSError):
                        os.ftruncate(fd, size)
                    raise
                return
            finally:
                if self._fd == fd:
                    fcntl.flock(fd, fcntl.LOCK_UN)
        raise FileConflict(f"{self.path} keeps being replaced by another process", hint="close the other navtui")

    def sync(self) -> None:
        if self._fd is not None:
            os.fsync(self._fd)

    def overwrite_head(self, data: bytes, still: Callable[[bytes], bool]) -> bool:
        """Write ``data`` over the file's first ``len(data)`` bytes if ``still(those bytes)``, under the lock.

        For omp's fixed-width title slot, which is meant to be rewritten in place; nothing else moves.
        """
        fd = os.open(self.path, os.O_RDWR)  # not the O_APPEND descriptor: there pwrite would append
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # the lock appenders take, so no append interleaves
            if not still(os.pread(fd, len(data), 0)):
                return False
            written = os.pwrite(fd, data, 0)
            os.fsync(fd)
            return written == len(data)
        finally:
            os.close(fd)

    def replace(self, transform: Callable[[bytes], bytes], expected: FileStamp | None) -> FileStamp:
        """Rewrite the file atomically as ``transform(current bytes)``, if it is still as ``expected``."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            current = FileStamp.of(os.fstat(fd))
            if not self._same_inode(fd) or (expected is not None and current != expected):
                raise FileConflict(
                    f"{self.path} changed on disk since navtui read it; not rewriting it",
                    hint="reopen the session to see the other changes",
                )
            with open(fd, "rb", closefd=False) as handle:
                data = handle.read()
            atomic_write_bytes(self.path, transform(data), mode=FILE_MODE)
            self.close()
            return FileStamp.of(os.stat(self.path))
        finally:
            os.close(fd)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.close(fd)

    # ---------------------------------------------------------------- helpers
    def _append_fd(self) -> int:
        if self._fd is None:
            try:
                self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
            except FileNotFoundError as exc:
                raise FileVanished(f"The session file {self.path} was removed") from exc
        return self._fd

    def _still_current(self, fd: int) -> bool:
        try:
            return self._same_inode(fd)
        except FileNotFoundError as exc:
            self.close()
            raise FileVanished(f"The session file {self.path} was removed") from exc

    def _same_inode(self, fd: int) -> bool:
        mine, on_disk = os.fstat(fd), os.stat(self.path)
        return (mine.st_dev, mine.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
