"""What a streamed flush costs the screen: only the lines that changed, one layout, and typing goes first."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region

from navtui.app.theme_defaults import nav_defaults
from navtui.widgets import pacing
from navtui.widgets.markdown.document import MarkdownDocument
from navtui.widgets.markdown.render import palette_for
from navtui.widgets.markdown.view import MarkdownView
from navtui.widgets.pacing import InputPacer
from tests.app.conftest import wait_for

CONSOLE = Console(width=60, color_system=None, force_terminal=False)


def render(document: MarkdownDocument) -> int | None:
    return document.render(CONSOLE, 60, Style(), palette_for({}))


def test_a_render_says_from_which_line_the_document_changed() -> None:
    document = MarkdownDocument()
    document.feed("# Title\n\nfirst paragraph\n\nsecond para")
    assert render(document) == 0  # everything is new
    height = document.height
    document.feed("graph grows")
    first = render(document)
    assert document.height == height and first == height - 1  # only the last line of the open paragraph
    document.feed("")
    assert render(document) is None  # nothing changed: nothing to repaint
    document.feed("\n\n- a list starts")
    first = render(document)
    assert first is not None and document.height > height and first >= height - 1  # the lines above stay


class ViewApp(App[None]):
    CSS = "MarkdownView { height: auto; } VerticalScroll { layout: stream; }"

    def __init__(self) -> None:
        super().__init__()
        self.pacer = InputPacer()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return nav_defaults(self.current_theme.to_color_system().generate())

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield MarkdownView("# Title\n\nopening paragraph\n\nthe tail", streaming=True)


async def test_a_flush_that_keeps_the_height_repaints_only_the_changed_line_and_lays_out_nothing() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(MarkdownView)
        await pilot.pause()
        refreshes: list[tuple[tuple[Region, ...], bool]] = []
        original = view.refresh

        def spy(*regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
            refreshes.append((regions, layout))
            return original(*regions, repaint=repaint, layout=layout, recompose=recompose)

        view.refresh = spy  # type: ignore[method-assign]
        height = view.size.height
        view.append(" grows")
        view.flush()
        assert refreshes == [((Region(0, height - 1, view.size.width, 1),), False)]
        refreshes.clear()
        view.append("\n\nanother paragraph")
        view.flush()
        assert refreshes[-1] == ((Region(0, height, view.size.width, 2),), True)  # taller: a layout, the new rows


async def test_a_view_that_grows_restyles_only_its_new_rows() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(MarkdownView)
        await pilot.pause()
        height = view.size.height
        drawn: list[int] = []
        original = view.render_line

        def spy(y: int) -> Any:
            drawn.append(y)
            return original(y)

        view.render_line = spy  # type: ignore[method-assign]
        view.append(" grows\n\nanother paragraph")
        view.flush()
        await wait_for(pilot, lambda: view.size.height > height and bool(drawn))
        await pilot.pause()
        # The open paragraph's last row changed and the new rows came; the title and the first paragraph did not.
        assert drawn and min(drawn) == height - 1
        kept = [strip.text for strip in view.render_lines(view.size.region)]
        view._styles_cache.clear()
        assert [strip.text for strip in view.render_lines(view.size.region)] == kept  # what a whole repaint draws
        assert "another paragraph" in kept[-1] and kept[0].strip() == "Title"


async def test_a_flush_that_grows_the_view_costs_one_layout_not_two() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(MarkdownView)
        await pilot.pause()
        layouts: list[float] = []
        screen = app.screen
        original = screen._refresh_layout

        def count(*args: Any, **kwargs: Any) -> None:
            layouts.append(time.monotonic())
            original(*args, **kwargs)

        screen._refresh_layout = count  # type: ignore[method-assign]
        view.append("\n\na new paragraph\n\nand one more")
        view.flush()
        await wait_for(pilot, lambda: bool(layouts))
        await pilot.pause(0.1)  # several frame periods: a second layout would have come by now
        assert len(layouts) == 1


def test_the_pacer_holds_a_flush_for_an_echo_then_slows_flushes_while_typing() -> None:
    pacer = InputPacer()
    assert pacer.delay(last_flush=0.0) == 0.0  # nobody types: flush when due
    pacer.key()
    assert pacer.typing and pacer.delay(last_flush=0.0) == pacing.RETRY  # the key's echo is not out yet
    pacer.frame()
    now = time.monotonic()
    assert 0 < pacer.delay(last_flush=now) <= pacing.TYPING_INTERVAL  # echoed: flush, but at typing pace
    assert pacer.delay(last_flush=now - pacing.TYPING_INTERVAL) == 0.0
    pacer.key_at -= pacing.TYPING
    assert not pacer.typing and pacer.delay(last_flush=now) == 0.0


async def test_streamed_text_waits_for_a_pending_echo() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(MarkdownView)
        await pilot.pause()
        height = view.size.height
        app.pacer.key()  # a key reached the app and no frame has shown it yet
        app.pacer.frame_at = 0.0
        view.append("\n\nheld back")
        await pilot.pause(3 * MarkdownView.FLUSH_INTERVAL)
        assert view._coalescer.pending and view.size.height == height
        app.pacer.frame()  # the echo went out
        await wait_for(pilot, lambda: not view._coalescer.pending and "held back" in view.text)


async def test_a_long_answer_keeps_only_a_few_screens_of_styled_rows() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(MarkdownView)
        await pilot.pause()
        for step in range(8):
            height = view.size.height
            view.append("".join(f"\n\nparagraph {step}.{n}" for n in range(5)))
            view.flush()
            await wait_for(pilot, lambda height=height: view.size.height > height)
            app.query_one(VerticalScroll).scroll_end(animate=False)  # the transcript follows the answer
            await pilot.pause()
            await pilot.pause()
        assert view.size.height > 80
        assert 0 < len(view._styles_cache._cache) <= 2 * 20 + 10
        kept = [strip.text for strip in view.render_lines(view.size.region)]
        view.finish()
        view.trim(0, 0)  # far off screen: nothing of it is kept
        assert len(view._styles_cache._cache) == 0
        assert [strip.text for strip in view.render_lines(view.size.region)] == kept


async def test_trimming_an_answer_forgets_the_rows_marked_dirty_and_never_drawn() -> None:
    app = ViewApp()
    async with app.run_test(size=(80, 20)) as pilot:
        view = app.query_one(MarkdownView)
        view.append("".join(f"\n\nparagraph {n}" for n in range(60)))
        view.finish()
        await wait_for(pilot, lambda: view.size.height > 100)
        drawn = [strip.text for strip in view.render_lines(view.size.region)]
        view.refresh()  # a whole repaint marks every row; only the screenful on show is drawn again
        await pilot.pause()
        assert len(view._styles_cache._dirty_lines) > 80
        view.trim(0, 20)
        cache = view._styles_cache
        assert set(cache._dirty_lines) <= set(range(20)) and set(cache._cache) <= set(range(20))
        assert [strip.text for strip in view.render_lines(view.size.region)] == drawn  # every row drawn again


async def test_a_frame_between_a_flush_and_its_catch_up_renders_nothing_and_the_catch_up_repaints_it() -> None:
    # A flush that finished a block leaves the open block for a timer a moment later. A frame's layout in
    # between must not render it: the resize would repaint only the rows it adds, and the rows that changed
    # above the old bottom (the old open block's) would stay stale on the terminal. The timer repaints them.
    app = ViewApp()
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.query_one(MarkdownView)
        await pilot.pause()
        document = view._document
        view.append(" grows\n\n```python\ndef f():\n    return 1\n")
        view._coalescer.flush_now()
        assert document.behind and view._catch_up_timer is not None
        shown_before, height = document.shown, document.height
        view.get_content_height(view.size, view.size, view.size.width)  # what a frame's layout asks
        view.render_lines(Region(0, 0, view.size.width, view.size.height))
        assert document.behind and (document.shown, document.height) == (shown_before, height)
        refreshes: list[tuple[Region, ...]] = []
        original = view.refresh

        def spy(*regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Any:
            refreshes.append(regions)
            return original(*regions, repaint=repaint, layout=layout, recompose=recompose)

        view.refresh = spy  # type: ignore[method-assign]
        await wait_for(pilot, lambda: not document.behind)
        await pilot.pause()
        # the catch-up repaints from the first changed line on: the old open block's row ("the tail", now finished)
        assert refreshes and refreshes[0] and refreshes[0][0].y == height - 1
        shown = "\n".join(view.render_line(y).text.rstrip() for y in range(view.size.height))
        assert "the tail grows" in shown and "def f():" in shown and "return 1" in shown
