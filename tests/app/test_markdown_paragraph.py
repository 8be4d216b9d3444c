"""An open paragraph rendered from its last safe point (``widgets/markdown/paragraph.py``) shows what a whole render
shows, row for row and segment for segment, at every cut."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from navtui.app.theme_defaults import nav_defaults
from navtui.widgets.markdown.document import MarkdownDocument
from navtui.widgets.markdown.paragraph import POINT_ROWS, OpenParagraph
from navtui.widgets.markdown.render import Line, palette_for, render_markdown
from navtui.widgets.markdown.view import MarkdownView

CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True)
# Each inline look its own colour, so that text rendered in the wrong one shows in the comparison.
PALETTE = palette_for(
    {
        "nav-md-code": "#ff0000",
        "nav-md-link": "#00ff00",
        "nav-md-link-url": "#0000ff",
        "nav-md-heading": "#ffff00",
        "nav-md-quote": "#00ffff",
        "nav-md-list-bullet": "#ff00ff",
        "nav-md-code-block-border": "#808080",
    }
)
STYLE = Style(color="#c0c0c0", bgcolor="#101010")
WIDTHS = (24, 60, 118)

# Real Markdown a model writes: emphasis over several words, code spans, links and autolinks, escapes and
# entities, snake_case names, words that look like list markers, CJK (two cells a character), a word longer than a
# row, trailing spaces, a hard break, a paragraph of several lines.
REAL = [
    "The splitter reads `block_starts()` first, then **two callers** rely on its token map: the view keeps every "
    "finished block's rows, and a flush renders only what is open, as [the notes](https://example.com/notes) say. "
    "See <https://example.com/speed> for the figures; *a paragraph that grows over many rows keeps its first rows "
    "and renders the rest*, which is the point of this change. Step 1. comes first and 2) second, a my_var and "
    "an __init__ name, ~~struck out~~ words, an escaped \\*star\\* and an &amp; entity, then more prose to wrap. ",
    "長い段落も同じように折り返されます。 Wide characters take two cells each, 漢字 and かな alike, and a long "
    "path like /usr/local/lib/python3.11/site-packages/navtui/widgets/markdown/paragraph.py is folded when it "
    "does not fit a row at all. Trailing spaces   between words and at the end   are kept as the wrap keeps them. ",
    "A paragraph of several lines\nwhose lines are joined by soft breaks into one\nrun of text, wrapped as one, "
    "with a hard break here  \nand a `code span that goes on over several words` before the end of it. ",
]


def render_all(text: str, width: int) -> list[Line]:
    return render_markdown(text, CONSOLE, width, STYLE, PALETTE)


def stream(paragraph: OpenParagraph, text: str, cuts: list[int], width: int) -> int:
    """Render ``text`` at each cut (and whole at the end) through ``paragraph``; every answer is a whole render's.
    Returns how many renders used rows kept from an earlier one."""
    used = 0
    position = 0
    for size in [*cuts, len(text)]:
        position = min(len(text), position + size)
        shown = text[:position]
        kept = list(paragraph._rows)
        rows = paragraph.render(shown, CONSOLE, width, STYLE, PALETTE)
        if rows is not None:
            assert rows == render_all(shown, width), shown
            used += bool(kept) and all(a is b for a, b in zip(kept, rows, strict=False))
        if position >= len(text):
            break
    return used


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(REAL),
    st.integers(min_value=1, max_value=3),
    st.sampled_from(WIDTHS),
    st.lists(st.integers(min_value=1, max_value=90), min_size=5, max_size=80),
)
def test_a_growing_paragraph_of_real_markdown_shows_at_every_cut_what_a_whole_render_shows(
    text: str, repeat: int, width: int, cuts: list[int]
) -> None:
    stream(OpenParagraph(), text * repeat, cuts, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_long_paragraph_keeps_its_first_rows_and_renders_only_the_rest(width: int) -> None:
    # Fed 80 characters a flush, as at 1,000 tok/s: most flushes reuse the rows kept, which are the same objects.
    text = REAL[0] * 4
    paragraph = OpenParagraph()
    used = stream(paragraph, text, [80] * (len(text) // 80), width)
    assert used > len(text) // 80 // 2
    rows = render_all(text, width)
    assert len(paragraph._rows) >= len(rows) - POINT_ROWS  # only the last rows are rendered again


# ---------------------------------------------------------------- what later text can reach back across
@pytest.mark.parametrize(
    "text",
    [
        # an emphasis, a strikethrough, a code span, a link opened rows before it closes
        "Words before *an emphasis that runs over many words and rows until it closes here* and after.",
        "Words before ~~a strikethrough that runs over many words and rows until it ends~~ and after.",
        "Words before `a code span that runs over many words and rows until it closes` and after.",
        "Words before [a link whose text runs over many words and rows](https://example.com) and after.",
        "Words before **strong text that runs over many words and rows until it ends** and after it.",
        "Words before _an emphasis with underscores that runs over many words and rows_ and after.",
        # a later line turns the paragraph into a heading, or its last line into a table's header
        "A paragraph that runs over many words and rows before its underline comes\n===\n",
        "A paragraph that runs over many words and rows before its underline comes\n---\n",
        "A paragraph that runs over many words and rows a | b\n--- | ---\n",
        "A paragraph that runs over many words and rows\n1. and then a list item interrupts it\n",
        # a word like a list marker at a row's start
        "Words that wrap so that a number comes at a row start 1. here and 2) there and 10. too.",
    ],
)
def test_text_that_reaches_back_across_a_row_is_shown_as_a_whole_render_shows_it(text: str) -> None:
    text = "Some words come first, before what follows. " * 3 + text  # rows enough for points before it
    used = sum(stream(OpenParagraph(), text, [1] * len(text), width) for width in (16, 24, 30))
    assert used  # points were taken before the text that reaches back


def test_a_word_at_a_row_start_whose_link_closes_later_moves_back_to_the_row_before_as_a_whole_render_shows() -> None:
    # At 30 columns "ab[cd" starts a row: the row before has 5 cells left, one short of " ab[cd". Once the link
    # closes, the word shows as "abcd" and fits there; a point at its start would have kept the row before without it.
    text = "word " * 34 + "yyyyy ab[cd more words here](https://e.x/a) " + "tail " * 20
    stream(OpenParagraph(), text, [1] * len(text), 30)
    assert "".join(segment.text for segment in render_all(text, 30)[5]).rstrip().endswith("yyyyy abcd")


# Generated paragraphs: words and every piece of syntax that can reach back, in any order, cut anywhere.
PIECES = st.sampled_from(
    [
        "word",
        "prose",
        "another",
        "x",
        "*",
        "**",
        "_",
        "__",
        "~~",
        "`",
        "``",
        "[",
        "]",
        "](https://e.x/y)",
        "(",
        ")",
        "<https://e.x>",
        "<",
        ">",
        "\\*",
        "&amp;",
        "1.",
        "2)",
        "-",
        "#",
        "|",
        "===",
        "---",
        "snake_case",
        "漢字かな",
        "averyveryverylongwordthatfoldsacrossrows",
    ]
)
SEPARATORS = st.sampled_from([" ", " ", " ", "", "  ", "\n", "  \n"])
PARAGRAPH = st.lists(st.tuples(PIECES, SEPARATORS), min_size=10, max_size=60).map(
    lambda parts: "Start " + "".join(piece + gap for piece, gap in parts)
)


@settings(max_examples=60, deadline=None)
@given(PARAGRAPH, st.sampled_from((12, 20, 33)), st.lists(st.integers(min_value=1, max_value=12), min_size=40))
def test_any_paragraph_cut_anywhere_shows_what_a_whole_render_shows(text: str, width: int, cuts: list[int]) -> None:
    stream(OpenParagraph(), text, cuts, width)


@pytest.mark.soak  # the same property over more paragraphs
@settings(max_examples=200, deadline=None)
@given(PARAGRAPH, st.sampled_from((12, 20, 33)), st.lists(st.integers(min_value=1, max_value=12), min_size=40))
def test_soak_any_paragraph_cut_anywhere_shows_what_a_whole_render_shows(
    text: str, width: int, cuts: list[int]
) -> None:
    test_any_paragraph_cut_anywhere_shows_what_a_whole_render_shows.hypothesis.inner_test(text, width, cuts)


# ---------------------------------------------------------------- in the document
def shown(document: MarkdownDocument, width: int) -> list[Line]:
    document.render(CONSOLE, width, STYLE, PALETTE)
    return [*document.lines, *([[Segment(" " * width, STYLE)]] if document.tail_blank else []), *document.tail_lines]


class WholeParagraph(OpenParagraph):
    """A paragraph always rendered whole (as before ``OpenParagraph``)."""

    def render(self, *args: Any, **kwargs: Any) -> None:
        return None


def whole(text: str, width: int) -> list[Line]:
    """The streamed document rendered at once: its blocks, each rendered whole, one blank line between them."""
    at_once = MarkdownDocument()
    at_once.feed(text)
    at_once._paragraph = WholeParagraph()
    return shown(at_once, width)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(REAL), min_size=1, max_size=3), st.lists(st.integers(1, 120), min_size=20))
def test_a_streamed_document_of_long_paragraphs_shows_what_a_whole_render_shows(
    paragraphs: list[str], cuts: list[int]
) -> None:
    text = "## A heading\n\n" + "\n\n".join(p * 2 for p in paragraphs) + "\n\n- a list after them\n"
    document = MarkdownDocument()
    position = 0
    for size in [*cuts, len(text)]:
        document.feed(text[position : position + size])
        position = min(len(text), position + size)
        assert shown(document, 60) == whole(text[:position], 60), text[:position]
        if position >= len(text):
            break
    document.close()
    assert shown(document, 60) == whole(text, 60)


def test_a_growing_paragraph_in_the_document_keeps_its_first_rows_from_one_flush_to_the_next() -> None:
    document = MarkdownDocument()
    document.feed("Intro.\n\n")
    text = REAL[0] * 3
    for start in range(0, 1200, 80):
        document.feed(text[start : start + 80])
        shown(document, 60)
    assert document._paragraph is not None
    kept = list(document._paragraph._rows)  # the rows up to its last safe point
    assert len(kept) > 10 and all(a is b for a, b in zip(kept, document.tail_lines, strict=False))
    document.feed(text[1200:1280])
    shown(document, 60)
    assert all(a is b for a, b in zip(kept, document.tail_lines, strict=False))  # not rendered again


# ---------------------------------------------------------------- in the view, as the screen shows it
LONG_DOC = "## Long paragraphs\n\n" + REAL[0] * 3 + "\n\n" + REAL[1] * 2 + "\n\n" + REAL[2] * 2 + "\n\n- the end\n"


class LongApp(App[None]):
    CSS = "MarkdownView { height: auto; } VerticalScroll { layout: stream; }"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return nav_defaults(self.current_theme.to_color_system().generate())

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownView(LONG_DOC, id="whole")
            yield MarkdownView(streaming=True, id="streamed")


def strips(view: MarkdownView) -> list[list[Segment]]:
    return [list(view.render_line(y)) for y in range(view.size.height)]


async def test_a_streamed_answer_of_long_paragraphs_shows_in_the_view_what_the_whole_answer_shows() -> None:
    app = LongApp()
    async with app.run_test(size=(100, 200)) as pilot:
        streamed = app.query_one("#streamed", MarkdownView)
        kept = 0
        for position in range(0, len(LONG_DOC), 80):  # 1,000 tok/s: ~80 characters a flush
            streamed.append(LONG_DOC[position : position + 80])
            streamed.flush()
            await pilot.pause()
            paragraph = streamed._document._paragraph
            kept = max(kept, len(paragraph._rows) if paragraph is not None else 0)
        streamed.finish()
        await pilot.pause()
        assert kept > 10  # the long paragraphs were rendered from their safe points
        assert strips(streamed) == strips(app.query_one("#whole", MarkdownView))  # cell for cell, with the looks
