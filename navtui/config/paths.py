"""Where navtui keeps its files. ``NAVTUI_HOME`` relocates ``~/.navtui``."""

from __future__ import annotations

import os
from pathlib import Path

from navtui.core.walk import find_repo_root

__all__ = [
    "exports_dir",
    "find_repo_root",
    "history_path",
    "navtui_home",
    "project_dir",
    "sessions_dir",
    "user_settings_path",
    "user_themes_dir",
]


def navtui_home() -> Path:
    env = os.environ.get("NAVTUI_HOME")
    return Path(env).expanduser() if env else Path.home() / ".navtui"


def user_settings_path() -> Path:
    return navtui_home() / "settings.json"


def sessions_dir() -> Path:
    return navtui_home() / "sessions"


def user_themes_dir() -> Path:
    return navtui_home() / "themes"


def exports_dir() -> Path:
    """Where ``/export`` and ``navtui export`` write when no path is given (never the repository unasked)."""
    return navtui_home() / "exports"


def history_path() -> Path:
    return navtui_home() / "prompt-history.jsonl"


def project_dir(cwd: Path) -> Path:
    """``<repo>/.navtui`` (or ``<cwd>/.navtui`` outside a repository)."""
    return (find_repo_root(cwd) or cwd) / ".navtui"
