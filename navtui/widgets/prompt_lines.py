"""The prompt's plain rows, drawn by navtui: a key's echo without TextArea's line and Textual's styles cache.

At every key the prompt renders the row it changed: TextArea styles the line as a ``rich.Text`` (the cursor, the
cursor line, a selection, brackets, syntax), renders it to segments and pads it; Textual's styles cache then adds
the border and padding around it, row by row (~0.3-0.6 ms of an idle key's ~2.6 ms on the UI loop, measured). A
prompt's row is nearly always plain: prose typed at the cursor, no selection, no highlight, no wide character, a
line that fits. Such a row is built here directly: the text, the cursor's cell and the padding as segments with
the styles TextArea gives them, between the row's edges (border and padding) as Textual last drew them.

The edges are learnt, not worked out: after each row Textual renders (any full repaint: a new theme, focus, a
new size), the row's plain content is built here too and compared with what Textual drew between the edges; only
when they are the same are the edges kept, for the look they were drawn in (``Look``). Any other row, or a row
while the look is not one of a kept drawing, goes through Textual as before (``PromptEditor.render_lines``).

Private names of Textual's relied on (pinned by ``tests/app/test_prompt_lines.py``): ``TextArea._theme``,
``_has_cursor``, ``_draw_cursor``, ``_highlights``, ``_matching_bracket_location``, ``WrappedDocument.
_offset_to_line_info``, ``Widget._styles_cache`` and ``StylesCache._cache`` / ``_dirty_lines``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from rich.segment import Segment
from textual.strip import Strip

if TYPE_CHECKING:
    from rich.style import Style
    from textual.color import Color
    from textual.widgets import TextArea


class Look(NamedTuple):
    """What the row's edges depend on besides the prompt's CSS (``render_key``): its size and focus."""

    render_key: tuple[object, ...]
    width: int
    height: int
    focused: bool


class Edges(NamedTuple):
    left: list[Segment]
    right: list[Segment]
    background: Color  # the filters' background (``StylesCache.render``)


class PlainRows:
    """The edges of the prompt's rows as Textual last drew them, and the plain rows built between them."""

    def __init__(self) -> None:
        self.look: Look | None = None
        self.edges: Edges | None = None
        self.drawn = 0  # rows drawn here (the tests' count)

    def forget(self) -> None:
        self.look = self.edges = None

    def strips(self, area: TextArea, look: Look, base: Style, top: int, bottom: int) -> list[Strip] | None:
        """The widget's rows ``[top, bottom)`` whole, or None when one of them is not plain (or the edges are not
        known for ``look``): Textual draws them then."""
        edges = self.edges
        if edges is None or look != self.look:
            return None
        left, right, background = edges
        gutter = area.styles.gutter
        width = look.width
        filters = area.get_line_filters()
        cache = area._styles_cache
        rows = range(gutter.top, look.height - gutter.bottom)
        strips: list[Strip] = []
        drawn = 0
        for y in range(top, bottom):
            if y not in rows:  # a border's row: as Textual drew it last, unless it is to be drawn again
                strip = cache._cache.get(y)
                if strip is None or y in cache._dirty_lines:
                    return None
            else:
                inner = plain_content(area, y - gutter.top, base)
                if inner is None:
                    return None
                strip = Strip([*left, *inner, *right], width)
                drawn += 1
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip)
        self.drawn += drawn
        return strips

    def learn(self, area: TextArea, look: Look, base: Style, top: int, bottom: int) -> None:
        """After Textual drew the rows ``[top, bottom)``: keep the edges of the first plain one, if what Textual drew
        between them is what ``plain_content`` builds (else the rows keep going through Textual)."""
        if self.look == look and self.edges is not None:
            return
        cache = area._styles_cache
        gutter = area.styles.gutter
        content_width = area.scrollable_content_region.width
        width = look.width
        if content_width <= 0 or gutter.left + content_width > width:
            return
        for y in range(top, bottom):
            drawn = cache._cache.get(y)
            if drawn is None or y in cache._dirty_lines or drawn.cell_length != width:
                continue
            inner = plain_content(area, y - gutter.top, base)
            if inner is None:
                continue
            parts = drawn.divide([gutter.left, gutter.left + content_width, width])
            if len(parts) != 3:
                self.forget()
                return
            left, middle, right = parts
            if list(middle) == inner:
                self.look = look
                self.edges = Edges(list(left), list(right), area.background_colors[1])
            else:
                self.forget()
            return


