"""An open paragraph rendered from its last safe point: a flush renders only the rows the new text may change.

While a reply streams, its open block is rendered again at every flush (``document.py``), and a growing paragraph
was rendered whole each time: ~2 ms at 1,000 characters, 4.7-5.9 ms at 4,000, on the UI loop (docs/speed.md,
"Tenth wave: the stream's paint"). ``OpenParagraph`` keeps the rows of the paragraph's start and renders only the
text from its last *safe point*, a place no later text can change anything before:

* **The wrap.** Rich wraps a paragraph greedily (``rich._wrap.divide_line``): a row ends where the next word does
  not fit, whatever comes after that word, and the rows after a row's start depend only on the words from there.
  So a safe point is the start of a row, at a word that has ended (a space after it): the row before it cannot
  change, and the text from there renders as a paragraph of its own renders it.
* **The inline syntax.** Text that comes later can reach back across a point: a ``*``, ``_`` or ``~`` not matched
  yet may be closed (emphasis), a backtick run opened (a code span), a ``[`` closed into a link. The text before a
  safe point, and the word after it, have none of these left as text in markdown-it's inline parse (``_settled``):
  every one they hold is matched there (a word whose opener is closed later shows narrower, and may move back to the
  row before the point: ``ab[cd more](u)`` shows ``abcd``). An autolink, an entity or a backslash escape cannot
  span the space before the point, raw HTML is off, and the point follows a single space after a word (no hard
  break ends there).
* **The block.** Later lines can make the paragraph something else: a setext underline turns it into a heading, a
  table's delimiter row takes its last line as a header, a list item or a fence interrupts it. A point is taken
  only while the whole tail parses as one paragraph (``one_paragraph``: markdown-it's block rules only), and on its
  last line, after a word that starts with a letter or digit and is not a list marker (``1.``): what that line is
  was decided by its start, and no text added to it can make it an underline, a delimiter row or a list item; so
  the text from the point parses as a paragraph too. Once a newline comes after the point (but at the very end),
  the paragraph is rendered whole and its rows kept again from scratch.

A point is looked for once the rows after the last one are ``POINT_ROWS`` (a shorter paragraph is rendered whole,
as before): the start of the row two before the last, matched to a space in the source by its first word, and
taken only if a render of the text from there gives exactly the rows it is to stand for (``_advance``): a check of
the wrap and of Rich's handling of whitespace, once per point. The rows kept are those of a whole render, never
rendered again, so what is shown is, row for row and segment for segment, what ``render_markdown`` gives for the
whole paragraph (``tests/app/test_markdown_paragraph.py`` checks it over random cuts of real Markdown).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

from rich.style import Style

from navtui.widgets.markdown.render import Line, MarkdownPalette, render_markdown

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from rich.console import Console

# A tail this module does not follow: a tab (Rich expands tabs from the start of the paragraph's line), a carriage
# return or NUL (markdown-it changes them before parsing).
_UNSUPPORTED = re.compile("[\t\r\0]")
# A place a safe point may be: after a single space that follows a word, before a word that has ended (a space
# after it) and starts with a letter or digit. Group 1 is that word.
_POINT = re.compile(r"(?<=\S) ([^\W_]\S*)(?=\s)")
_LIST_MARKER = re.compile(r"\d{1,9}[.)]")
# Characters that, left as text by the inline parse, a later closer or opener could still pair with.
_REACHING = re.compile(r"[*~`\[\]]|(?<![^\W_])_|_(?![^\W_])")  # an ``_`` between letters or digits cannot
# Rows left open after a safe point: the last row grows, and the point is taken at a row's start before it.
OPEN_ROWS = 2
# A point is looked for once the rows after the last one (or the paragraph's, before the first) are this many:
# taking one costs a render of the rows after it, so a paragraph shorter than this is rendered whole at each flush
# as before (~1 ms at 118 columns), and the rows rendered at a flush stay under it.
POINT_ROWS = 8


@cache
def _block_parser() -> MarkdownIt:
    """The document's parser with block rules only: is the tail still one paragraph (no inline parse)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table").disable("inline")


def warm_up() -> None:
    """Build the two parsers this module uses (~1 ms, once a process), off the UI loop (``warm.py``)."""
    _block_parser()
    _inline_parser()


