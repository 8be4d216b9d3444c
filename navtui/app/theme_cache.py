"""A copy of the last theme used, so the first frame does not wait for the theme loader.

Loading navtui's themes means importing their pydantic schema and validating every theme file (~50 ms);
the first frame only needs the one theme in use. Its resolved ``textual.theme.Theme`` is kept in
``~/.navtui/cache/theme.json``; at start-up the app applies it at once and loads the real themes after the
first frame (re-applying the theme if its file changed meanwhile).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from textual.theme import Theme

from navtui.config.paths import navtui_home

_FIELDS = {field.name for field in dataclasses.fields(Theme)}


def cache_path() -> Path:
    return navtui_home() / "cache" / "theme.json"


def load_cached_theme(name: str) -> Theme | None:
    """The cached theme if it is ``name`` (anything unreadable is simply a miss)."""
    try:
        data = json.loads(cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("name") != name or not set(data) <= _FIELDS:
        return None
    try:
        return Theme(**data)
    except (TypeError, ValueError):
        return None


def theme_data(theme: Theme) -> dict[str, Any]:
    return {name: getattr(theme, name) for name in _FIELDS}


def save_cached_theme(theme: Theme) -> None:
    """Remember ``theme`` for the next start (blocking: call it in a thread). Failures only cost speed."""
    from navtui.core.fs import atomic_write_text

    try:
        atomic_write_text(cache_path(), json.dumps(theme_data(theme)))
    except (OSError, TypeError, ValueError):
        pass
