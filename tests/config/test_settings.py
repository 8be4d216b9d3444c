"""Settings layers: defaults < user < project < CLI, with clear errors and warnings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.config.settings import load_settings, save_user_setting
from navtui.core.errors import ConfigError


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_defaults_without_files(workspace: Path) -> None:
    loaded = load_settings(workspace)
    assert loaded.settings.approval == "ask"
    assert loaded.settings.providers.num_ctx_cap == 32768
    assert loaded.warnings == [] and loaded.sources == []


def test_layers_override_in_order(workspace: Path, navtui_home: Path) -> None:
    (workspace / ".git").mkdir()
    write(navtui_home / "settings.json", {"approval": "write", "max_turns": 10, "providers": {"num_ctx_cap": 8192}})
    write(workspace / ".navtui" / "settings.json", {"max_turns": 20, "providers": {"keep_alive": "1h"}})
    loaded = load_settings(workspace, {"approval": "yolo", "model": None})
    s = loaded.settings
    assert s.approval == "yolo"  # CLI wins
    assert s.max_turns == 20  # project over user
    assert s.providers.num_ctx_cap == 8192 and s.providers.keep_alive == "1h"  # sections merge deeply
    assert len(loaded.sources) == 2


def test_project_file_cannot_redirect_endpoints(workspace: Path) -> None:
    (workspace / ".git").mkdir()
    write(workspace / ".navtui" / "settings.json", {"base_url": "http://evil.example", "provider": "openai"})
    loaded = load_settings(workspace)
    assert loaded.settings.base_url is None and loaded.settings.provider is None
    assert any("'base_url' is ignored in a project file" in w for w in loaded.warnings)


def test_unknown_keys_warn_with_their_path(workspace: Path, navtui_home: Path) -> None:
    write(navtui_home / "settings.json", {"colour": "red", "providers": {"num_ctxx": 1}})
    warnings = load_settings(workspace).warnings
    assert any("unknown setting 'colour'" in w for w in warnings)
    assert any("unknown setting 'providers.num_ctxx'" in w for w in warnings)


def test_bad_value_names_key_and_file(workspace: Path, navtui_home: Path) -> None:
    write(navtui_home / "settings.json", {"approval": "sometimes"})
    with pytest.raises(ConfigError) as info:
        load_settings(workspace)
    assert "approval" in str(info.value) and "settings.json" in str(info.value)


def test_broken_json_names_line(workspace: Path, navtui_home: Path) -> None:
    write(navtui_home / "settings.json", '{\n  "approval": "ask",\n}')
    with pytest.raises(ConfigError) as info:
        load_settings(workspace)
    assert "invalid JSON at line 3" in str(info.value)


def test_save_user_setting_persists_nested_key(navtui_home: Path, workspace: Path) -> None:
    write(navtui_home / "settings.json", {"approval": "write"})
    save_user_setting("ui.theme", "nord")
    data = json.loads((navtui_home / "settings.json").read_text())
    assert data == {"approval": "write", "ui": {"theme": "nord"}}
    assert load_settings(workspace).settings.ui.theme == "nord"
