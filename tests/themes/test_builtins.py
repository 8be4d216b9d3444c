"""The shipped themes: all valid, complete, readable, and what the picker and auto mode expect."""

from __future__ import annotations

import json

import pytest

from navtui.themes.contrast import MAIN_MINIMUM, MAIN_PAIRS, contrast_issues
from navtui.themes.loader import BUILTIN_DIR, builtin_themes, load_theme_file
from navtui.themes.palette import HEX_RE, contrast_ratio
from navtui.themes.tokens import REQUIRED_TOKENS

BUILTIN_FILES = sorted(BUILTIN_DIR.glob("*.json"))


def test_the_promised_themes_ship() -> None:
    assert {"dark", "light", "nord", "solarized-dark", "high-contrast", "tokyo-night"} <= set(builtin_themes())
    assert len(builtin_themes()) >= 6


@pytest.mark.parametrize("path", BUILTIN_FILES, ids=lambda p: p.stem)
def test_builtin_validates_and_is_named_after_its_file(path) -> None:
    theme = load_theme_file(path)
    assert theme.name == path.stem
    assert json.loads(path.read_text())["name"] == path.stem


@pytest.mark.parametrize("name", sorted(builtin_themes()))
def test_builtin_sets_every_colour_explicitly(name: str) -> None:
    # Built-ins never leave a token to the terminal: they must look the same everywhere.
    theme = builtin_themes()[name]
    assert set(theme.colors) == set(REQUIRED_TOKENS)
    assert all(HEX_RE.match(value) for value in theme.colors.values())
    assert set(theme.export) == {"pageBg", "cardBg", "infoBg"}


@pytest.mark.parametrize("name", sorted(builtin_themes()))
def test_builtin_is_readable(name: str) -> None:
    theme = builtin_themes()[name]
    assert contrast_ratio(theme.foreground, theme.background) >= 4.5
    assert [str(issue) for issue in contrast_issues(theme)] == []


def test_contrast_check_catches_an_unreadable_pair() -> None:
    theme = builtin_themes()["dark"]
    unreadable = type(theme)(
        name="grey", colors={**theme.colors, "toolOutput": "#3a3f4a"}, export=theme.export, source="file"
    )
    issues = contrast_issues(unreadable)
    assert {(issue.foreground, issue.background) for issue in issues} == {
        ("toolOutput", "toolPendingBg"),
        ("toolOutput", "toolSuccessBg"),
        ("toolOutput", "toolErrorBg"),
    }
    assert all(issue.ratio < MAIN_MINIMUM for issue in issues)


def test_main_pairs_cover_the_text_the_ui_draws() -> None:
    foregrounds = {foreground for foreground, _ in MAIN_PAIRS}
    assert {"text", "toolOutput", "toolTitle", "toolDiffAdded", "toolDiffRemoved", "syntaxKeyword"} <= foregrounds
    assert {
        token
        for token in REQUIRED_TOKENS
        if token.startswith("statusLine") and token not in ("statusLineBg", "statusLineSep")
    } <= foregrounds


def test_light_themes_are_light_and_the_rest_dark() -> None:
    tones = {name: theme.dark for name, theme in builtin_themes().items()}
    assert not tones["light"] and not tones["solarized-light"]
    assert all(dark for name, dark in tones.items() if name not in ("light", "solarized-light"))
