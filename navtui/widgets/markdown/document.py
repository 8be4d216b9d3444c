"""A growing Markdown document rendered block by block: finished blocks once, the open block on each change.

No Textual here, only Rich: ``MarkdownView`` draws what this holds, and tests check it against Rich's render
of the whole document.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.segment import Segment
from rich.style import Style

from navtui.widgets.markdown.blocks import Block, BlockSplitter
from navtui.widgets.markdown.render import Line, MarkdownPalette, render_markdown


class MarkdownDocument:
    """``feed`` text; ``render`` brings ``lines`` (finished blocks) and ``tail_lines`` (the open block) up to date.

    What a view shows is ``lines[:shown]``, a blank line if ``tail_blank``, then ``tail_lines``. While a
    budgeted ``render`` has left finished blocks for later (``behind``), that stays what the last complete
    render showed: the new blocks' lines wait after ``shown``, so the screen never shows the open block out of
    place nor a part of the answer missing."""

    def __init__(self) -> None:
        self.splitter = BlockSplitter()
        self.blocks: list[Block] = []
        self.lines: list[Line] = []  # finished blocks, rendered, with the blank lines between them
        self.shown = 0  # how many of ``lines`` the view shows (all of them, unless ``behind``)
        self.tail_lines: list[Line] = []
        self.tail_blank = False  # a blank line between the finished lines and the tail
        self.changed_lines = False  # ``lines`` was rebuilt, not only extended (drawn strips are stale)
        self._rendered = 0  # how many of ``blocks`` are in ``lines``
        self._references_version = 0  # the splitter's, when ``lines`` was rendered
        self._tail_dirty = True

    @property
    def behind(self) -> bool:
        """Finished blocks wait to be rendered (a ``render`` spent its budget): render again soon."""
        return self._rendered < len(self.blocks)

    @property
    def height(self) -> int:
        return self.shown + self.tail_blank + len(self.tail_lines)

    def feed(self, text: str) -> None:
        self.blocks.extend(self.splitter.feed(text))
        self._tail_dirty = True

    def reset(self) -> None:
        """Everything is rendered again at the next ``render`` (a new width, style or theme)."""
        self.lines, self._rendered, self._tail_dirty, self.changed_lines = [], 0, True, True
        self.shown = 0

    def render(
        self, console: Console, width: int, style: Style, palette: MarkdownPalette, budget: float | None = None
    ) -> int | None:
        """Bring the lines up to date; returns the first line that differs from before (``None``: none did).

        A view whose height did not change repaints only from there (a growing paragraph changes its last
        line or two, not the screenful above it). With a ``budget`` (seconds), finished blocks are rendered
        until it is spent (one at least) and the rest are left for the next call (``behind``: what is shown
        does not change until they are all rendered). A render of everything again (``reset``) takes no budget.
        """
        before = self.shown
        blank = [Segment(" " * width, style)]  # the gap before the tail, drawn as any blank line
        old_tail = ([blank] if self.tail_blank else []) + self.tail_lines
        self._render(console, width, style, palette, budget)
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
        self, console: Console, width: int, style: Style, palette: MarkdownPalette, budget: float | None
    ) -> None:
        splitter = self.splitter
        if splitter.references_version != self._references_version:
            # A new link definition: blocks that cite it must show the link, as the whole document would.
            self._references_version = splitter.references_version
            self.reset()
        references = splitter.references
        lines = self.lines
        deadline = None if budget is None or self.changed_lines else time.perf_counter() + budget
        for block in self.blocks[self._rendered :]:
            rendered = render_markdown(block.source, console, width, style, palette, references)
            if lines and rendered:  # one blank line between top-level blocks, as Rich renders a document
                lines.append([Segment(" " * width, style)])
            lines.extend(rendered)
            self._rendered += 1
            if deadline is not None and time.perf_counter() > deadline and self.behind:
                return  # the rest at the next call; what is shown stays as it was
        self.shown = len(lines)
        if self._tail_dirty:
            tail = splitter.tail
            self.tail_lines = render_markdown(tail, console, width, style, palette, references) if tail.strip() else []
            self.tail_blank = bool(self.tail_lines and lines)
            self._tail_dirty = False
