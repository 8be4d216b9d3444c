"""A growing Markdown document rendered block by block: finished blocks once, the open block on each change.

No Textual here, only Rich: ``MarkdownView`` draws what this holds, and tests check it against Rich's render
of the whole document.

A finished block's rendered lines can be released (``release``: a long answer is ~0.6 MB of segments for
20,000 tokens, of which a screenful is drawn) and are rendered again from its source when a line of it is
asked for (``line``): the same source, width, style, palette and references render the same lines, so the
height never changes.
"""

from __future__ import annotations

import re
import time
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.segment import Segment
from rich.style import Style

from navtui.widgets.markdown.blocks import Block, BlockSplitter
from navtui.widgets.markdown.code import OpenFence
from navtui.widgets.markdown.render import Line, MarkdownPalette, render_markdown

if TYPE_CHECKING:
    from navtui.widgets.markdown.paragraph import OpenParagraph

RELEASED: Line = []  # stands for a line of a released block (told apart by identity: a rendered line is never it)
_FENCE = re.compile(r"( {0,3}(?:`{3,}|~{3,}))[^\n]*\Z")  # a fence's opening line, not ended yet


def settled_fence(tail: str) -> str:
    """``tail`` without the language of a code fence whose opening line has not ended: a flush cuts a streamed
    "```python" anywhere ("```pyt"), and Pygments, asked for a lexer of a name it does not know, looks for plugin
    lexers, reading every installed package's entry points (~60 ms the first time, on the UI loop). The block
    shows the same either way: empty, its language not drawn. Only the last line is looked at: a search of the whole
    tail took ~0.4 ms a flush once a paragraph had grown to 6,000 characters."""
    found = _FENCE.match(tail, tail.rfind("\n") + 1)
    if found is None:
        return tail
    if tail[found.end(1) - 1] == "`" and "`" in tail[found.end(1) :]:
        return tail  # not a fence: "```py```" is inline code
    return tail[: found.end(1)]


class BlockSources:
    """The finished blocks' sources, as one string and where each block ends.

    A block as its own object and string costs ~90 bytes over its text (~380 of them in a 20,000-token answer),
    and the text is the answer's text a second time: a closed document keeps one string (``pack``), the
    answer's own when it begins with it (``share``). Blocks still streaming wait in a list until ``pack``."""

    __slots__ = ("_ends", "_packed", "_pending", "_text")

    def __init__(self) -> None:
        self._text = ""  # the sources of the first ``_packed`` blocks, joined (or a text beginning with them)
        self._packed = 0
        self._pending: list[str] = []  # the sources of the blocks after them
        self._ends = array("Q")  # where each block's source ends

    def __len__(self) -> int:
        return len(self._ends)

    def extend(self, blocks: Iterable[Block]) -> None:
        for block in blocks:
            self._pending.append(block.source)
            self._ends.append((self._ends[-1] if self._ends else 0) + len(block.source))

    def __getitem__(self, index: int) -> str:
        if index >= self._packed:
            return self._pending[index - self._packed]
        return self._text[self._ends[index - 1] if index else 0 : self._ends[index]]

    @property
    def text(self) -> str:
        """What the packed blocks' sources are read from."""
        return self._text

    def pack(self) -> None:
        """Join the pending sources to the rest (once the document is complete: each join copies the text)."""
        if self._pending:
            end = self._ends[self._packed - 1] if self._packed else 0
            self._text = self._text[:end] + "".join(self._pending)
            self._packed, self._pending = len(self._ends), []

    def share(self, text: str) -> None:
        """Keep ``text`` instead of the joined sources if it begins with them (the answer's text, held anyway)."""
        if not self._pending and self._text is not text and text.startswith(self._text):
            self._text = text


