"""Hot reload: watch the custom theme folders and yield what each save did. Pure asyncio, no Textual.

On Linux the folders are watched with inotify: one file descriptor the event loop reads when the kernel has
news, no thread and no polling. watchfiles (which the watch used everywhere before) starts two threads for it
(its Rust notifier's and the worker blocked on it) and loads its Rust library and ``multiprocessing``: ~1 MB of
the app's RSS, idle or after a reply (docs/speed.md, "Ninth wave: memory after a reply").
watchfiles still watches where inotify is missing or refused (another system, the watch limit reached) and
when polling is asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
from collections.abc import AsyncGenerator
from pathlib import Path

from navtui.core.inotify import (
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_DELETE,
    IN_MODIFY,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_ONLYDIR,
    IN_Q_OVERFLOW,
    Inotify,
)
from navtui.themes.loader import ThemeRegistry, ThemeReload

DEBOUNCE_MS = 150
"""Quiet time after the last change before a reload: editors write a file in several steps."""
MAX_WAIT_MS = 1600
"""A folder that never goes quiet (a script rewriting a theme in a loop) is still reloaded this often."""

_MASK = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ONLYDIR


def _is_theme_file(path: str) -> bool:
    name = Path(path).name
    # Hidden names are editors' and atomic writers' temporary files (".x.json.1234.tmp", ".#x.json").
    return name.endswith(".json") and not name.startswith(".")


async def watch_themes(
    registry: ThemeRegistry,
    stop_event: asyncio.Event | None = None,
    *,
    debounce_ms: int = DEBOUNCE_MS,
    force_polling: bool | None = None,
) -> AsyncGenerator[ThemeReload, None]:
    """Yield a :class:`ThemeReload` for each theme file changed, added or deleted in ``registry``'s folders.

    Runs until ``stop_event`` is set (or the consuming task is cancelled). The user theme folder is created
    so themes added later are seen; a project folder that does not exist is not watched.
    """
    registry.user_dir.mkdir(parents=True, exist_ok=True)
    directories = [d for d in registry.directories() if d.is_dir()]
    watch = None if force_polling else _ThemeFolders.open(directories)
    changes = (
        _inotify_changes(watch, stop_event, debounce_ms)
        if watch is not None
        else _watchfiles_changes(directories, stop_event, debounce_ms, force_polling)
    )
    async with contextlib.aclosing(changes):  # closed with this generator: the descriptor too
        async for paths in changes:
            # One result per file even if a save touched it several times; the file's final state decides.
            for path in sorted(paths):
                yield registry.reload_file(Path(path))


class _ThemeFolders:
    """An inotify watch on ``directories`` (not their subfolders)."""

    def __init__(self, inotify: Inotify, folders: dict[int, str]) -> None:
        self.inotify = inotify
        self._folders = folders  # watch descriptor -> folder

    @classmethod
    def open(cls, directories: list[Path]) -> _ThemeFolders | None:
        """The watch, or None where inotify is missing or refuses a folder (watchfiles takes over)."""
        inotify = Inotify.open()
        if inotify is None:
            return None
        folders: dict[int, str] = {}
        for directory in directories:
            wd = inotify.add(directory, _MASK)
            if wd < 0:  # the per-user watch limit (ENOSPC), or the folder just vanished
                inotify.close()
                return None
            folders[wd] = str(directory)
        return cls(inotify, folders)

    def read(self) -> set[str]:
        """The paths named by the events queued so far; after an overflow, every theme file there is now."""
        paths: set[str] = set()
        for wd, mask, name in self.inotify.events():
            if mask & IN_Q_OVERFLOW:  # events were lost: look at what is there
                paths.update(str(path) for folder in self._folders.values() for path in Path(folder).glob("*.json"))
            folder = self._folders.get(wd)
            if folder is not None and name:
                paths.add(os.path.join(folder, os.fsdecode(name)))
        return paths

    def close(self) -> None:
        self.inotify.close()


async def _inotify_changes(
    watch: _ThemeFolders, stop_event: asyncio.Event | None, debounce_ms: int
) -> AsyncGenerator[set[str], None]:
    loop = asyncio.get_running_loop()
    stopped = asyncio.create_task((stop_event or asyncio.Event()).wait())
    try:
        while await _news(watch.inotify.fd, stopped, None):
            paths: set[str] = set()
            deadline = loop.time() + MAX_WAIT_MS / 1000
            while True:  # gather until the folders have been quiet for debounce_ms
                paths.update(path for path in watch.read() if _is_theme_file(path))
                quiet = min(debounce_ms / 1000, deadline - loop.time())
                if quiet <= 0 or not await _news(watch.inotify.fd, stopped, quiet):
                    break
            if stopped.done():
                return
            if paths:
                yield paths
    finally:
        stopped.cancel()
        watch.close()


async def _news(fd: int, stopped: asyncio.Task[bool], within: float | None) -> bool:
    """Wait until ``fd`` has events to read: False after ``within`` seconds or once stopped.

    The loop watches the descriptor only while this waits: readable until read, it would otherwise call back on
    every turn of the loop while the consumer is busy with the last change."""
    if stopped.done():
        return False
    loop = asyncio.get_running_loop()
    news: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not news.done():
            news.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await asyncio.wait((news, stopped), timeout=within, return_when=asyncio.FIRST_COMPLETED)
    finally:
        loop.remove_reader(fd)
    return news.done() and not stopped.done()


async def _watchfiles_changes(
    directories: list[Path], stop_event: asyncio.Event | None, debounce_ms: int, force_polling: bool | None
) -> AsyncGenerator[set[str], None]:
    from watchfiles import Change, awatch
    from watchfiles._rust_notify import WatchfilesRustInternalError

    def theme_file(_change: Change, path: str) -> bool:
        return _is_theme_file(path)

    try:
        async for changes in awatch(
            *directories,
            watch_filter=theme_file,
            step=debounce_ms,
            stop_event=stop_event,
            recursive=False,
            force_polling=force_polling,
        ):
            yield {path for _change, path in changes}
    except WatchfilesRustInternalError as exc:
        # Its notifier could not start: no descriptor or inotify instance left (fs.inotify.max_user_instances,
        # 128 by default, shared by every program of the user). Said as the OS error it is; it ended the app.
        raise OSError(errno.EMFILE, str(exc), str(directories[0]) if directories else None) from None
