"""What the first frame needs from the settings, read without validating them.

Validating settings means importing pydantic and building the settings models (~65 ms measured), and the
runtime does it again anyway while it is built after the first frame; a broken file is reported then, in
the app. Before that only a handful of display values are needed, read here from the raw JSON with the same
precedence (user file < project file < command line) and the defaults when a value is missing or odd.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from navtui.config.paths import project_dir, user_settings_path


@dataclass
class _UI:
    theme: str = "dark"
    mounted_entries: int = 100


@dataclass
class FirstFrameSettings:
    """Duck-types the few ``Settings`` fields the app reads before the runtime exists."""

    model: str | None = None
    approval: str = "ask"
    ui: _UI = field(default_factory=_UI)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def peek_settings(cwd: Path, overrides: dict[str, Any]) -> FirstFrameSettings:
    merged: dict[str, Any] = {}
    ui: dict[str, Any] = {}
    for data in (_read(user_settings_path()), _read(project_dir(cwd) / "settings.json"), overrides):
        for key in ("model", "approval"):
            if isinstance(data.get(key), str):
                merged[key] = data[key]
        if isinstance(data.get("ui"), dict):
            ui.update({k: v for k, v in data["ui"].items() if v is not None})
    settings = FirstFrameSettings(model=merged.get("model"), approval=merged.get("approval", "ask"))
    if isinstance(ui.get("theme"), str):
        settings.ui.theme = ui["theme"]
    if isinstance(ui.get("mounted_entries"), int) and ui["mounted_entries"] >= 10:
        settings.ui.mounted_entries = ui["mounted_entries"]
    return settings
