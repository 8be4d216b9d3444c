"""Linux inotify through ctypes: a non-blocking descriptor and the events queued on it, for watches that need no
thread and no polling (the checkpoints' directory watch, the theme folders' hot reload).

``Inotify.open()`` is ``None`` where inotify is missing (another system, a libc without it) or refused (the
per-user instance limit); the callers then look at everything, or poll. libc is found among the process's own
symbols: ``ctypes.util.find_library`` would run ``ldconfig -p`` in a fork of the whole app.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
IN_ONLYDIR, IN_DONT_FOLLOW = 0x1000000, 0x2000000

_EVENT = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len; then len bytes of name


class Inotify:
    """One inotify descriptor (non-blocking, closed on exec) and the watches added to it."""

    def __init__(self, fd: int, add_watch: Callable[[int, bytes, int], int]) -> None:
        self.fd = fd
        self._add_watch = add_watch

    @classmethod
    def open(cls) -> Inotify | None:
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: glibc's or musl's
            init, add_watch = libc.inotify_init1, libc.inotify_add_watch
        except (OSError, AttributeError):
            return None
        add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        fd = init(os.O_NONBLOCK | os.O_CLOEXEC)
        return cls(fd, add_watch) if fd >= 0 else None

    def add(self, path: str | Path, mask: int) -> int:
        """A watch on ``path``: its descriptor, negative when refused (the per-user watch limit, a path gone)."""
        return self._add_watch(self.fd, os.fsencode(path), mask)

    def events(self) -> Iterator[tuple[int, int, bytes]]:
        """(watch descriptor, mask, name) of each event queued so far, without waiting; ``OSError`` if the
        descriptor fails."""
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            offset = 0
            while offset < len(data):
                wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
                start = offset + _EVENT.size
                offset = start + length
                yield wd, mask, data[start:offset].rstrip(b"\0")

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
