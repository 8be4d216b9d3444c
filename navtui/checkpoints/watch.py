"""Which directories changed since the last look: Linux inotify through ctypes, no thread, no polling.

The kernel queues an event when a file in a watched directory is created, written, chmod-ed, moved or
deleted, at the moment it happens; ``changed()`` drains the queue without waiting. So after a turn, the
directories a tool or a shell command touched are known exactly and a snapshot re-reads only those. When
inotify is missing, the watch limit is reached or the queue overflowed, ``changed()`` returns ``None``:
look at everything.
"""

from __future__ import annotations

from navtui.core.inotify import (
    IN_ATTRIB,
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_DELETE,
    IN_DELETE_SELF,
    IN_DONT_FOLLOW,
    IN_IGNORED,
    IN_MODIFY,
    IN_MOVE_SELF,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_ONLYDIR,
    IN_Q_OVERFLOW,
    Inotify,
)

_MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)


class DirWatch:
    """Watches directories (by their path relative to a root); ``changed()`` names those with news."""

    def __init__(self) -> None:
        self._inotify: Inotify | None = None
        self._rel: dict[int, str] = {}
        self._open()

    def _open(self) -> None:
        self._inotify = Inotify.open()

    @property
    def active(self) -> bool:
        return self._inotify is not None

    def add(self, path: str, rel: str) -> None:
        """Watch ``path`` from now on (call before reading it, so nothing between is missed)."""
        if self._inotify is None:
            return
        wd = self._inotify.add(path, _MASK)
        if wd < 0:
            self._break()  # the watch limit (ENOSPC) or the directory vanished: look at everything
            return
        self._rel[wd] = rel

    def changed(self) -> set[str] | None:
        """Directories (relative, ``""`` the root, else ending in ``/``) with events since the last call."""
        if self._inotify is None:
            return None
        dirty: set[str] = set()
        try:
            for wd, mask, _name in self._inotify.events():
                if mask & IN_Q_OVERFLOW:
                    self._break()
                    return None
                rel = self._rel.get(wd)
                if rel is None:
                    continue
                dirty.add(rel)
                if mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF):
                    self._rel.pop(wd, None)
                    dirty.add(_parent(rel))
        except OSError:
            self._break()
            return None
        return dirty

    def reset(self) -> None:
        """After a full walk: start again from no watches (the walk adds them back)."""
        self.close()
        self._open()

    def _break(self) -> None:
        """Stop watching: ``changed()`` says ``None`` (look at everything) until ``reset()``."""
        self.close()

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None
        self._rel.clear()


def _parent(rel: str) -> str:
    if not rel:
        return ""
    head = rel[:-1].rpartition("/")[0]
    return head + "/" if head else ""
