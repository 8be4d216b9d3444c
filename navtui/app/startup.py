"""What the first frame needs from the settings, read without validating them.

Validating settings means importing pydantic and building the settings models (~65 ms measured), and the
runtime does it again anyway while it is built after the first frame; a broken file is reported then, in
the app. Before that only a handful of display values are needed, read here from the raw JSON with the same
precedence (user file < project file < command line) and the defaults when a value is missing or odd. The
project file follows the same rules as in ``load_settings`` (``config.project_rules``: it may only tighten).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from navtui.config.paths import project_dir, user_settings_path
from navtui.config.project_rules import PROJECT_RULES, Free, Stricter, stricter_value
from navtui.config.repo_files import read_regular

MAX_JSON_BYTES = 16 * 1024 * 1024  # as config/settings.py, which this module does not import (pydantic)


@dataclass
class _UI:
    theme: str = "dark"
    mounted_entries: int = 30
    local_echo: bool = True


@dataclass
class FirstFrameSettings:
    """Duck-types the few ``Settings`` fields the app reads before the runtime exists."""

    model: str | None = None
    approval: str = "ask"
    ui: _UI = field(default_factory=_UI)


def _read(path: Path) -> dict[str, Any]:
    try:  # a regular file only: a named pipe in its place must not keep the first frame waiting
        data = json.loads(read_regular(path, MAX_JSON_BYTES, inside=None)[0].decode("utf-8"))
    except (OSError, ValueError, RecursionError):  # RecursionError: `[[[[...` nested deeper than the stack
        return {}
    return data if isinstance(data, dict) else {}


def peek_settings(cwd: Path, overrides: dict[str, Any]) -> FirstFrameSettings:
    merged: dict[str, Any] = {"approval": "ask"}
    ui: dict[str, Any] = {}
    layers = (
        (_read(user_settings_path()), False),
        (_read(project_dir(cwd) / "settings.json"), True),
        (overrides, False),
    )
    for data, is_project in layers:
        for key in ("model", "approval"):
            value = data.get(key)
            if not isinstance(value, str):
                continue
            rule = PROJECT_RULES[key]
            if (
                not is_project
                or isinstance(rule, Free)
                or (isinstance(rule, Stricter) and stricter_value(rule, merged.get(key), value))
            ):
                merged[key] = value
        if isinstance(data.get("ui"), dict):
            ui.update({k: v for k, v in data["ui"].items() if v is not None})
    settings = FirstFrameSettings(model=merged.get("model"), approval=merged.get("approval", "ask"))
    if isinstance(ui.get("theme"), str):
        settings.ui.theme = ui["theme"]
    if isinstance(ui.get("mounted_entries"), int) and ui["mounted_entries"] >= 10:
        settings.ui.mounted_entries = ui["mounted_entries"]
    if isinstance(ui.get("local_echo"), bool):
        settings.ui.local_echo = ui["local_echo"]
    return settings


def peek_session_tail(cwd: Path, resume: str | None, continue_session: bool, rows: int) -> list[Any]:
    """The transcript items at the end of the session being resumed, read from the file's tail.

    The runtime parses the whole file after the first frame; until then a resumed session shows its last
    entries (``SessionManager.read_tail``: milliseconds, however long the file) instead of a welcome card.
    A screen of ``rows`` lines shows at most ``rows // 2`` of them (an entry takes a line and its margin at
    least): no more are read and rendered (30 Markdown answers cost the first frame ~60 ms).
    Nothing when no session is resumed or it cannot be found (the runtime then says why).
    """
    if not resume and not continue_session:
        return []
    from navtui.app.session_view import transcript_items
    from navtui.core.errors import NavtuiError
    from navtui.session.listing import resolve_session, session_files
    from navtui.session.manager import SessionManager

    try:
        if resume:
            path = resolve_session(cwd, resume)
        else:
            files = session_files(cwd.resolve())
            if not files:
                return []
            path = files[0]
        tail = SessionManager.read_tail(path, max(10, rows // 2))
    except (NavtuiError, OSError, ValueError):
        return []
    return transcript_items(tail.leaf_path)
