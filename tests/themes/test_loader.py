"""The registry: built-ins, user and project folders, precedence, and reloading one file."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.themes.loader import ThemeRegistry, builtin_themes
from navtui.themes.schema import ThemeError
from tests.themes.conftest import theme_json, write_theme


def test_user_themes_come_from_navtui_home(user_themes: Path) -> None:
    write_theme(user_themes / "mine.json", theme_json("mine"))
    registry = ThemeRegistry()
    assert "mine" in registry.names() and set(builtin_themes()) <= set(registry.names())
    mine = registry.get("mine")
    assert mine.source == "user" and mine.path == user_themes / "mine.json"
    assert registry.is_custom("mine") and not registry.is_custom("dark")


def test_a_user_file_overrides_the_builtin_of_its_name_with_a_note(user_themes: Path) -> None:
    write_theme(user_themes / "nord.json", theme_json("nord", accent="#f0d0a0"))
    registry = ThemeRegistry()
    nord = registry.get("nord")
    assert nord.source == "user" and nord.colors["accent"] == "#f0d0a0"
    assert registry.is_custom("nord") and registry.names().count("nord") == 1
    assert registry.warnings == [f'{user_themes / "nord.json"} replaces the built-in theme "nord"']
    assert builtin_themes()["nord"].colors["accent"] != "#f0d0a0"  # the built-in itself is untouched


def test_project_themes_win_over_user_themes(user_themes: Path, workspace: Path) -> None:
    (workspace / ".git").mkdir()
    write_theme(user_themes / "shared.json", theme_json("shared", accent="#a0c0f0"))
    write_theme(workspace / ".navtui" / "themes" / "shared.json", theme_json("shared", accent="#f0a0c0"))
    registry = ThemeRegistry(workspace)
    theme = registry.get("shared")
    assert theme.source == "project" and theme.colors["accent"] == "#f0a0c0"


def test_a_bad_file_is_recorded_not_raised(user_themes: Path) -> None:
    write_theme(user_themes / "good.json", theme_json("good"))
    write_theme(user_themes / "bad.json", "{ nope")
    registry = ThemeRegistry()
    assert "good" in registry.names()
    (error,) = registry.errors.values()
    assert "not valid JSON at line 1" in str(error)


def test_unknown_theme_lists_what_exists() -> None:
    with pytest.raises(ThemeError) as caught:
        ThemeRegistry().get("nope")
    assert str(caught.value).startswith('Theme not found: "nope" — available: dark, gruvbox, high-contrast, light')


def test_reload_file_statuses_keep_the_last_good_theme(user_themes: Path) -> None:
    registry = ThemeRegistry()
    path = user_themes / "live.json"

    write_theme(path, theme_json("live", accent="#111111"))
    added = registry.reload_file(path)
    assert added.status == "added" and added.ok and added.theme is not None
    assert added.theme.colors["accent"] == "#111111"

    write_theme(path, theme_json("live", accent="#222222"))
    updated = registry.reload_file(path)
    assert updated.status == "updated" and registry.get("live").colors["accent"] == "#222222"

    write_theme(path, '{"name": "live", "colors": ')
    invalid = registry.reload_file(path)
    assert invalid.status == "invalid" and not invalid.ok
    assert invalid.error is not None and "not valid JSON" in str(invalid.error)
    assert invalid.theme is not None and invalid.theme.colors["accent"] == "#222222"
    assert registry.get("live").colors["accent"] == "#222222"
    assert path in registry.errors

    path.unlink()
    deleted = registry.reload_file(path)
    assert deleted.status == "deleted" and deleted.theme is not None
    assert registry.get("live").colors["accent"] == "#222222"


def test_renaming_a_theme_inside_its_file(user_themes: Path) -> None:
    path = write_theme(user_themes / "a.json", theme_json("first"))
    registry = ThemeRegistry()
    write_theme(path, theme_json("second"))
    result = registry.reload_file(path)
    assert result.previous_name == "first"
    assert "second" in registry.names() and "first" not in registry.names()
