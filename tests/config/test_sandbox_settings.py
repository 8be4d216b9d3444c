"""The sandbox section: a user-level choice that a repository's own settings may only tighten."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.config.settings import load_settings
from navtui.core.errors import ConfigError


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / ".git").mkdir()
    return workspace / ".navtui" / "settings.json"


def test_defaults_are_workspace_write_without_network(workspace: Path) -> None:
    sandbox = load_settings(workspace).settings.sandbox
    assert (sandbox.mode, sandbox.network, sandbox.writable_roots) == ("workspace-write", False, [])


def test_a_project_may_tighten_the_mode_and_the_network(workspace: Path, navtui_home: Path, project: Path) -> None:
    write(navtui_home / "settings.json", {"sandbox": {"mode": "off", "network": True}})
    write(project, {"sandbox": {"mode": "read-only", "network": False}})
    loaded = load_settings(workspace)
    assert loaded.settings.sandbox.mode == "read-only" and loaded.settings.sandbox.network is False
    assert loaded.warnings == []


@pytest.mark.parametrize(
    ("user", "project_value", "key"),
    [
        ({}, {"mode": "off"}, "sandbox.mode"),
        ({"sandbox": {"mode": "read-only"}}, {"mode": "workspace-write"}, "sandbox.mode"),
        ({}, {"network": True}, "sandbox.network"),
        ({}, {"writable_roots": ["~"]}, "sandbox.writable_roots"),
    ],
)
def test_a_project_cannot_loosen_it(
    workspace: Path, navtui_home: Path, project: Path, user: dict, project_value: dict, key: str
) -> None:
    write(navtui_home / "settings.json", user)
    write(project, {"sandbox": project_value, "max_turns": 7})
    loaded = load_settings(workspace)
    expected = {"mode": user.get("sandbox", {}).get("mode", "workspace-write"), "network": False, "writable_roots": []}
    assert loaded.settings.sandbox.model_dump() == expected
    assert loaded.settings.max_turns == 7  # the rest of the project file still applies
    [warning] = loaded.warnings
    assert f"'{key}" in warning and "is ignored in a project file" in warning and str(project) in warning


def test_the_command_line_is_the_user_and_may_loosen(workspace: Path, project: Path) -> None:
    write(project, {"sandbox": {"mode": "read-only"}})
    assert load_settings(workspace, {"sandbox": {"mode": "off"}}).settings.sandbox.mode == "off"


def test_a_bad_mode_names_the_key_and_the_file(workspace: Path, navtui_home: Path) -> None:
    write(navtui_home / "settings.json", {"sandbox": {"mode": "strict"}})
    with pytest.raises(ConfigError, match=r"settings.json: sandbox.mode"):
        load_settings(workspace)
