"""Theme test helpers: valid theme JSON to start from, and writing it to real files."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from navtui.themes.loader import BUILTIN_DIR

OMP_THEMES_DIR = Path("/work/shared/reference/omp-themes")


def builtin_json(name: str = "dark") -> dict[str, Any]:
    return json.loads((BUILTIN_DIR / f"{name}.json").read_text())


def theme_json(name: str, accent: str = "#ff8800", base: str = "dark") -> dict[str, Any]:
    """A valid theme: a built-in's JSON under another name, with its accent var replaced."""
    data = copy.deepcopy(builtin_json(base))
    data["name"] = name
    data["vars"]["accent"] = accent
    return data


def write_theme(path: Path, data: dict[str, Any] | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
    return path


@pytest.fixture
def user_themes(navtui_home: Path) -> Path:
    directory = navtui_home / "themes"
    directory.mkdir(exist_ok=True)
    return directory
