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

A transcript that follows a streamed answer scrolls at almost every frame, and Textual repaints a scrolled
container whole: every widget in it moved, so its whole viewport is dirty, and each row was rendered, cut into
chops, turned into cells and compared with the screen's image, to find that most rows had only moved up.
``DiffingCompositor`` sees the scroll in the layout (``reflow``): when every visible widget that changed moved up
by the same rows inside one clip (the last one may have grown), it keeps the band's rows as the terminal has them,
scrolls them there (``DiffUpdate.scrolls``), and repaints only the rows the scroll brought in, what the widgets
marked as changed (moved with them), and the columns beside the band on its rows (the scrollbar); a column
beside it that shows one same cell on every row, painted by widgets that did not change (the transcript's
padding), only where the scroll brings rows in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rich.console import RenderableType
from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate, ReflowResult
from textual.geometry import Region, Size
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from navtui.app.screen_image import DiffUpdate, Row, ScreenImage, shifted

if TYPE_CHECKING:
    from textual._compositor import CompositorMap
    from textual.screen import Screen
    from textual.widget import Widget

    from navtui.app.local_echo import LocalEcho

Band = tuple[int, int, int]  # rows [top, bottom) whose content moved up ``by`` rows


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
        spans = self._spans
        # The columns of the update's spans that no widget in front has covered yet, by row (widgets come front
        # first, and the first strip for a cut wins in ``_render_chops``)
        uncovered = None if spans is None else {y: list(row) for y, row in spans.items()}
        for widget, (region, clip) in list(self.visible_widgets.items()):
            visible = region.intersection(clip)
            if not visible.overlaps(crop):
                continue
            y = max(visible.y, top)
            height = min(visible.bottom, bottom) - y
            # Only the rows where the update paints inside the widget's columns and no widget in front of it paints
            # there already (a scrolled band's rows are painted only beside it, in the scrollbar's column: neither
            # the widgets in the band nor the transcript and the screen behind the scrollbar are asked for them)
            runs = [(y, height)] if uncovered is None else _row_runs(uncovered, y, y + height, visible.x, visible.right)
            for run_y, run_height in runs:
                strips = widget.render_lines(Region(visible.x - region.x, run_y - region.y, visible.width, run_height))
                yield region, Region(visible.x, run_y, visible.width, run_height), strips

    _spans: dict[int, list[tuple[int, int]]] | None = None  # the update's spans by row, while it is rendered


def _row_runs(
    uncovered: dict[int, list[tuple[int, int]]], top: int, bottom: int, x1: int, x2: int
) -> list[tuple[int, int]]:
    """Runs ``(y, height)`` of rows in ``[top, bottom)`` where a column range of ``uncovered`` overlaps the columns
    ``[x1, x2)``; those columns are then taken out of ``uncovered`` on every row of ``[top, bottom)`` (the widget
    asked for them paints them, and a widget behind it there would not be seen)."""
    runs: list[tuple[int, int]] = []
    start = -1
    get = uncovered.get
    for y in range(top, bottom):
        row = get(y)
        hit = False
        if row:
            left: list[tuple[int, int]] = []
            for span_start, span_end in row:
                if span_start < x2 and span_end > x1:
                    hit = True
                    if span_start < x1:
                        left.append((span_start, x1))
                    if span_end > x2:
                        left.append((x2, span_end))
                else:
                    left.append((span_start, span_end))
            if hit:
                uncovered[y] = left
        if hit:
            if start < 0:
                start = y
        elif start >= 0:
            runs.append((start, y - start))
            start = -1
    if start >= 0:
        runs.append((start, bottom - start))
    return runs


