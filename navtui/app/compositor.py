"""The main screen's compositor: a partial update renders only the lines it will send.

For a partial update (a key echoed in the prompt, a status line tick), Textual 8.2 asks every widget whose
*clip* overlaps the updated region for all of its lines, then keeps only the updated ones. A top-level
widget's clip is the whole screen, so an echo of one character fetched every visible line of the screen,
the transcript and its scrollbar (~80 lines, each passed through the line filters again), to send three.
Here a widget is asked only for the rows of the updated region that it covers. Rows outside that region are
never used by ``_render_chops`` (it paints only rows in the update's spans), so the frame is the same.

Measured on the idle echo path (bench/bench_terminal.py probes, 120x40): lines rendered per echo frame 80 ->
6. This belongs upstream in Textual (``Compositor._get_renders`` could intersect each region with the crop);
until then it is a subclass, checked against the version pinned in pyproject.toml.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.console import RenderableType
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

from navtui.app.screen_image import DiffUpdate, Row, ScreenImage

if TYPE_CHECKING:
    from textual.screen import Screen


class CroppedCompositor(Compositor):
    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None:
            yield from super()._get_renders(crop)
            return
        # A widget is asked for the rows of ``crop`` it covers, across its whole visible width: its strips then
        # start at its own edge, which is one of the compositor's cuts, as ``_render_chops`` needs. A widget
        # beside the crop (the transcript's text, for a scrollbar-only frame) is not asked at all; every chop
        # the update sends lies inside some widget that overlaps the crop, so none is left unpainted.
        top, bottom = crop.y, crop.bottom
        for widget, (region, clip) in list(self.visible_widgets.items()):
            visible = region.intersection(clip)
            if not visible.overlaps(crop):
                continue
            y = max(visible.y, top)
            height = min(visible.bottom, bottom) - y
            strips = widget.render_lines(Region(visible.x - region.x, y - region.y, visible.width, height))
            yield region, Region(visible.x, y, visible.width, height), strips


class DiffingCompositor(CroppedCompositor):
    """A compositor whose frames write only the cells that changed (``screen_image``), when given the
    terminal's ``image``; screenshots and frames without an image are Textual's own."""

    image: ScreenImage | None = None

    def render_update(
        self, full: bool = False, screen_stack: list[Screen] | None = None, simplify: bool = False
    ) -> RenderableType | None:
        update = super().render_update(full, screen_stack, simplify)
        image = self.image
        if image is None or full or simplify or update is None:  # a screenshot (full=True) prints the update
            return update
        image.begin(self.size.width, self.size.height)
        if isinstance(update, LayoutUpdate):
            rows = {
                y: image.row_of([(update.region.x, Strip.join(line))])
                for y, line in enumerate(update.strips, update.region.y)
            }
            return DiffUpdate(image, rows)
        if isinstance(update, ChopsUpdate):
            return _chops_to_diff(image, update) or update
        return update


def _chops_to_diff(image: ScreenImage, update: ChopsUpdate) -> DiffUpdate | None:
    """The rows a partial update paints, over what the terminal shows; ``None`` when a row it touches is not
    known and the update does not cover it whole (then Textual's update is written and the rows stay unknown).

    Only the cells inside the update's spans are taken. A row's chops outside them are not what the screen
    shows: ``CroppedCompositor`` asks only the widgets that overlap the update, so for a scrollbar-only update
    the transcript's own background fills the chops its text would have covered (the text was not asked). Taking
    those cells blanked the whole transcript for one frame while a reply streamed."""
    covered: dict[int, int] = {}
    for y, x1, x2 in update.spans:
        covered[y] = covered.get(y, 0) + (x2 - x1)
    rows: dict[int, Row] = {}
    for y in covered:
        base = image.rows[y] if y < len(image.rows) else None
        if base is None and covered[y] < image.width:
            for unknown in covered:
                if unknown < len(image.rows):
                    image.rows[unknown] = None
            return None
    strips: dict[int, list[tuple[int, Strip]]] = {y: [] for y in covered}
    for y, x1, x2 in update.spans:
        line = update.chops[y]
        for (x, strip), end in zip(line.items(), update.chop_ends[y], strict=False):
            if strip is None or end <= x1 or x >= x2:
                continue
            start, stop = max(x, x1), min(end, x2)
            strips[y].append((start, strip if (start, stop) == (x, end) else strip.crop(start - x, stop - x)))
    for y, row_strips in strips.items():
        base = image.rows[y] if y < len(image.rows) else None
        rows[y] = image.row_of(row_strips, base)
    return DiffUpdate(image, rows)
