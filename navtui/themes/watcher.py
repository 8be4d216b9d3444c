"""Hot reload: watch the custom theme folders and yield what each save did. Pure asyncio, no Textual."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from pathlib import Path

from watchfiles import Change, awatch

from navtui.themes.loader import ThemeRegistry, ThemeReload

DEBOUNCE_MS = 150
"""Quiet time after the last change before a reload: editors write a file in several steps."""


def _is_theme_file(change: Change, path: str) -> bool:
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
    async for changes in awatch(
        *directories,
        watch_filter=_is_theme_file,
        step=debounce_ms,
        stop_event=stop_event,
        recursive=False,
        force_polling=force_polling,
    ):
        # One result per file even if a save touched it several times; the file's final state decides.
        for path in sorted({path for _change, path in changes}):
            yield registry.reload_file(Path(path))
