"""Remembers what the agent last saw of each file, so an edit can refuse a file changed on disk since."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileStamp:
    mtime_ns: int
    size: int
    sha256: str


def stamp(path: Path) -> FileStamp:
    data = path.read_bytes()
    st = path.stat()
    return FileStamp(st.st_mtime_ns, st.st_size, hashlib.sha256(data).hexdigest())


class FileStateTracker:
    def __init__(self) -> None:
        self._seen: dict[Path, FileStamp] = {}

    def record(self, path: Path) -> None:
        try:
            self._seen[path] = stamp(path)
        except OSError:
            self._seen.pop(path, None)

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
            return False
        return stamp(path).sha256 != before.sha256
