"""A broken theme file is mentioned once, in one line, unless it is the theme chosen (then in full)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from navtui.app.theming import AppThemes
from tests.themes.conftest import theme_json, write_theme


def start(cwd: Path, setting: str) -> list[str]:
    themes = AppThemes(App(), cwd, setting)
    themes.apply(themes.build())
    return themes.warnings


def broken(user_themes: Path) -> Path:
    data = theme_json("broken")
    data["colors"]["border"] = "#12345"
    data["colors"]["accent"] = "nowhere"
    del data["colors"]["mdHr"]
    return write_theme(user_themes / "broken.json", data)


def test_a_broken_file_is_reported_once_in_one_line(user_themes: Path, workspace: Path) -> None:
    path = broken(user_themes)
    assert start(workspace, "dark") == [
        f"{path} does not load (3 problems); `navtui themes validate {path}` lists them"
    ]
    assert start(workspace, "dark") == []  # the next start says nothing new
    path.write_text(path.read_text().replace("#12345", "#123456"))
    assert start(workspace, "dark") == [
        f"{path} does not load (2 problems); `navtui themes validate {path}` lists them"
    ]


def test_the_chosen_theme_broken_is_reported_in_full(user_themes: Path, workspace: Path) -> None:
    broken(user_themes)
    [warning] = start(workspace, "broken")
    assert warning.startswith('Theme "broken" could not be loaded; using "dark".')
    assert "colors.border" in warning and "colors.accent" in warning and "colors.mdHr: missing" in warning
