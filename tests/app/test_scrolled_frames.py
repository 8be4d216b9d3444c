"""A transcript that follows a streamed answer is scrolled by the terminal: the frame repaints only the rows the
scroll brings in, what changed, and the scrollbar's column, and the screen shows what a whole repaint shows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pyte
from textual._compositor import Compositor
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widgets import Static

from navtui.app.compositor import DiffingCompositor
from navtui.app.screen_image import DiffUpdate
from navtui.widgets.items import AssistantItem, NoticeItem
from navtui.widgets.markdown.view import MarkdownView
from tests.app.conftest import AppFactory, main_screen, settle, terminal_output, wait_for
from tests.app.test_echo_frames import emulated_terminal

WIDTH, HEIGHT = 90, 28


def cells(term: pyte.Screen) -> list[list[tuple[object, ...]]]:
    """What a user sees of each cell (a blank shows only its background)."""
    shown = []
    for y in range(term.lines):
        row = []
        for x in range(term.columns):
            cell = term.buffer[y][x]
            if cell.data == " " and not (cell.underscore or cell.strikethrough or cell.reverse):
                row.append((" ", cell.bg))
            else:
                row.append((cell.data, cell.fg, cell.bg, cell.bold, cell.italics, cell.underscore, cell.reverse))
        shown.append(row)
    return shown


def whole_repaint(app: Any) -> pyte.Screen:
    term = pyte.Screen(WIDTH, HEIGHT)
    pyte.ByteStream(term).feed(terminal_output(app).encode())
    return term


ANSWER = "".join(
    f"## Part {n}\n\nParagraph {n}: "
    + " ".join(f"word{n}x{m}" for m in range(40))
    + "\n\n"
    + (f"```python\ndef part_{n}(x):\n    return x * {n}  # a comment\n```\n\n" if n % 3 == 0 else "")
    + (f"- item {n}a\n- item {n}b\n\n" if n % 4 == 1 else "")
    for n in range(14)
)


def count_rows(widget: Any, asked: list[int]) -> None:
    """Note in ``asked`` the height of each crop ``widget`` is asked to render."""
    render_lines = widget.render_lines

    def counted(crop: Region) -> list[Strip]:
        asked.append(crop.height)
        return render_lines(crop)

    widget.render_lines = counted


async def streaming_answer(app: Any, pilot: Any) -> tuple[Any, pyte.Screen, MarkdownView]:
    """The main screen once settled, a terminal its frames are drawn on, and an empty answer streaming in its
    transcript, painted."""
    await settle(app, pilot)
    screen = main_screen(app)
    terminal = emulated_terminal(app, WIDTH, HEIGHT)
    view = screen.transcript.add(AssistantItem(streaming=True))
    assert isinstance(view, MarkdownView)
    await screen.transcript.mount_pending()
    await screen.painted()
    return screen, terminal, view


async def streamed(pilot: Any, screen: Any, view: MarkdownView) -> AsyncIterator[int]:
    """``ANSWER`` appended in pieces, each flushed by the view and painted; yields the position of each."""
    for position in range(0, len(ANSWER), 97):
        view.append(ANSWER[position : position + 97])
        await wait_for(pilot, lambda: not view._coalescer.pending and not view._document.behind)
        await screen.painted()
        await pilot.pause()
        yield position


async def test_a_followed_answer_is_scrolled_by_the_terminal_and_shows_what_a_whole_repaint_shows(
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        terminal = emulated_terminal(app, WIDTH, HEIGHT)
        frames: list[tuple[bool, int, int]] = []  # each frame: scrolled, the answer's rows asked for, shown
        asked: list[int] = []
        display = app._display
        transcript = screen.transcript

        def noted(on: Any, renderable: Any) -> None:
            if isinstance(renderable, DiffUpdate):
                shown = view.region.intersection(transcript.region).height
                frames.append((bool(renderable.scrolls), sum(asked), shown))
            asked.clear()
            display(on, renderable)

        transcript.add(NoticeItem(text="a notice above the answer"))
        view = transcript.add(AssistantItem(streaming=True))
        assert isinstance(view, MarkdownView)
        await transcript.mount_pending()
        await screen.painted()
        app._display = noted  # type: ignore[method-assign]
        count_rows(view, asked)
        for number, position in enumerate(range(0, len(ANSWER), 97)):
            if number in (30, 33):
                await pilot.press("pageup")  # scrolled by Textual (not a layout), then followed again
            if number in (31, 34):
                await pilot.press("pagedown", "pagedown", "pagedown")
            if number % 3 == 0:
                await pilot.press("x")  # typed while it streams: the echo's frame, then the transcript's
            view.append(ANSWER[position : position + 97])  # flushed by the view's own timer, as a stream is
            await wait_for(pilot, lambda: not view._coalescer.pending and not view._document.behind)
            await screen.painted()
            await pilot.pause()
            # The transcript's rows as a whole repaint of the screen leaves them (the status line ticks apart)
            assert cells(terminal)[:-1] == cells(whole_repaint(app))[:-1], (
                number,
                frames[-3:],
                "\n".join(terminal.display),
            )
            asked.clear()
        scrolled = [(rows, shown) for scroll, rows, shown in frames if scroll]
        assert len(scrolled) >= 10, frames  # the transcript followed the answer by the terminal's scrolls
        # a scrolled frame asks the answer for the rows the scroll brought in and what changed, not every row shown
        # (2-9 of 23 while it fills the transcript; every row, and no scroll, without the band)
        full = [(rows, shown) for rows, shown in scrolled if shown > 12]
        assert sum(rows for rows, _ in full) < sum(shown for _, shown in full) / 3, scrolled
        view.finish()
        await screen.painted()
        await pilot.pause()
        assert cells(terminal)[:-1] == cells(whole_repaint(app))[:-1]
        assert "word13x39" in "\n".join(terminal.display)


async def test_a_widget_laid_over_the_band_keeps_it_from_scrolling(make_app: AppFactory) -> None:
    # A widget laid over the transcript's rows (an overlay) does not move with them, so such a frame is Textual's
    # whole repaint of the moved rows, not a scroll.
    app = make_app()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        screen, terminal, view = await streaming_answer(app, pilot)
        transcript = screen.transcript
        over = Static("laid over the transcript", id="over")
        over.styles.overlay = "screen"
        over.styles.position = "absolute"
        over.styles.offset = (10, 6)
        over.styles.width, over.styles.height = 30, 3
        over.styles.background = "red"
        await screen.mount(over)
        await wait_for(pilot, lambda: over.region.overlaps(transcript.region))
        for n in range(30):
            view.append(f"Line {n} of an answer a widget is laid over.\n\n")
            await wait_for(pilot, lambda: not view._coalescer.pending and not view._document.behind)
            await screen.painted()
            await pilot.pause()
            assert cells(terminal)[:-1] == cells(whole_repaint(app))[:-1], (n, "\n".join(terminal.display))
        assert "laid over the transcript" in "\n".join(terminal.display)


async def test_a_widget_is_not_asked_for_rows_a_widget_in_front_of_it_paints(make_app: AppFactory) -> None:
    # The first strip for a cut wins (Textual paints front first), so the transcript and the screen behind the
    # scrollbar's column, or behind the answer's changed rows, are not asked for those rows: a scrolled frame of a
    # followed answer asked the screen for every row of the scrollbar's column, each cut into chops and dropped
    # (2,692 rows in the 117 frames of this answer). What reaches the terminal is what a whole repaint shows.
    app = make_app()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        screen, terminal, view = await streaming_answer(app, pilot)
        asked: dict[str, int] = {"screen": 0, "answer": 0}
        frames: list[bool] = []
        display = app._display

        def noted(on: Any, renderable: Any) -> None:
            if isinstance(renderable, DiffUpdate):
                frames.append(bool(renderable.scrolls))
            display(on, renderable)

        app._display = noted  # type: ignore[method-assign]
        for name, widget in (("screen", screen), ("answer", view)):
            render_lines = widget.render_lines

            def counted(crop: Region, name: str = name, render_lines: Any = render_lines) -> list[Strip]:
                asked[name] += crop.height
                return render_lines(crop)

            widget.render_lines = counted  # type: ignore[method-assign]
        async for _ in streamed(pilot, screen, view):
            counted_so_far = dict(asked)
            assert cells(terminal)[:-1] == cells(whole_repaint(app))[:-1], "\n".join(terminal.display)
            asked.update(counted_so_far)  # what the whole repaint asked is not a frame's
        assert sum(frames) >= 10, frames  # scrolled by the terminal, the scrollbar's column repainted each time
        assert asked["answer"] > 0
        assert asked["screen"] == 0, (asked, len(frames))  # every row it covers, a widget in front of it paints


async def test_a_uniform_column_beside_the_band_is_repainted_only_where_the_scroll_brings_rows_in(
    make_app: AppFactory,
) -> None:
    # The transcript's padding column shows one same cell on every row, painted by a widget that did not change:
    # the terminal's scroll leaves it right but for the rows it brings in. It was repainted whole at every scrolled
    # frame (the transcript asked for each of its rows, every row cut, turned into cells and compared).
    app = make_app()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        screen, terminal, view = await streaming_answer(app, pilot)
        transcript = screen.transcript
        asked: list[int] = []
        frames: list[tuple[int, int]] = []  # each scrolled frame: by how many rows, the transcript's rows asked
        display = app._display

        def noted(on: Any, renderable: Any) -> None:
            if isinstance(renderable, DiffUpdate) and renderable.scrolls:
                frames.append((renderable.scrolls[0][2], sum(asked)))
            asked.clear()
            display(on, renderable)

        app._display = noted  # type: ignore[method-assign]
        count_rows(transcript, asked)
        async for _ in streamed(pilot, screen, view):
            assert cells(terminal)[:-1] == cells(whole_repaint(app))[:-1], "\n".join(terminal.display)
            asked.clear()  # what the whole repaint asked is not a frame's
        assert len(frames) >= 10, frames
        assert all(rows <= by for by, rows in frames), frames  # the rows brought in, not the band's height


def test_the_compositor_state_textual_keeps_is_what_the_scroll_reads() -> None:
    # ``DiffingCompositor`` reads Textual's private layout state: the full map a layout makes, the visible map of a
    # scroll of its own, the dirty regions and how they become spans. A Textual release that renames any of them
    # must fail here, not quietly scroll nothing.
    compositor = DiffingCompositor()
    assert isinstance(compositor, Compositor)
    assert compositor._full_map == {} and compositor._visible_map is None and compositor._dirty_regions == set()
    spans = list(compositor._regions_to_spans([Region(0, 1, 4, 2), Region(2, 1, 4, 1)]))
    assert spans == [(1, 0, 6), (2, 0, 4)]
    assert isinstance(Size(1, 1).region, Region)
