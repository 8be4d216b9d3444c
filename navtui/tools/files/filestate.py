"""Remembers what the agent last saw of each file, so an edit can refuse a file changed on disk since."""

from __future__ import annotations

import hashlib
import stat
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from navtui.core.errors import ToolError

# Larger files are compared by mtime and size only: hashing them on every read would cost more than it saves.
MAX_HASHED_BYTES = 64 * 1024 * 1024
# Some filesystems keep mtimes in whole (or even two) seconds: a file seen less than this long after its last
# change may change again without its mtime moving, so it is compared by content ("racy" in git's words).
MTIME_GRANULARITY_NS = 2_000_000_000


@dataclass(frozen=True)
class FileStamp:
    mtime_ns: int
    size: int
    sha256: str  # "" when the file was too large to hash
    seen_ns: int = field(default_factory=time.time_ns)
    whole: bool = True  # False: the model saw only part of it (a page of a read, a read cut to fit the window)

    @property
    def racy(self) -> bool:
        """Seen so soon after a change that a same-size rewrite could have kept the same mtime."""
        return self.seen_ns - self.mtime_ns < MTIME_GRANULARITY_NS


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stamp(path: Path, data: bytes | None = None) -> FileStamp:
    st = path.stat()
    if data is None and stat.S_ISREG(st.st_mode) and st.st_size <= MAX_HASHED_BYTES:
        data = path.read_bytes()  # never a FIFO or a device: reading those can block forever
    return FileStamp(st.st_mtime_ns, st.st_size, _digest(data) if data is not None else "")


class FileStateTracker:
    def __init__(self) -> None:
        self._seen: dict[Path, FileStamp] = {}
        self._warned: dict[Path, str] = {}  # path -> digest of the write refused once as a blind overwrite

    def record(self, path: Path, data: bytes | None = None, *, whole: bool = True) -> None:
        """Remember ``path`` as seen now; pass ``data`` when the caller already holds the file's bytes.

        ``whole``: the model saw all of it. Seen in part, it may be edited but not replaced by a ``write`` that
        was not sent twice (``check_whole``).
        """
        try:
            self._seen[path] = replace(stamp(path, data), whole=whole)
        except OSError:
            self._seen.pop(path, None)

    def mark_partial(self, path: Path) -> None:
        """What the model saw of ``path`` was cut (a read trimmed to fit the window): no longer seen whole."""
        if path in self._seen:
            self._seen[path] = replace(self._seen[path], whole=False)

    def check_whole(self, path: Path, shown: str, content: bytes) -> bool:
        """Refuse, once, to replace a file the model has seen only in part; True when it was refused before.

        The refusal says how to go on: edit the part it saw, read the rest, or send the same write again to
        replace the file anyway (then the result warns that lines it never saw are gone).
        """
        before = self._seen.get(path)
        if before is None or before.whole:
            return False
        digest = _digest(content)
        if self._warned.get(path) == digest:
            return True
        self._warned[path] = digest
        raise ToolError(
            f"Not written: you have seen only part of {shown}, and write replaces the whole file, so the lines you "
            "have not seen would be lost. Change the part you saw with edit, or read the rest first. If the whole "
            "file really must become exactly this content, send the same write again."
        )

    def forget(self, path: Path) -> None:
        self._seen.pop(path, None)

    def seen(self, path: Path) -> FileStamp | None:
        return self._seen.get(path)

    def changed_since_seen(self, path: Path) -> bool:
        """True when the file was seen before and its content differs now."""
        before = self._seen.get(path)
        if before is None:
            return False
        try:
            st = path.stat()
        except FileNotFoundError:
            return True
        if st.st_mtime_ns == before.mtime_ns and st.st_size == before.size:
            if not (before.racy and before.sha256):
                return False
            return stamp(path).sha256 != before.sha256
        if st.st_size != before.size or not before.sha256 or st.st_size > MAX_HASHED_BYTES:
            return True
        # Same size, new mtime: a `touch` or a checkout of identical bytes is not a change.
        return stamp(path).sha256 != before.sha256

    def ensure_fresh(self, path: Path, shown: str, *, require_seen: bool = False) -> None:
        """Raise a ``ToolError`` telling the model to re-read a file that changed since it last saw it.

        With ``require_seen``, an existing file the agent never read or wrote is refused too (a blind overwrite),
        unless it is empty: nothing in it can be lost (the 1.5B ran ``touch timeparse.py``, then its write of the
        file was refused with "read it first", which it never did).
        """
        if self.changed_since_seen(path):
            raise ToolError(
                f"{shown} changed on disk since you last read or wrote it (an editor, formatter or command "
                "changed it). Re-read it first with read, then make your change against the current content."
            )
        if require_seen and path not in self._seen and _has_content(path):
            raise ToolError(
                f"{shown} already exists and you have not read it in this session. "
                "Read it first, or use edit to change part of it."
            )


def _has_content(path: Path) -> bool:
    """Whether something is at ``path`` that a write would lose: a file with at least one byte (or not a file)."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return not stat.S_ISREG(st.st_mode) or st.st_size > 0