def plain_content(area: TextArea, content_y: int, base: Style) -> list[Segment] | None:
    """The segments TextArea draws for the content row ``content_y`` (its ``_render_line``), when that row is plain:
    a whole document line of printable ASCII (no tab) that fits the width, no selection, no syntax highlight on
    it, no matched bracket on it, no suggestion, no placeholder, no line numbers, nothing scrolled. Else None."""
    if not base or area.show_line_numbers or not area.soft_wrap or area.suggestion:
        return None
    if area.scroll_offset != (0, 0) or area.show_vertical_scrollbar or area.show_horizontal_scrollbar:
        return None
    start, end = area.selection
    if start != end:
        return None
    document = area.document
    if area.placeholder and document.line_count == 1 and not document[0]:
        return None
    wrapped = area.wrapped_document
    if not 0 <= content_y < wrapped.height:
        return None
    info = wrapped._offset_to_line_info[content_y]
    if info is None:
        return None
    row, section = info
    line = document[row]
    width = area.scrollable_content_region.width
    if section or len(line) >= width or not (line.isascii() and line.isprintable()) or wrapped.get_offsets(row):
        return None
    if area._highlights.get(row):
        return None
    has_cursor = area._has_cursor
    cursor_row, column = end
    matching = area._matching_bracket_location
    if has_cursor and area.match_cursor_bracket and matching is not None and row in (cursor_row, matching[0]):
        return None
    text_style, cursor_style, blank_style = _row_styles(area, base, row == cursor_row)
    text = line + " "  # TextArea's room for the cursor at the end
    segments: list[Segment]
    if cursor_style is not None:
        segments = []
        if column:
            segments.append(Segment(text[:column], text_style))
        segments.append(Segment(text[column], cursor_style))
        if column + 1 < len(text):
            segments.append(Segment(text[column + 1 :], text_style))
    else:
        segments = [Segment(text, text_style)]
    if len(text) < width:
        segments.append(Segment(" " * (width - len(text)), blank_style))
    return segments


def _row_styles(area: TextArea, base: Style, cursor_row: bool) -> tuple[Style, Style | None, Style]:
    """The styles TextArea gives a plain row: its text, the cursor's cell (None: no cursor drawn on it), the blanks
    after its text (the cursor's row may be highlighted)."""
    theme = area._theme
    cursor_line = theme.cursor_line_style if theme and area.highlight_cursor_line and area._has_cursor else None
    if cursor_row and area.highlight_cursor_line:
        line_style = cursor_line  # the padding after the text
    else:
        line_style = theme.base_style if theme is not None else None
    lined = cursor_line if cursor_row and cursor_line else None
    text_style = base + lined if lined is not None else base
    cursor_style = theme.cursor_style if theme is not None else None
    at_cursor = None
    if cursor_row and area._draw_cursor and cursor_style:
        at_cursor = base + (lined + cursor_style if lined is not None else cursor_style)
    return text_style, at_cursor, base + line_style if line_style is not None else base


def end_of_line_styles(area: TextArea, base: Style) -> tuple[Style, Style, Style] | None:
    """The styles ``plain_content`` gives the cursor's row when the cursor is at the end of its line: typed text,
    the cursor's cell, the blanks after it (before the line filters). None when no cursor is drawn
    (``app/local_echo.py`` echoes a key in these looks)."""
    if not base or not area._has_cursor:
        return None
    text_style, at_cursor, blank_style = _row_styles(area, base, cursor_row=True)
    return None if at_cursor is None else (text_style, at_cursor, blank_style)
