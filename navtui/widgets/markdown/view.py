"""``MarkdownView``: Markdown that streams without re-rendering what is already final.

Stock ``Markdown.get_stream()`` mounts a widget per block and re-lays them out as they arrive. Here a whole
message is one widget using the Line API: tokens are coalesced (a flush at most every ``FLUSH_INTERVAL``),
finished blocks are rendered once into cached strips ("frozen"), and only the open tail block is rendered
again on a flush. A frame therefore costs one small Markdown render plus a layout of a single widget,
however long the message is. Idle views hold no timer. The blocks are cut where markdown-it says
(``blocks.py``) and held in a ``MarkdownDocument`` (``document.py``), which knows nothing of Textual.

``trim`` lets go of the rendered lines of finished blocks away from what the screen shows (the transcript
calls it when a turn has ended); a line asked for again is rendered again from its block.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import TYPE_CHECKING

from rich.style import Style
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from navtui.core.display import display_safe
from navtui.widgets.coalesce import Coalescer
from navtui.widgets.markdown.document import MarkdownDocument
from navtui.widgets.markdown.render import MarkdownPalette, palette_for
from navtui.widgets.pacing import RETRY, pacer_of
from navtui.widgets.timers import one_shot

if TYPE_CHECKING:
    from textual.timer import Timer

STRIP_CACHE = 256  # strips kept for drawn lines (a few screens' worth)
# The longest a streaming view's flush renders in one go, its feed included; the rest follow a moment later (a
# key's echo may go first). A stream that fell behind (a busy loop, a loaded machine) finished dozens of blocks in
# one flush, and a key waited behind all of them; at 4 ms a flush that finished a block still took 4-6 ms of the
# loop (docs/speed.md, "Ninth wave").
RENDER_BUDGET = 0.002


class MarkdownView(Widget):
    """A Markdown document that can grow (``append``) and is finished with ``finish``."""

    FLUSH_INTERVAL = 1 / 50  # measured: 33 ms gives a p99 screen lag just over 50 ms, 20 ms stays under
    _grown_rows: Region | None = None  # the new rows, while a resize that only grew the view is applied

    def __init__(
        self, text: str = "", *, streaming: bool = False, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.streaming = streaming
        self._parts: list[str] = []
        self._coalescer = Coalescer(self, self._apply, self.FLUSH_INTERVAL)
        self._document = MarkdownDocument()
        self._strips: OrderedDict[int, Strip] = OrderedDict()  # finished line index -> strip, most recent last
        self._width = 0
        self._style: Style | None = None
        self._palette: MarkdownPalette | None = None
        self._variables: object = None
        self._catch_up_timer: Timer | None = None  # set while finished blocks wait to be rendered
        self.found: tuple[str, Style] | None = None  # /find's words shown here, and their style
        if text:
            self._feed(text)
        if not streaming:
            self._close()

    # ------------------------------------------------------------------ content
    @property
    def text(self) -> str:
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def share_text(self, text: str) -> None:
        """Keep ``text`` (the same text, held elsewhere: the recorded answer's) instead of this view's own copy."""
        if not self.streaming and text is not self.text and text == self.text:
            self._parts[:] = [text]
            self._document.blocks.share(text)

    def append(self, text: str) -> None:
        """Add streamed text; it reaches the screen at the next flush (at most ``FLUSH_INTERVAL`` away)."""
        self._coalescer.add(text)

    def finish(self) -> None:
        """The stream ended: show everything now (no timer is left behind)."""
        self.streaming = False
        self._coalescer.flush_now()
        self._close()
        self._render_rest()

    def _close(self) -> None:
        # the last block is final: the same lines, now releasable (``trim``); the blocks keep the answer's text
        self._document.close()
        self._document.blocks.share(self.text)

    def flush(self) -> None:
        """Apply pending text now, and render it all (tests and benchmarks)."""
        self._coalescer.flush_now()
        self._render_rest()

    def _render_rest(self) -> None:
        if self._catch_up_timer is not None:
            self._catch_up_timer.stop()
            self._catch_up_timer = None
        if not self._document.settled and self._width and self.is_mounted:
            before = self._document.height  # what shows: nothing of a render left behind
            self._show(self._render_document(self._width, whole=True), before)

    def _catch_up(self) -> None:
        """Render what a budgeted flush left (finished blocks, the open block), after a key's echo if one is
        pending."""
        self._catch_up_timer = None
        if self._document.settled or not (self._width and self.is_mounted):
            return
        if self._key_first():
            self._catch_up_timer = one_shot(self, RETRY, self._catch_up, name="markdown-catch-up")
            return
        before = self._document.height
        self._show(self._render_document(self._width), before)

    def _key_first(self) -> bool:
        """A key arrived since the last frame (read by the input thread, perhaps while this flush ran): its echo
        goes before the rest of the render (``ECHO_WAIT`` at most after the key: an echo that never counts, or keys
        typed without a pause, must not hold the answer back; one run held it 140 ms, and the render it left
        took 75 ms of the loop)."""
        pacer = pacer_of(self.app)
        return pacer is not None and pacer.echo_awaited

    def _apply(self, text: str) -> None:
        document = self._document
        before = document.height
        began = time.perf_counter()
        self._feed(text)
        if not (self._width and self.is_mounted):
            self.refresh(layout=True)
            return
        if self.streaming and (self._key_first() or time.perf_counter() - began > RENDER_BUDGET / 2):
            # The feed (a parse of the open block's lines) took half the budget, or a key came meanwhile: the
            # render is a step of its own, a moment later (``_catch_up``), and the key's echo may go between.
            if self._catch_up_timer is None:
                self._catch_up_timer = one_shot(self, 0.001, self._catch_up, name="markdown-catch-up")
            return
        self._show(self._render_document(self._width, began=began), before)

    def _show(self, first: int | None, before: int) -> None:
        """Repaint after a render that changed lines from ``first`` on, the height having been ``before``."""
        height = self._document.height
        if height != before:
            # Taller or shorter: a layout, and only the rows from the first changed line on are repainted. The
            # rows above keep their looks, and Textual's styled copy of them (``_set_dirty``).
            start = 0 if first is None else first
            self.refresh(Region(0, start, self.size.width, max(1, max(height, before) - start)), layout=True)
        elif first is not None:
            # Same height: the transcript does not scroll, so only the lines that changed are sent.
            self.refresh(Region(0, first, self.size.width, before - first))

    def _feed(self, text: str) -> None:
        self._parts.append(text)  # raw: ``text`` is what the model wrote (copy, export)
        # Only the rendered copy is made safe; character by character, so chunk boundaries do not matter.
        self._document.feed(display_safe(text))

    # ------------------------------------------------------------------ rendering
    def _ensure(self, width: int) -> None:
        """Render for ``width`` (everything again only when the width, style or theme changed)."""
        if width <= 0:
            return
        style = self.rich_style
        variables = self.app.theme_variables
        if width != self._width or style != self._style or variables is not self._variables:
            self._width, self._style, self._variables = width, style, variables
            self._palette = palette_for(variables)
            self._document.reset()
        elif self._document.settled or self._catch_up_timer is not None:
            # Nothing fed or left since the last render (every frame's layout and paint ask again), or a render
            # left for the catch-up timer: rendered in a frame's layout, the rows it changed above the view's old
            # bottom would not be repainted (the resize repaints only the rows it adds); the timer shows them.
            return
        self._render_document(width)

    def _render_document(self, width: int, whole: bool = False, began: float | None = None) -> int | None:
        """Render what is new (within ``RENDER_BUDGET`` from ``began`` while streaming, unless ``whole``); returns
        the first line that changed (``None``: none). What is left over (finished blocks, then the open block) is
        rendered by a timer, a budget at a time, each step after a key's echo if a key came meanwhile."""
        if self._palette is None:
            return 0
        document = self._document
        budget = None
        if self.streaming and not whole:
            budget = RENDER_BUDGET - (0.0 if began is None else time.perf_counter() - began)
        first = document.render(self.app.console, width, self._style or Style(), self._palette, budget, self._key_first)
        if document.changed_lines:
            document.changed_lines = False
            self._strips.clear()
        if document.behind and self._catch_up_timer is None and self.is_mounted:
            self._catch_up_timer = one_shot(self, 0.001, self._catch_up, name="markdown-catch-up")
        return first

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        # Textual sets the virtual size with layout=True inside its own layout pass, which asks for a second,
        # identical layout on the next frame (measured: ~2 ms of the loop after every flush that grew the view).
        # This view has no scrollbars, so its virtual size can never change a layout.
        old = self._size
        gutter = self.styles.gutter
        if old.width == size.width and 0 < old.height < size.height and not (gutter.top or gutter.bottom):
            # Only grown: the new rows are all that is new (``_set_dirty``, which the resize calls)
            self._grown_rows = Region(0, old.height, size.width, size.height - old.height)
        try:
            return super()._size_updated(size, virtual_size, container_size, layout=False)
        finally:
            self._grown_rows = None

    def _set_dirty(self, *regions: Region) -> None:
        # Textual marks a resized widget dirty whole, which drops its styled copy of every line: a growing answer
        # restyled every row on screen at each flush (~6 % of the loop at 1,000 tok/s). When the view only grew
        # (same width, no top or bottom border or padding), a row above the old bottom looks as it did; the rows
        # that did change were marked by ``_show``.
        grown = self._grown_rows
        if regions or grown is None:
            super()._set_dirty(*regions)
            return
        super()._set_dirty(grown)
        # Kept, the styled rows of a long answer would pile up (~2.5 KB a row): only the two screens' worth above
        # the new rows stay, the rows a following transcript shows. A row scrolled back to is styled again.
        styled = self._styles_cache._cache
        oldest = grown.y - 2 * self.app.size.height
        if len(styled) > grown.y - oldest:
            for y in [y for y in styled if y < oldest]:
                del styled[y]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._ensure(width)
        return self._document.height

    def trim(self, keep_from: int, keep_to: int) -> int:
        """Release the rendered lines of finished blocks outside lines ``keep_from``..``keep_to`` (the view's own
        rows, exclusive end) and the strips drawn from them. Returns how many lines were released."""
        released = self._document.release(keep_from, keep_to)
        if released:
            strips = self._strips
            for y in [y for y in strips if not keep_from <= y < keep_to]:
                del strips[y]
        # Textual's styled copies of those rows too (``_set_dirty`` keeps them while the answer grows; ten answers
        # kept theirs: ~3 MB over ten 20,000-token replies)
        cache = self._styles_cache
        styled = cache._cache
        for y in [y for y in styled if not keep_from <= y < keep_to]:
            del styled[y]
        # and the numbers of the rows Textual marked dirty and never drew: a refresh of the whole view marks every
        # row, and an answer scrolled past unseen keeps them all (~150 KB for a 20,000-token answer; a set never
        # shrinks). A row with no styled copy is drawn afresh anyway, so only the marks of kept copies matter.
        if len(cache._dirty_lines) > len(styled):
            cache._dirty_lines = {y for y in cache._dirty_lines if y in styled}
        return released

    def render_lines(self, crop: Region) -> list[Strip]:
        self._ensure(self.size.width)
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        strip = self._line(y)
        if self.found is not None:  # /find's words, marked over the cached line
            from navtui.widgets.found import mark_words

            return mark_words(strip, self.found[0], self.found[1])
        return strip

    def _line(self, y: int) -> Strip:
        document = self._document
        width = self.size.width
        if y < document.shown:
            strips = self._strips
            strip = strips.get(y)
            if strip is None:
                strip = strips[y] = Strip(document.line(y), width)
                if len(strips) > STRIP_CACHE:
                    strips.popitem(last=False)
            else:
                strips.move_to_end(y)
            return strip
        y -= document.shown
        if document.tail_blank:
            if y == 0:
                return Strip.blank(width, self._style)
            y -= 1
        if y < len(document.tail_lines):
            return Strip(document.tail_lines[y], width)
        return Strip.blank(width, self._style)