class MarkdownDocument:
    """``feed`` text; ``render`` brings ``lines`` (finished blocks) and ``tail_lines`` (the open block) up to date.

    What a view shows is ``lines[:shown]``, a blank line if ``tail_blank``, then ``tail_lines``. While a
    budgeted ``render`` has left finished blocks for later (``behind``), that stays what the last complete
    render showed: the new blocks' lines wait after ``shown``, so the screen never shows the open block out of
    place nor a part of the answer missing."""

    def __init__(self) -> None:
        self.splitter = BlockSplitter()
        self.blocks = BlockSources()
        self.lines: list[Line] = []  # finished blocks, rendered, with the blank lines between them (or RELEASED)
        self.shown = 0  # how many of ``lines`` the view shows (all of them, unless ``behind``)
        # where each rendered block's lines are in ``lines`` (start, end): ~45 KB as tuples for ~380 blocks
        self._starts, self._ends = array("Q"), array("Q")
        self.tail_lines: list[Line] = []
        self.tail_blank = False  # a blank line between the finished lines and the tail
        self.changed_lines = False  # ``lines`` was rebuilt, not only extended (drawn strips are stale)
        self._rendered = 0  # how many of ``blocks`` are in ``lines``
        self._references_version = 0  # the splitter's, when ``lines`` was rendered
        self._tail_dirty = True
        self._tail_waits = False  # a budgeted render rendered finished blocks: the open block's is the next call's
        self._released = 0  # blocks whose lines are RELEASED
        self._rendering: tuple[Console, int, Style, MarkdownPalette] | None = None  # what ``lines`` was rendered with
        self._fence = OpenFence()  # the open block's first rows, while it is a growing code block
        # the open block's first rows, while it is a growing paragraph (made at the first open block's render: its
        # module is not imported before the first frame)
        self._paragraph: OpenParagraph | None = None
        self._blank_for: tuple[int, Style] | None = None
        self._blank_line: Line = []

    @property
    def behind(self) -> bool:
        """Finished blocks wait to be rendered (a ``render`` spent its budget): render again soon."""
        return self._rendered < len(self.blocks) or self._tail_waits

    @property
    def settled(self) -> bool:
        """Nothing was fed and nothing left to render since the last ``render``: another one changes nothing."""
        return not (self._tail_dirty or self.behind or self.changed_lines)

    @property
    def height(self) -> int:
        return self.shown + self.tail_blank + len(self.tail_lines)

    def feed(self, text: str) -> None:
        self.blocks.extend(self.splitter.feed(text))
        self._tail_dirty = True

    def close(self) -> None:
        """The document is complete: its last (open) block is finished too, so it can be released like the rest.
        It renders the same lines in the same place (the gap before it included)."""
        block = self.splitter.close()
        self._fence.clear()
        if block is not None:
            self.blocks.extend([block])
        self.blocks.pack()
        self._tail_dirty = True

    def reset(self) -> None:
        """Everything is rendered again at the next ``render`` (a new width, style or theme)."""
        self.lines, self._rendered, self._tail_dirty, self.changed_lines = [], 0, True, True
        self._tail_waits = False
        self.shown = 0
        self._starts, self._ends, self._released = array("Q"), array("Q"), 0
        if self._paragraph is not None:
            self._paragraph.clear()

    def render(
        self,
        console: Console,
        width: int,
        style: Style,
        palette: MarkdownPalette,
        budget: float | None = None,
        give_way: Callable[[], bool] | None = None,
    ) -> int | None:
        """Bring the lines up to date; returns the first line that differs from before (``None``: none did).

        A view whose height did not change repaints only from there (a growing paragraph changes its last
        line or two, not the screenful above it). With a ``budget`` (seconds), finished blocks are rendered
        until it is spent (one at least) and the rest are left for the next call (``behind``: what is shown
        does not change until they are all rendered). A render of everything again (``reset``) takes no budget.
        A budgeted render that rendered finished blocks leaves the open block's render (the costlier part while a
        code block grows: it is highlighted whole) to the next call too, so what comes between the two calls (a
        key's echo) waits for one of them only. ``give_way`` (with a budget): asked after each finished block
        rendered, True ends the call there as a spent budget does (a key came meanwhile).
        """
        before = self.shown
        blank = self._blank(width, style)  # the gap before the tail, drawn as any blank line
        old_tail = ([blank] if self.tail_blank else []) + self.tail_lines
        self._render(console, width, style, palette, budget, give_way)
        if self.behind:
            return None
        if self.changed_lines or len(self.lines) < before:
            return 0
        new_tail = self.lines[before:] + ([blank] if self.tail_blank else []) + self.tail_lines
        for offset, (old, new) in enumerate(zip(old_tail, new_tail, strict=False)):
            if old != new:
                return before + offset
        if len(old_tail) != len(new_tail):
            return before + min(len(old_tail), len(new_tail))
        return None

    def _render(
        self,
        console: Console,
        width: int,
        style: Style,
        palette: MarkdownPalette,
        budget: float | None,
        give_way: Callable[[], bool] | None = None,
    ) -> None:
        splitter = self.splitter
        if splitter.references_version != self._references_version:
            # A new link definition: blocks that cite it must show the link, as the whole document would.
            self._references_version = splitter.references_version
            self.reset()
        references = splitter.references
        lines = self.lines
        deadline = None if budget is None or self.changed_lines else time.perf_counter() + budget
        self._rendering = (console, width, style, palette)
        gap = self._blank(width, style)  # one blank line between top-level blocks, as Rich renders a document
        blocks = self.blocks
        finished, self._tail_waits = self._rendered, False
        while self._rendered < len(blocks):
            source = blocks[self._rendered]
            if self._rendered == finished:
                # The first block finished since the last render may be the code fence or the paragraph the open
                # block was: its first rows kept, only its last ones rendered
                rendered = self._render_open(source, console, width, style, palette, references)
                if self._paragraph is not None:
                    self._paragraph.clear()  # the next open block is another one
            else:
                rendered = render_markdown(source, console, width, style, palette, references)
            if lines and rendered:
                lines.append(gap)
            self._starts.append(len(lines))
            self._ends.append(len(lines) + len(rendered))
            lines.extend(rendered)
            self._rendered += 1
            if deadline is not None and (time.perf_counter() > deadline or (give_way and give_way())) and self.behind:
                return  # the rest at the next call; what is shown stays as it was
        self._tail_waits = deadline is not None and self._rendered > finished and self._tail_dirty
        if self._tail_waits:
            return  # the open block at the next call; what is shown stays as it was
        self.shown = len(lines)
        if self._tail_dirty:
            tail = settled_fence(splitter.tail)
            if tail.strip():
                self.tail_lines = self._render_open(tail, console, width, style, palette, references)
            else:
                self.tail_lines = []
            self.tail_blank = bool(self.tail_lines and lines)
            self._tail_dirty = False

    def _render_open(
        self,
        source: str,
        console: Console,
        width: int,
        style: Style,
        palette: MarkdownPalette,
        references: dict[str, Any],
    ) -> list[Line]:
        """The open block (or the block it became) rendered from the rows kept of it: a growing code block has only its
        last lines highlighted again (``code.py``), a growing paragraph only the rows after its last safe point
        (``paragraph.py``); any other block is rendered whole."""
        rows = self._fence.render(source, console, width, style, palette)
        if rows is None:
            if self._paragraph is None:
                from navtui.widgets.markdown.paragraph import OpenParagraph

                self._paragraph = OpenParagraph()
            rows = self._paragraph.render(source, console, width, style, palette, references)
        return render_markdown(source, console, width, style, palette, references) if rows is None else rows

    def _blank(self, width: int, style: Style) -> Line:
        """A blank line ``width`` cells wide: one list for every gap between blocks. A list, a segment and a string
        each, the gaps of a 20,000-token answer (~380) were ~0.1 MB, kept with the answer for the session."""
        if self._blank_for != (width, style):
            self._blank_for, self._blank_line = (width, style), [Segment(" " * width, style)]
        return self._blank_line

    # ------------------------------------------------------------------ releasing what is not drawn
    def line(self, y: int) -> Line:
        """Finished line ``y``; a released block is rendered again first."""
        line = self.lines[y]
        if line is RELEASED:
            self._restore(y)
            line = self.lines[y]
        return line

    @property
    def spans(self) -> list[tuple[int, int]]:
        """Where each rendered block's lines are in ``lines``: (start, end)."""
        return list(zip(self._starts, self._ends, strict=True))

    @property
    def released(self) -> int:
        """How many blocks have their lines released."""
        return self._released

    def release(self, keep_from: int, keep_to: int) -> int:
        """Release the lines of every rendered block outside lines ``keep_from``..``keep_to`` (exclusive).

        Returns how many lines were released. Heights and ``line`` stay as they were."""
        released = 0
        lines = self.lines
        for start, end in zip(self._starts, self._ends, strict=True):
            if end <= start or end > self.shown or (start < keep_to and end > keep_from) or lines[start] is RELEASED:
                continue
            lines[start:end] = [RELEASED] * (end - start)
            released += end - start
            self._released += 1
        return released

    def _restore(self, y: int) -> None:
        assert self._rendering is not None  # a line was released, so the document was rendered
        console, width, style, palette = self._rendering
        index = bisect_right(self._starts, y) - 1
        start, end = self._starts[index], self._ends[index]
        rendered = render_markdown(self.blocks[index], console, width, style, palette, self.splitter.references)
        # The same inputs render the same lines; were it ever otherwise, the height must not move under the view.
        rendered = (rendered + [self._blank(width, style)] * (end - start))[: end - start]
        self.lines[start:end] = rendered
        self._released -= 1
