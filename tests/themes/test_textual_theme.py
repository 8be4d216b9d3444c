"""The Textual side: every nav-* variable filled, base colours chosen, .tcss check, code colours."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pygments.token import Comment, Keyword, Name, String
from rich.console import Console
from rich.syntax import Syntax
from textual.color import Color

from navtui.themes.loader import builtin_themes, load_theme_file
from navtui.themes.palette import hex_to_rgb
from navtui.themes.syntax import NavHighlightTheme, rich_syntax_theme, syntax_theme
from navtui.themes.textual_theme import (
    NAV_VARIABLES,
    TOKEN_VARIABLES,
    VARIABLE_ALIASES,
    nav_variable_defaults,
    nav_variables,
    to_textual_theme,
    undefined_tcss_variables,
    variable_name,
)
from navtui.themes.tokens import REQUIRED_TOKENS
from tests.themes.conftest import FIXTURES, omp_theme_params


def test_variable_names() -> None:
    assert variable_name("toolSuccessBg") == "nav-tool-success-bg"
    assert variable_name("thinkingXhigh") == "nav-thinking-xhigh"
    assert variable_name("statusLineGitClean") == "nav-status-line-git-clean"
    assert VARIABLE_ALIASES["nav-status-model"] == "nav-status-line-model"
    assert VARIABLE_ALIASES["nav-diff-added"] == "nav-tool-diff-added"
    assert len(TOKEN_VARIABLES) == len(REQUIRED_TOKENS) == 66
    assert len(set(NAV_VARIABLES)) == len(NAV_VARIABLES)
    assert {"nav-syntax-keyword", "nav-status-model", "nav-diff-added", "nav-code-bg"} <= set(NAV_VARIABLES)


THEMES = [
    *(pytest.param(theme, id=f"builtin-{theme.name}") for theme in builtin_themes().values()),
    *omp_theme_params(load_theme_file),
]


@pytest.mark.parametrize("theme", THEMES)
def test_mapping_fills_every_nav_variable_with_a_colour(theme) -> None:
    textual = to_textual_theme(theme)
    assert set(NAV_VARIABLES) <= set(textual.variables)
    for name in NAV_VARIABLES:
        Color.parse(textual.variables[name])  # raises if Textual can't use it
    generated = textual.to_color_system().generate()
    assert generated["background"] == Color.parse(theme.background).hex
    assert textual.dark == theme.dark


def test_base_colours_come_from_the_closest_tokens() -> None:
    theme = builtin_themes()["tokyo-night"]
    textual = to_textual_theme(theme)
    assert textual.name == "tokyo-night"
    assert textual.primary == theme.colors["borderAccent"]
    assert textual.secondary == theme.colors["border"]
    assert (textual.accent, textual.success, textual.warning, textual.error) == tuple(
        theme.colors[t] for t in ("accent", "success", "warning", "error")
    )
    assert (textual.background, textual.surface, textual.panel) == tuple(
        theme.export[t] for t in ("pageBg", "cardBg", "infoBg")
    )
    assert textual.foreground == theme.colors["text"]
    assert textual.variables["nav-tool-success-bg"] == theme.colors["toolSuccessBg"]
    assert textual.variables["nav-status-model"] == textual.variables["nav-status-line-model"]
    assert textual.variables["nav-code-bg"] == theme.surface


def test_terminal_default_tokens_are_painted_with_the_theme_colours() -> None:
    theme = load_theme_file(FIXTURES / "terminal-default.json")  # text, userMessageText, toolTitle are ""
    values = nav_variables(theme)
    assert values["nav-text"] == values["nav-user-message-text"] == values["nav-tool-title"] == theme.foreground


def test_defaults_for_foreign_themes_cover_every_variable() -> None:
    assert set(nav_variable_defaults()) == set(NAV_VARIABLES)


def test_undefined_tcss_variables() -> None:
    tcss = """
    /* $in-a-comment is ignored */
    $local: $nav-accent;
    Screen { background: $background; color: $text-muted; }
    ToolCard.-ok { background: $nav-tool-success-bg; border-left: thick $nav-diff-added; }
    StatusLine { color: $nav-status-model; background: $local; }
    Weird { color: $nav-tool-sucess-bg; tint: $made-up 20%; }
    """
    assert undefined_tcss_variables(tcss) == {"nav-tool-sucess-bg", "made-up"}


def test_syntax_theme_uses_the_theme_colours() -> None:
    theme = builtin_themes()["gruvbox"]
    styles = syntax_theme(theme)
    assert styles[Keyword].color.triplet == hex_to_rgb(theme.colors["syntaxKeyword"])
    assert styles[String].color.triplet == hex_to_rgb(theme.colors["syntaxString"])
    assert styles[Comment].italic
    assert styles[Name.Function].color.triplet == hex_to_rgb(theme.colors["syntaxFunction"])
    assert all(style.bgcolor is None for style in styles.values())


def test_rich_syntax_renders_code_in_theme_colours() -> None:
    theme = builtin_themes()["dark"]
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=40)
    console.print(Syntax("def f():\n    return 'x'\n", "python", theme=rich_syntax_theme(theme)))
    output = console.file.getvalue()
    for token in ("syntaxKeyword", "syntaxString", "syntaxFunction"):
        red, green, blue = hex_to_rgb(theme.colors[token])
        assert f"38;2;{red};{green};{blue}m" in output


def test_textual_highlight_theme_names_only_defined_variables() -> None:
    used = {part[1:] for style in NavHighlightTheme.STYLES.values() for part in style.split() if part[0] == "$"}
    assert used and used <= set(NAV_VARIABLES)
    assert NavHighlightTheme.STYLES[Keyword] == "$nav-syntax-keyword"


def test_theme_owned_css_uses_only_defined_variables() -> None:
    from navtui.app.screens.theme_picker import ThemePickerScreen
    from tests.themes.preview_app import ThemePreviewApp

    assert undefined_tcss_variables(ThemePickerScreen.DEFAULT_CSS) == set()
    assert undefined_tcss_variables(ThemePreviewApp.CSS) == set()


STYLESHEETS = sorted((Path(__file__).parents[2] / "navtui" / "styles").glob("*.tcss"))


@pytest.mark.parametrize("path", STYLESHEETS, ids=lambda p: p.name)
def test_app_stylesheets_use_only_defined_variables(path: Path) -> None:
    assert undefined_tcss_variables(path.read_text()) == set()
