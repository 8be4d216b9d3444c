"""A vertical scrollbar drawn from a handful of strips, not through Rich's console.

Textual's ``ScrollBar`` renders a Rich renderable: every row of the bar goes through ``Console.render`` and
``Segment.split_and_crop_lines`` into a new strip. The transcript's bar changes with every flush that grows a
streamed answer (its thumb moves), so the whole bar was made again that way ~20 times a second while a reply
streamed: 14,000 strips for one 20,000-token reply, ~5 % of the event loop's samples at 1,000 tok/s.
``LineScrollBar`` asks the same renderer for the same segments (the glyphs, the colours and the mouse actions in
their meta, so pressing and dragging behave as before) and draws each row with a strip it already has: a bar has
at most five different rows (above the thumb, the thumb, below it, and the thumb's two partial ends).
"""

from __future__ import annotations

from typing import Any

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip

_KEPT = 32  # different rows kept (the looks change with the theme, hover and a grab)


class LineScrollBar(ScrollBar):
    """A ``ScrollBar`` whose rows are strips shared by every row that looks the same."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._strips: dict[tuple[str, Style | None, Style, int], Strip] = {}

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()  # the renderer Textual would draw: position, sizes and style
        if not (self.vertical and isinstance(bar, ScrollBarRender)):
            return super().render_lines(crop)
        width, height = self.size
        style = bar.style if isinstance(bar.style, Style) else Style.parse(bar.style)
        segments = self.renderer.render_bar(
            size=height,
            virtual_size=bar.virtual_size,
            window_size=bar.window_size,
            position=bar.position,
            thickness=width,
            vertical=True,
            back_color=style.bgcolor or Color.parse("#555555"),
            bar_color=style.color or Color.parse("bright_magenta"),
        ).segments
        base = self.visual_style.rich_style  # what Textual lays under a rendered segment (``_Styled``)
        strips = self._strips
        if len(strips) > _KEPT:
            strips.clear()
        background = self.background_colors[1]
        filters = self.get_line_filters()
        lines: list[Strip] = []
        for y in crop.line_range:
            if 0 <= y < len(segments):
                text, look, _ = segments[y]
                key = (text, look, base, width)  # the looks added only for a row not drawn yet (every row did)
                strip = strips.get(key)
                if strip is None:
                    strip = strips[key] = Strip([Segment(text, base + look if look is not None else base)], width)
            else:
                strip = Strip.blank(width, base)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            lines.append(strip if (crop.x, crop.right) == (0, width) else strip.crop(crop.x, crop.right))
        return lines
