"""Which directories changed since the last look: Linux inotify through ctypes, no thread, no polling.

The kernel queues an event when a file in a watched directory is created, written, chmod-ed, moved or
deleted, at the moment it happens; ``changed()`` drains the queue without waiting. So after a turn, the
directories a tool or a shell command touched are known exactly and a snapshot re-reads only those. When
inotify is missing, the watch limit is reached or the queue overflowed, ``changed()`` returns ``None``:
look at everything.
"""

from __future__ import annotations

import ctypes
import os
import struct

_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_Q_OVERFLOW, _IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
_IN_ONLYDIR, _IN_DONT_FOLLOW = 0x1000000, 0x2000000
_MASK = (
    _IN_MODIFY
    | _IN_ATTRIB
    | _IN_CLOSE_WRITE
    | _IN_MOVED_FROM
    | _IN_MOVED_TO
    | _IN_CREATE
    | _IN_DELETE
    | _IN_DELETE_SELF
    | _IN_MOVE_SELF
    | _IN_ONLYDIR
    | _IN_DONT_FOLLOW
)
_HEADER = struct.Struct("iIII")


class DirWatch:
    """Watches directories (by their path relative to a root); ``changed()`` names those with news."""

    def __init__(self) -> None:
        self._fd = -1
        self._rel: dict[int, str] = {}
        self._broken = False
        self._open()

    def _open(self) -> None:
        self._broken = False
        try:
            libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols (find_library ran ldconfig)
            self._add = libc.inotify_add_watch
            self._add.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        except (OSError, AttributeError):
            fd = -1
        self._fd = fd
        if fd < 0:
            self._broken = True

    @property
    def active(self) -> bool:
        return not self._broken

    def add(self, path: str, rel: str) -> None:
        """Watch ``path`` from now on (call before reading it, so nothing between is missed)."""
        if self._broken:
            return
        wd = self._add(self._fd, os.fsencode(path), _MASK)
        if wd < 0:
            self._broken = True  # the watch limit (ENOSPC) or the directory vanished: look at everything
            return
        self._rel[wd] = rel

    def changed(self) -> set[str] | None:
        """Directories (relative, ``""`` the root, else ending in ``/``) with events since the last call."""
        if self._broken:
            return None
        dirty: set[str] = set()
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return dirty
            except OSError:
                self._broken = True
                return None
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
                offset += _HEADER.size + length
                if mask & _IN_Q_OVERFLOW:
                    self._broken = True
                    return None
                rel = self._rel.get(wd)
                if rel is None:
                    continue
                dirty.add(rel)
                if mask & (_IN_IGNORED | _IN_DELETE_SELF | _IN_MOVE_SELF):
                    self._rel.pop(wd, None)
                    dirty.add(_parent(rel))

    def reset(self) -> None:
        """After a full walk: start again from no watches (the walk adds them back)."""
        self.close()
        self._open()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._rel.clear()


def _parent(rel: str) -> str:
    if not rel:
        return ""
    head = rel[:-1].rpartition("/")[0]
    return head + "/" if head else ""