class DiffingCompositor(CroppedCompositor):
    """A compositor whose frames write only the cells that changed (``screen_image``), when given the
    terminal's ``image``; screenshots and frames without an image are Textual's own. A layout that only scrolled
    a band of rows up is painted as that scroll and the rows it brings in (``reflow``)."""

    image: ScreenImage | None = None
    echo: LocalEcho | None = None  # the keys the driver's input thread echoed (app/local_echo.py)
    _band: Band | None = None  # the scroll the next update starts with

    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        # The layout the screen shows: after a scroll of Textual's own (``reflow_visible``: a key, the wheel) the
        # visible widgets' map, which the full map is not brought up to date with
        old_map = self._visible_map if self._visible_map is not None else self._full_map
        old_size = self.size
        before = set(self._dirty_regions)  # in the old layout's places (``update_widgets`` ran before this)
        result = super().reflow(parent, size)
        pending, self._band = self._band, None
        if pending is not None:  # laid out twice before a paint: the first scroll's rows are painted whole
            top, bottom, _ = pending
            self._dirty_regions.add(Region(0, top, size.width, bottom - top))
            return result
        if self.image is None or size != old_size or size.region in before:
            return result
        found = _scrolled(old_map, self._full_map, before, size, self._uniform)
        if found is not None:
            self._band, dirty = found
            self._dirty_regions.clear()
            self._dirty_regions.update(dirty)
        return result

    def _uniform(self, region: Region) -> bool:
        """The terminal shows one same cell (text and looks) in each column of ``region`` on all of its rows."""
        image = self.image
        if image is None or region.bottom > len(image.rows):
            return False
        x1, x2 = region.x, region.right
        first = image.rows[region.y]
        if first is None:
            return False
        cells, looks = first.cells[x1:x2], first.looks[x1:x2]
        for y in range(region.y + 1, region.bottom):
            row = image.rows[y]
            if row is None or row.cells[x1:x2] != cells or row.looks[x1:x2] != looks:
                return False
        return True

    def render_update(
        self, full: bool = False, screen_stack: list[Screen] | None = None, simplify: bool = False
    ) -> RenderableType | None:
        band, self._band = self._band, None
        image = self.image
        echo = self.echo
        if image is None or full or simplify:
            if echo is not None:
                echo.render_begins(None)  # no key is echoed while a whole frame is made
            if band is not None:
                self._dirty_regions.add(self.size.region)  # the scroll's rows were not marked: all of them
            return super().render_update(full, screen_stack, simplify)
        self._spans = {}
        for y, x1, x2 in self._regions_to_spans(self._dirty_regions):
            self._spans.setdefault(y, []).append((x1, x2))
        if echo is not None:  # keys are echoed meanwhile unless the frame paints the echo's row
            echo.render_begins(self._spans.keys(), band)
        try:
            update = super().render_update(full, screen_stack, simplify)
        finally:
            self._spans = None
        if update is None:
            return None
        image.begin(self.size.width, self.size.height)
        if echo is not None:
            echo.overlay(image)  # the terminal holds the echoes' cells: the frame is diffed against them
        if isinstance(update, LayoutUpdate):
            return _whole(image, update)
        if isinstance(update, ChopsUpdate):
            if band is None:
                return _chops_to_diff(image, update) or update
            # The rows as the terminal has them once the band scrolled (the image follows when the frame is
            # written: ``DiffUpdate.scrolls``); rows it cannot scroll into place, or a row the update does not
            # know, and the screen is written whole.
            known = shifted(image.rows, *band) if all(image.rows[band[0] + band[2] : band[1]]) else None
            diff = None if known is None else _chops_to_diff(image, update, known, keep_same=False)
            if diff is None:
                image.invalidate()
                if echo is not None:
                    echo.render_begins(None)  # written whole after all
                return _whole(image, self.render_full_update())
            diff.scrolls = [band]
            return diff
        return update


def _whole(image: ScreenImage, update: LayoutUpdate) -> DiffUpdate:
    rows = {
        y: image.row_of([(update.region.x, Strip.join(line))]) for y, line in enumerate(update.strips, update.region.y)
    }
    return DiffUpdate(image, rows)


