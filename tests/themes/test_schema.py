"""The theme format: what loads, how references resolve, and the exact words of each error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from navtui.themes.loader import load_theme_file
from navtui.themes.resolve import build_theme
from navtui.themes.schema import ThemeError
from navtui.themes.tokens import REQUIRED_TOKENS
from tests.themes.conftest import FIXTURES, omp_theme_params, theme_json, write_theme


def issues_of(data: Any) -> list[str]:
    with pytest.raises(ThemeError) as caught:
        build_theme(data, label="t.json")
    assert str(caught.value).startswith("t.json: not a valid theme")
    return caught.value.issues


def test_there_are_66_required_tokens_as_in_omp() -> None:
    assert len(REQUIRED_TOKENS) == 66
    assert len(set(REQUIRED_TOKENS)) == 66


@pytest.mark.parametrize("path", omp_theme_params())
def test_omp_theme_files_load_as_they_are(path: Path) -> None:
    raw = json.loads(path.read_text())
    theme = load_theme_file(path)
    assert theme.name == raw["name"]
    assert set(REQUIRED_TOKENS) <= set(theme.colors)
    # Extra omp tokens ("toolText", "link") are kept, not rejected.
    for extra in set(raw["colors"]) - set(REQUIRED_TOKENS):
        assert extra in theme.colors
    assert all(value == "" or value.startswith("#") for value in theme.colors.values())


def test_omp_format_references_numbers_and_terminal_default_resolve() -> None:
    theme = load_theme_file(FIXTURES / "terminal-default.json")  # written from omp's documented format
    assert theme.colors["border"] == "#3a9bdc"  # "sky" var
    assert theme.colors["borderAccent"] == "#4fc1ff"  # hex lower-cased
    assert theme.colors["statusLineSep"] == "#808080"  # xterm 244
    assert theme.colors["statusLineStaged"] == "#5faf00"  # xterm 70
    assert theme.colors["text"] == ""  # terminal default
    assert theme.export == {"pageBg": "#14161b", "cardBg": "#1a1d23", "infoBg": "#22262e"}  # vars resolve here too
    assert theme.background == "#14161b" and theme.dark
    # "" text is painted with a readable colour for the page, not left to the terminal.
    assert theme.color("text") == theme.foreground and theme.foreground.startswith("#")


def test_nested_variables_resolve_through_several_steps() -> None:
    data = theme_json("nested")
    data["vars"].update({"base": "#123456", "middle": "base", "top": "middle", "indexed": 21})
    data["colors"]["accent"] = "top"
    data["colors"]["border"] = "indexed"
    theme = build_theme(data, label="t.json")
    assert theme.colors["accent"] == "#123456"
    assert theme.colors["border"] == "#0000ff"


def test_missing_token_names_the_path_and_a_fix() -> None:
    data = theme_json("x")
    del data["colors"]["toolSuccessBg"]
    assert issues_of(data) == ['colors.toolSuccessBg: missing — add a colour like "#1e3a2a"']


def test_missing_token_points_at_a_misspelt_key() -> None:
    data = theme_json("x")
    data["colors"]["sucess"] = data["colors"].pop("success")
    assert issues_of(data) == [
        'colors.success: missing — add a colour like "#9ece6a" (is "sucess" a misspelling of it?)'
    ]


def test_many_missing_tokens_make_one_line() -> None:
    (issue,) = issues_of({"name": "x", "colors": {}})
    assert issue.startswith("colors: 66 tokens missing (accent, border, borderAccent")
    assert "statusLineSubagents" in issue and "add a colour for each" in issue


def test_circular_reference_shows_the_cycle_once() -> None:
    data = theme_json("x")
    data["vars"].update({"base": "accent2", "accent2": "base"})
    data["colors"]["accent"] = "base"
    assert issues_of(data) == [
        'vars.base: circular reference base -> accent2 -> base — make one of them a colour like "#c0caf5"'
    ]


def test_a_variable_that_names_itself_is_circular() -> None:
    data = theme_json("x")
    data["vars"]["loop"] = "loop"
    assert issues_of(data) == ['vars.loop: circular reference loop -> loop — make one of them a colour like "#c0caf5"']


def test_unknown_variable_suggests_the_close_name() -> None:
    data = theme_json("x")
    data["colors"]["accent"] = "acent"
    assert issues_of(data) == [
        'colors.accent: unknown variable "acent" — define it in "vars" or use a colour like "#c0caf5" '
        '(did you mean "accent"?)'
    ]


def test_unknown_variable_inside_vars_is_reported_at_the_variable() -> None:
    data = theme_json("x")
    data["vars"]["accent"] = "nowhere"
    assert issues_of(data) == [
        'vars.accent: unknown variable "nowhere" — define it in "vars" or use a colour like "#c0caf5"'
    ]


def test_referencing_a_colour_token_explains_that_only_vars_can_be_referenced() -> None:
    data = theme_json("x")
    data["colors"]["mdLink"] = "borderAccent"
    (issue,) = issues_of(data)
    assert issue.startswith('colors.mdLink: unknown variable "borderAccent" — "borderAccent" is a colour token')
    assert 'add "borderAccent" to "vars"' in issue


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            "#12345",
            'colors.border: "#12345" is not a hex colour — write #RRGGBB (e.g. "#1e3a2a"), #RGB, #RGBA or #RRGGBBAA',
        ),
        (
            "#gggggg",
            'colors.border: "#gggggg" is not a hex colour — write #RRGGBB (e.g. "#1e3a2a"), #RGB, #RGBA or #RRGGBBAA',
        ),
        (
            "$accent",
            'colors.border: "$accent": "$name" references are for "export" only (as in omp) — write "accent" here',
        ),
        (256, 'colors.border: 256 is out of range — use a number 0-255 (xterm palette) or "#RRGGBB"'),
        (-1, 'colors.border: -1 is out of range — use a number 0-255 (xterm palette) or "#RRGGBB"'),
        (
            True,
            'colors.border: True is not a colour — use "#RRGGBB" (or #RGB, #RGBA, #RRGGBBAA), a number 0-255 '
            '(xterm palette), a name from "vars", or "" for the terminal default',
        ),
        (
            1.5,
            'colors.border: 1.5 is not a colour — use "#RRGGBB" (or #RGB, #RGBA, #RRGGBBAA), a number 0-255 '
            '(xterm palette), a name from "vars", or "" for the terminal default',
        ),
        (
            "rgb(1, 2, 3)",
            'colors.border: "rgb(1, 2, 3)" is neither a colour nor a variable name — use "#RRGGBB" (or #RGB, '
            '#RGBA, #RRGGBBAA), a number 0-255 (xterm palette), a name from "vars", or "" for the terminal default',
        ),
    ],
)
def test_bad_colour_values(value: object, expected: str) -> None:
    data = theme_json("x")
    data["colors"]["border"] = value
    assert issues_of(data) == [expected]


def test_bad_variable_value_is_reported_at_the_variable_only() -> None:
    data = theme_json("x")
    data["vars"]["accent"] = "#fffff"
    assert issues_of(data) == [
        'vars.accent: "#fffff" is not a hex colour — write #RRGGBB (e.g. "#1e3a2a"), #RGB, #RGBA or #RRGGBBAA'
    ]


def test_name_problems() -> None:
    data = theme_json("x")
    del data["name"]
    assert issues_of(data) == ['name: missing — add "name": "my-theme"']
    data["name"] = "my theme"
    assert issues_of(data) == ['name: "my theme" — use letters, digits, "-", "_" or "." (e.g. "my-theme")']


def test_shape_problems() -> None:
    assert issues_of([]) == [
        '(file): must be a JSON object with "name" and "colors" (and optionally "vars", "export", "symbols")'
    ]
    assert issues_of({"name": "x"}) == [
        'colors: missing — add a "colors" object with all 66 tokens (see docs/themes.md)'
    ]
    assert issues_of({"name": "x", "colors": [1]}) == ["colors: must be a JSON object, got [1]"]


def test_symbols_and_export_are_checked() -> None:
    data = theme_json("x")
    data["symbols"] = {"preset": "emoji", "spinnerFrames": [1, 2]}
    data["export"]["cardBg"] = "#zzzzzz"
    assert issues_of(data) == [
        'export.cardBg: "#zzzzzz" is not a hex colour — write #RRGGBB (e.g. "#1e3a2a"), #RGB, #RGBA or #RRGGBBAA',
        "symbols.preset: \"emoji\" — use one of 'unicode', 'nerd' or 'ascii'",
        'symbols.spinnerFrames: must be a list of strings or {"status": [...], "activity": [...]}',
    ]


def test_valid_symbols_are_kept() -> None:
    data = theme_json("x")
    data["symbols"] = {"preset": "ascii", "overrides": {"check": "+"}, "spinnerFrames": {"status": ["-", "|"]}}
    theme = build_theme(data, label="t.json")
    assert theme.symbols is not None and theme.symbols.preset == "ascii"
    assert theme.symbols.spinnerFrames == {"status": ["-", "|"]}


def test_every_problem_is_listed_in_one_error() -> None:
    data = theme_json("x")
    data["colors"]["border"] = "#12"
    data["colors"]["accent"] = "missingVar"
    del data["colors"]["dim"]
    issues = issues_of(data)
    assert [issue.split(":")[0] for issue in issues] == ["colors.border", "colors.dim", "colors.accent"]


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = write_theme(tmp_path / "broken.json", '{\n  "name": "x",\n  "colors": {,}\n}')
    with pytest.raises(ThemeError) as caught:
        load_theme_file(path)
    assert caught.value.issues == [
        "(file): not valid JSON at line 3, column 14: Expecting property name enclosed in double quotes — fix the syntax"
    ]
    assert str(caught.value).startswith(f"{path}: not a valid theme (1 problem)")


def test_missing_file_is_a_theme_error(tmp_path: Path) -> None:
    with pytest.raises(ThemeError, match="no such theme file"):
        load_theme_file(tmp_path / "nope.json")
