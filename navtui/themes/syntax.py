"""Code colours from the theme: a Rich/Pygments style map, and a Textual highlight theme over ``$nav-syntax-*``."""

from __future__ import annotations

from pygments.token import (
    Comment,
    Error,
    Generic,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Token,
    Whitespace,
    _TokenType,
)
from rich.style import Style
from rich.syntax import ANSISyntaxTheme, SyntaxTheme
from textual.highlight import HighlightTheme

from navtui.themes.model import NavTheme
from navtui.themes.textual_theme import variable_name

# Pygments token -> (theme token, extra style). Lookups walk up the token hierarchy, so parents cover children.
_TOKEN_COLOURS: dict[_TokenType, tuple[str, str]] = {
    Token: ("text", ""),
    Text: ("text", ""),
    Whitespace: ("text", ""),
    Error: ("error", ""),
    Comment: ("syntaxComment", "italic"),
    Comment.Preproc: ("syntaxKeyword", ""),
    Keyword: ("syntaxKeyword", ""),
    Keyword.Constant: ("syntaxNumber", ""),
    Keyword.Type: ("syntaxType", ""),
    Name: ("syntaxVariable", ""),
    Name.Attribute: ("syntaxVariable", ""),
    Name.Builtin: ("syntaxFunction", ""),
    Name.Builtin.Pseudo: ("syntaxKeyword", "italic"),
    Name.Class: ("syntaxType", "bold"),
    Name.Constant: ("syntaxNumber", ""),
    Name.Decorator: ("syntaxFunction", "bold"),
    Name.Exception: ("syntaxType", ""),
    Name.Function: ("syntaxFunction", ""),
    Name.Namespace: ("syntaxType", ""),
    Name.Tag: ("syntaxKeyword", ""),
    String: ("syntaxString", ""),
    String.Doc: ("syntaxComment", "italic"),
    String.Escape: ("syntaxOperator", ""),
    String.Interpol: ("syntaxOperator", ""),
    Number: ("syntaxNumber", ""),
    Operator: ("syntaxOperator", ""),
    Operator.Word: ("syntaxKeyword", ""),
    Punctuation: ("syntaxPunctuation", ""),
    Generic.Deleted: ("toolDiffRemoved", ""),
    Generic.Inserted: ("toolDiffAdded", ""),
    Generic.Heading: ("mdHeading", "bold"),
    Generic.Subheading: ("mdHeading", ""),
    Generic.Emph: ("text", "italic"),
    Generic.Strong: ("text", "bold"),
    Generic.Error: ("error", ""),
}


def syntax_theme(theme: NavTheme) -> dict[tuple[str, ...], Style]:
    """Pygments token -> Rich ``Style`` with the theme's colours (no backgrounds: the code block paints its own)."""
    return {
        token_type: Style.parse(f"{extra} {theme.color(token)}".strip())
        for token_type, (token, extra) in _TOKEN_COLOURS.items()
    }


def rich_syntax_theme(theme: NavTheme) -> SyntaxTheme:
    """A theme object for ``rich.syntax.Syntax(code, lexer, theme=...)``."""
    return ANSISyntaxTheme(syntax_theme(theme))


class NavHighlightTheme(HighlightTheme):
    """For ``textual.highlight.highlight(code, theme=NavHighlightTheme)``: styles name ``$nav-*`` variables,
    so highlighted code follows the active theme (also after a hot reload) without re-highlighting."""

    STYLES = {
        token_type: " ".join(part for part in (extra, f"${variable_name(token)}") if part)
        for token_type, (token, extra) in _TOKEN_COLOURS.items()
        if token != "text"
    }