def one_paragraph(text: str) -> bool:
    """``text`` is one top-level paragraph and nothing else (markdown-it's block rules)."""
    tokens = _block_parser().parse(text)
    return len(tokens) == 3 and tokens[0].type == "paragraph_open" and tokens[0].level == 0


@cache
def _inline_parser() -> MarkdownIt:
    """The document's parser, its escapes and entities left as tokens of their own (``text_special``, which the
    ``text_join`` rule would merge into the text around them): an escaped ``\\*`` can pair with nothing."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table").disable("text_join")


def _settled(text: str) -> bool:
    """Nothing in ``text`` (the paragraph's text before a point) can pair with what comes after it: its inline parse
    leaves no emphasis, strikethrough, code-span or link delimiter as text."""
    tokens = _inline_parser().parseInline(text.strip())
    children = tokens[0].children if tokens else None
    if children is None:
        return False
    return not any(child.type == "text" and _REACHING.search(child.content) for child in children)


class OpenParagraph:
    """The rows of an open paragraph's start, up to its last safe point, kept from one flush to the next."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._prefix = ""  # the tail's text the kept rows stand for (up to the safe point)
        self._rows: list[Line] = []
        self._tried = 0  # how many rows the text after the point had when a point was last looked for

    def clear(self) -> None:
        self._key, self._prefix, self._rows, self._tried = None, "", [], 0

    def render(
        self,
        tail: str,
        console: Console,
        width: int,
        style: Style,
        palette: MarkdownPalette,
        references: dict[str, Any] | None = None,
    ) -> list[Line] | None:
        """``tail``'s lines as ``render_markdown`` renders it, when ``tail`` is one paragraph; ``None`` otherwise (the
        caller renders it whole)."""
        key = (width, style, palette, console)
        if key != self._key or not tail.startswith(self._prefix):
            self._key, self._prefix, self._rows, self._tried = key, "", [], 0
        rest = tail[len(self._prefix) :]
        # The text before the point was checked as it was taken; the text after it only needs to stay on the
        # paragraph's last line (its start, up to the point's word, is what makes that line a paragraph's)
        if _UNSUPPORTED.search(rest) or (self._prefix and "\n" in rest.rstrip()):
            self.clear()
            return None
        rows = render_markdown(rest, console, width, style, palette, references)  # whole, without a point yet
        kept = self._rows
        if len(rows) >= POINT_ROWS and len(rows) > self._tried:  # once a row, not at every flush
            self._tried = len(rows)
            self._advance(tail, rest, rows, console, width, style, palette, references)
        return [*kept, *rows] if kept else rows

    def _advance(
        self,
        tail: str,
        rest: str,
        rows: list[Line],
        console: Console,
        width: int,
        style: Style,
        palette: MarkdownPalette,
        references: dict[str, Any] | None,
    ) -> None:
        """Keep ``rows`` (``rest`` rendered) up to the start of the row ``OPEN_ROWS`` before their end, if that row
        begins at a safe point."""
        if not one_paragraph(tail):
            return
        row = len(rows) - OPEN_ROWS
        visible = "".join(segment.text for segment in rows[row]).strip()
        if not visible:
            return
        first = visible.split(" ", 1)[0]
        line_start = rest.rfind("\n", 0, len(rest.rstrip())) + 1  # the point must be on the paragraph's last line
        after = sum(len("".join(segment.text for segment in line).replace(" ", "")) for line in rows[row:])
        candidates = [
            match.span(1)
            for match in _POINT.finditer(rest, line_start)
            if match.group(1).startswith(first) and not _LIST_MARKER.fullmatch(match.group(1))
        ]
        # The source after the point holds about as many characters but spaces as the rows show (markup adds some)
        candidates.sort(key=lambda span: abs(len(rest[span[0] :].replace(" ", "").replace("\n", "")) - after))
        for point, word_end in candidates[:2]:
            # Nor can the point's word hold an opener a later closer pairs with: the word then shows narrower
            # (``ab[cd more](u)`` shows ``abcd``) and may fit at the end of the row before the point
            if not _settled(rest[:word_end]):
                continue
            if render_markdown(rest[point:], console, width, style, palette, references) == rows[row:]:
                self._rows = [*self._rows, *rows[:row]]
                self._prefix += rest[:point]
                self._tried = 0
                return