def _scrolled(
    old: CompositorMap,
    new: CompositorMap,
    before: set[Region],
    size: Size,
    uniform: Callable[[Region], bool] | None = None,
) -> tuple[Band, set[Region]] | None:
    """When the layout from ``old`` to ``new`` only scrolled one band of rows up: the band and what to repaint
    (the rows brought in, what the widgets had marked, moved with them, and the band's rows beside it, unless
    ``uniform`` says the terminal shows one same cell on every row of that side)."""
    band: Region | None = None
    by = 0
    moved: set[Widget] = set()
    grown: list[tuple[Region, Region]] = []  # (visible region, the rows it grew by) of widgets that grew
    others: list[Region] = []  # the dirty regions of changes outside the band
    for widget, geometry in new.items():
        previous = old.get(widget)
        visible = geometry.clip.intersection(geometry.region)
        if previous is None:
            if visible:
                return None  # a widget shown for the first time
            continue
        if previous == geometry:
            continue
        was = previous.clip.intersection(previous.region)
        if not (visible or was):
            continue  # off screen before and after
        region, old_region = geometry.region, previous.region
        shift = old_region.y - region.y
        if (
            shift > 0
            and geometry.clip == previous.clip
            and (region.x, region.width) == (old_region.x, old_region.width)
            and region.height >= old_region.height
        ):
            if band is None:
                band, by = geometry.clip, shift
            elif (geometry.clip, shift) != (band, by):
                return None
            moved.add(widget)
            if region.height > old_region.height:
                grown.append(
                    (
                        visible,
                        Region(region.x, region.y + old_region.height, region.width, region.height - old_region.height),
                    )
                )
            continue
        if region == old_region and geometry.clip == previous.clip:
            continue  # its place is as it was (a container scrolled: its own background does not move)
        others.extend(part for part in (visible, was) if part)
    if band is None or not 0 < by < band.height:
        return None
    for widget, geometry in old.items():
        if widget not in new and geometry.clip.intersection(geometry.region):
            return None  # a widget hidden or removed (the "new output" hint): its cells are repainted
    # Every other widget painted on the band's rows must be one of the moved ones or an ancestor of them (its
    # background shows between them): anything else there (a docked hint, an overlay) would move with the rows.
    ancestors = {ancestor for widget in moved for ancestor in widget.ancestors}
    for widget, geometry in new.items():
        if widget in moved or widget in ancestors:
            continue
        if geometry.clip.intersection(geometry.region).overlaps(band):
            return None
    if any(region.overlaps(band) for region in others):
        return None
    dirty = set(others)
    dirty.add(Region(band.x, band.bottom - by, band.width, by))  # the rows the scroll brings in
    for visible, new_rows in grown:
        if part := visible.intersection(new_rows):
            dirty.add(part)
    for side in (
        Region(0, band.y, band.x, band.height),
        Region(band.right, band.y, size.width - band.right, band.height),
    ):
        if not side:
            continue
        if uniform is not None and _unchanged(side, old, new, before) and uniform(side):
            # The same cell on every row (a padding, a margin), painted by widgets that did not change: the scroll
            # leaves each row as it was, but for the rows it brings in
            dirty.add(Region(side.x, band.bottom - by, side.width, by))
        else:
            dirty.add(side)  # beside the band (the scrollbar, a margin): the terminal moves those cells too
    for region in before:
        if not region.overlaps(band):
            dirty.add(region)
            continue
        for part in _outside(region, band):
            dirty.add(part)
        if moved_part := region.intersection(band).translate((0, -by)).intersection(band):
            dirty.add(moved_part)  # a widget's own change, where its rows are now
    return (band.y, band.bottom, by), dirty


def _unchanged(side: Region, old: CompositorMap, new: CompositorMap, before: set[Region]) -> bool:
    """Every widget painted in ``side`` paints what it painted before: in the same place, nothing of it marked to be
    repainted, and not a scrollbar (its thumb moves with the scroll, and it asks for its repaint after the layout)."""
    if any(region.overlaps(side) for region in before):
        return False
    for widget, geometry in new.items():
        if not geometry.clip.intersection(geometry.region).overlaps(side):
            continue
        previous = old.get(widget)
        if isinstance(widget, ScrollBar) or previous is None:
            return False
        if (previous.region, previous.clip) != (geometry.region, geometry.clip):
            return False
    return True


def _outside(region: Region, band: Region) -> list[Region]:
    """The parts of ``region`` outside ``band``."""
    parts = [
        Region(region.x, region.y, region.width, band.y - region.y),  # above
        Region(region.x, band.bottom, region.width, region.bottom - band.bottom),  # below
    ]
    middle_top, middle_bottom = max(region.y, band.y), min(region.bottom, band.bottom)
    if middle_bottom > middle_top:
        parts.append(Region(region.x, middle_top, band.x - region.x, middle_bottom - middle_top))  # left
        parts.append(Region(band.right, middle_top, region.right - band.right, middle_bottom - middle_top))  # right
    return [part.intersection(region) for part in parts if part.width > 0 and part.height > 0]


def _chops_to_diff(
    image: ScreenImage, update: ChopsUpdate, known: list[Row | None] | None = None, keep_same: bool = True
) -> DiffUpdate | None:
    """The rows a partial update paints, over what the terminal shows; ``None`` when a row it touches is not
    known and the update does not cover it whole (then Textual's update is written and the rows stay unknown).

    Only the cells inside the update's spans are taken. A row's chops outside them are not what the screen
    shows: ``CroppedCompositor`` asks only the widgets that overlap the update, so for a scrollbar-only update
    the transcript's own background fills the chops its text would have covered (the text was not asked). Taking
    those cells blanked the whole transcript for one frame while a reply streamed. ``known``: the rows the
    terminal will hold when the update's cells are written (after a scroll), if not the image's; without
    ``keep_same``, a row whose few painted cells are the ones it holds already is left out."""
    known = image.rows if known is None else known
    covered: dict[int, int] = {}
    for y, x1, x2 in update.spans:
        covered[y] = covered.get(y, 0) + (x2 - x1)
    rows: dict[int, Row] = {}
    for y in covered:
        base = known[y] if y < len(known) else None
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
        base = known[y] if y < len(known) else None
        if not keep_same and base is not None and image.paints_same(row_strips, base):
            continue
        rows[y] = image.row_of(row_strips, base)
    return DiffUpdate(image, rows)
