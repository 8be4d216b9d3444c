"""Render one Markdown block to Textual strips with Rich, coloured from the theme's ``nav-*`` variables.

Rich's Markdown is used for the heavy lifting (markdown-it parsing, Pygments highlighting); headings are
left-aligned and code colours come from the theme instead of a Pygments style. Imports of markdown-it and
Pygments happen on first use so the first frame never pays for them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.style import Style

if TYPE_CHECKING:
    from rich.console import Console
    from rich.syntax import SyntaxTheme
    from rich.theme import Theme as RichTheme

# theme variable -> rich style names it colours (bold/italic etc. are added below)
_STYLE_VARS: dict[str, tuple[str, ...]] = {
    "nav-md-heading": ("markdown.h1", "markdown.h2", "markdown.h3", "markdown.h4", "markdown.h5", "markdown.h6"),
    "nav-md-link": ("markdown.link",),
    "nav-md-link-url": ("markdown.link_url",),
    "nav-md-code": ("markdown.code",),
    "nav-md-quote": ("markdown.block_quote",),
    "nav-md-quote-border": ("markdown.block_quote.border",),
    "nav-md-hr": ("markdown.hr",),
    "nav-md-list-bullet": ("markdown.item.bullet", "markdown.item.number"),
}
_EXTRA = {
    "markdown.h1": "bold underline",
    "markdown.h2": "bold",
    "markdown.h3": "bold",
    "markdown.h4": "bold italic",
    "markdown.h5": "italic",
    "markdown.h6": "italic",
    "markdown.block_quote": "italic",
    "markdown.link_url": "underline",
    "markdown.code": "",
}
SYNTAX_VARS = (
    "nav-syntax-comment",
    "nav-syntax-keyword",
    "nav-syntax-function",
    "nav-syntax-variable",
    "nav-syntax-string",
    "nav-syntax-number",
    "nav-syntax-type",
    "nav-syntax-operator",
    "nav-syntax-punctuation",
    "nav-md-code-block",
    "nav-code-bg",
    "nav-tool-diff-added",
    "nav-tool-diff-removed",
)


def rich_color(value: str | None) -> Any:
    """A theme variable value ('#rrggbb', 'ansi_red', 'rgba(..)') as a Rich colour, or None."""
    if not value:
        return None
    from textual.color import Color

    try:
        return Color.parse(value).rich_color
    except Exception:  # a bad theme value must not break rendering; the theme loader reports it
        return None


class MarkdownPalette:
    """The Rich theme and syntax theme for one set of theme variables."""

    def __init__(self, variables: dict[str, str]) -> None:
        self.rich_theme = _rich_theme(variables)
        self.syntax_theme = _syntax_theme(variables)


def _rich_theme(variables: dict[str, str]) -> RichTheme:
    from rich.theme import Theme as RichTheme

    styles: dict[str, Style] = {}
    for var, names in _STYLE_VARS.items():
        color = rich_color(variables.get(var))
        for name in names:
            styles[name] = Style(color=color) + Style.parse(_EXTRA.get(name, "") or "none")
    styles["markdown.code"] = Style(color=rich_color(variables.get("nav-md-code")), bold=False)
    border = rich_color(variables.get("nav-md-code-block-border"))
    styles["markdown.table.border"] = Style(color=border)
    styles["markdown.table.header"] = Style(bold=True, color=rich_color(variables.get("nav-md-heading")))
    return RichTheme(styles, inherit=True)


def _syntax_theme(variables: dict[str, str]) -> SyntaxTheme:
    from pygments.token import (
        Comment,
        Generic,
        Keyword,
        Name,
        Number,
        Operator,
        Punctuation,
        String,
        Token,
    )

    def style(var: str, **extra: Any) -> Style:
        return Style(color=rich_color(variables.get(var)), **extra)

    mapping = {
        Token: style("nav-md-code-block"),
        Comment: style("nav-syntax-comment", italic=True),
        Keyword: style("nav-syntax-keyword"),
        Keyword.Type: style("nav-syntax-type"),
        Name.Class: style("nav-syntax-type"),
        Name.Builtin: style("nav-syntax-type"),
        Name.Function: style("nav-syntax-function"),
        Name.Decorator: style("nav-syntax-function"),
        Name.Variable: style("nav-syntax-variable"),
        Name.Tag: style("nav-syntax-keyword"),
        Name.Attribute: style("nav-syntax-variable"),
        String: style("nav-syntax-string"),
        Number: style("nav-syntax-number"),
        Operator: style("nav-syntax-operator"),
        Punctuation: style("nav-syntax-punctuation"),
        Generic.Inserted: style("nav-tool-diff-added"),
        Generic.Deleted: style("nav-tool-diff-removed"),
        Generic.Heading: style("nav-syntax-keyword", bold=True),
        Generic.Subheading: style("nav-syntax-function"),
    }
    return _syntax_theme_class()(mapping, Style(bgcolor=rich_color(variables.get("nav-code-bg"))))


@lru_cache(maxsize=8)
def _palette(key: tuple[tuple[str, str], ...]) -> MarkdownPalette:
    return MarkdownPalette(dict(key))


def palette_for(variables: dict[str, str]) -> MarkdownPalette:
    """The palette for the current theme variables (cached, so a theme switch builds one once)."""
    names = (*_STYLE_VARS, "nav-md-code-block-border", *SYNTAX_VARS)
    return _palette(tuple((name, variables.get(name, "")) for name in names))


@lru_cache(maxsize=1)
def _syntax_theme_class() -> type:
    from rich.syntax import SyntaxTheme

    class NavSyntaxTheme(SyntaxTheme):
        """Pygments token colours from theme variables (a token takes its nearest mapped parent's style)."""

        def __init__(self, mapping: dict[Any, Style], background: Style) -> None:
            self._mapping = mapping
            self._background = background
            self._cache: dict[Any, Style] = {}

        def get_style_for_token(self, token_type: Any) -> Style:
            cached = self._cache.get(token_type)
            if cached is None:
                probe = token_type
                while probe is not None and probe not in self._mapping:
                    probe = probe.parent
                cached = self._mapping[probe] if probe is not None else Style()
                self._cache[token_type] = cached
            return cached

        def get_background_style(self) -> Style:
            return self._background

    return NavSyntaxTheme


@lru_cache(maxsize=1)
def _markdown_class() -> type:
    """Rich's Markdown with left-aligned headings (Rich centres h1/h2, which reads oddly in a transcript)."""
    from rich import box
    from rich.markdown import BlockQuote, Heading, ListItem, Markdown, TableElement
    from rich.segment import Segment
    from rich.table import Table

    class LeftHeading(Heading):
        def __rich_console__(self, console: Any, options: Any) -> Any:
            text = self.text.copy()
            text.justify = "left"
            yield text

    class DottedItem(ListItem):
        """Numbered items as ``1.`` (Rich prints a bare ``1``)."""

        def render_number(self, console: Any, options: Any, number: int, last_number: int) -> Any:
            width = len(str(last_number)) + 3
            lines = console.render_lines(
                self.elements, options.update(width=options.max_width - width), style=self.style
            )
            style = console.get_style("markdown.item.number", default="none")
            numeral = Segment(f"{number}.".rjust(width - 1) + " ", style)
            padding = Segment(" " * width, style)
            for index, line in enumerate(lines):
                yield numeral if index == 0 else padding
                yield from line
                yield Segment("\n")

    class BarredQuote(BlockQuote):
        """A quote whose bar is drawn in its own colour (omp's ``mdQuoteBorder``), not the quote text's."""

        def __rich_console__(self, console: Any, options: Any) -> Any:
            lines = console.render_lines(self.elements, options.update(width=options.max_width - 4), style=self.style)
            bar = Segment("▌ ", console.get_style("markdown.block_quote.border", default="none"))
            for line in lines:
                yield bar
                yield from line
                yield Segment("\n")

    class BoxedTable(TableElement):
        """Tables with a light rounded frame instead of Rich's blank edge rows."""

        def __rich_console__(self, console: Any, options: Any) -> Any:
            table = Table(box=box.ROUNDED, border_style="markdown.table.border", show_edge=True, expand=False)
            if self.header is not None and self.header.row is not None:
                for column in self.header.row.cells:
                    heading = column.content.copy()
                    heading.stylize("markdown.table.header")
                    table.add_column(heading)
            if self.body is not None:
                for row in self.body.rows:
                    table.add_row(*[element.content for element in row.cells])
            yield table

    from navtui.widgets.markdown.blocks import parser

    class NavMarkdown(Markdown):
        """Shares one markdown-it parser (building one costs more than parsing a small block); ``references``
        are the document's link definitions, so a block cut from it resolves ``[text][label]`` as the whole would."""

        def __init__(
            self, markup: str, code_theme: Any, hyperlinks: bool = False, references: dict[str, Any] | None = None
        ) -> None:
            self.markup = markup
            self.parsed = parser().parse(markup, {"references": dict(references or {})})
            self.code_theme = code_theme
            self.justify = None
            self.style = "none"
            self.hyperlinks = hyperlinks
            self.inline_code_lexer = None
            self.inline_code_theme = code_theme

        elements = {
            **Markdown.elements,
            "heading_open": LeftHeading,
            "list_item_open": DottedItem,
            "table_open": BoxedTable,
            "blockquote_open": BarredQuote,
        }

    return NavMarkdown


Line = list[Segment]


def render_markdown(
    source: str,
    console: Console,
    width: int,
    style: Style,
    palette: MarkdownPalette,
    references: dict[str, Any] | None = None,
) -> list[Line]:
    """Render Markdown ``source`` at ``width`` cells: one list of segments per line, padded to ``width``.

    Lines, not ``Strip``s: a Strip carries seven caches, and a long answer has thousands of lines of which a
    screenful is ever drawn; the view makes strips for the lines it draws.
    """
    markdown = _markdown_class()(source, code_theme=palette.syntax_theme, hyperlinks=False, references=references)
    options = console.options.update(width=width, height=None, highlight=False)
    console.push_theme(palette.rich_theme)
    try:
        lines = console.render_lines(markdown, options, style=style, pad=False)
    finally:
        console.pop_theme()
    # Rich opens some blocks (lists, quotes) with an empty line; the view puts its own gaps between blocks.
    start = 0
    while start < len(lines) and not lines[start]:
        start += 1
    return [Segment.adjust_line_length(line, width, style) for line in lines[start:]]
