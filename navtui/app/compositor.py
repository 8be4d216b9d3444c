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

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


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
