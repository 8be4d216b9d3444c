"""What a key's frame costs and when it goes out: only the widgets under the update are asked for lines, the
same bytes as Textual's own compositor, and the echo does not wait for Textual's update timer."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pyte
from textual import events
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from navtui.app.compositor import CroppedCompositor, DiffingCompositor
from navtui.app.screen_image import ScreenImage
from tests.app.conftest import AppFactory, main_screen, settle


class Counted(Static):
    """A Static that counts the lines it is asked for."""

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(text, **kwargs)
        self.asked: list[int] = []

    def render_lines(self, crop: Region) -> list[Strip]:
        self.asked.append(crop.height)
        return super().render_lines(crop)


class Layout(Screen[None]):
    """A transcript of long text above a one-line prompt and a status line, as on the main screen."""

    CSS = """
    VerticalScroll { height: 1fr; scrollbar-gutter: stable; }
    #body { height: auto; }
    #prompt, #status { height: 1; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Counted("\n".join(f"line {n} of the answer" for n in range(60)), id="body")
        yield Counted("the prompt", id="prompt")
        yield Counted("the status line", id="status")


class LayoutApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Layout())


def partial_update(compositor: Compositor, screen: Screen[None], regions: list[Region], app: App[None]) -> str:
    compositor.reflow(screen, screen.size)
    compositor._dirty_regions.clear()
    compositor._dirty_regions.update(regions)
    update = compositor.render_partial_update()
    assert update is not None
    return update.render_segments(app.console)


async def test_a_partial_update_asks_only_the_widgets_under_it_and_writes_the_same_bytes() -> None:
    app = LayoutApp()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        screen = app.screen
        body, prompt, status = (screen.query_one(f"#{name}", Counted) for name in ("body", "prompt", "status"))
        scroll = screen.query_one(VerticalScroll)
        scrollbar_column = Region(scroll.region.right - 1, scroll.region.y, 1, scroll.region.height)
        visible_body = body.region.intersection(scroll.region)
        for regions in ([prompt.region], [prompt.region, status.region], [scrollbar_column], [visible_body]):
            expected = partial_update(Compositor(), screen, regions, app)
            for widget in (body, prompt, status):
                widget.asked.clear()
            assert partial_update(CroppedCompositor(), screen, regions, app) == expected
            if regions == [prompt.region]:
                assert body.asked == [] and prompt.asked == [1] and status.asked == []  # Textual asks them all
            if regions == [scrollbar_column]:
                assert body.asked == []  # beside the scrollbar: not asked


async def test_a_scrollbar_only_frame_leaves_the_text_beside_it_on_the_terminal() -> None:
    # A scrollbar-only update asks the scroll container (it overlaps the update) but not the text beside the
    # scrollbar: the rows' chops outside the update hold the container's blank background. The frame must write
    # the scrollbar's column only; it wrote those blanks too, and a streamed reply's transcript went blank for a
    # frame whenever only the scrollbar's thumb moved.
    app = LayoutApp()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        screen = app.screen
        scroll = screen.query_one(VerticalScroll)
        compositor = DiffingCompositor()
        compositor.image = ScreenImage(app.console, erase=True)
        compositor.reflow(screen, screen.size)
        terminal = pyte.Screen(60, 20)
        stream = pyte.ByteStream(terminal)

        def frame(*regions: Region) -> str:
            compositor._dirty_regions.clear()
            compositor._dirty_regions.update(regions)
            update = compositor.render_update()
            assert update is not None
            written = update.render_segments(app.console)
            stream.feed(written.encode())
            return written

        frame(screen.region)  # the whole screen: the image now knows every row
        shown = list(terminal.display)
        assert "line 0 of the answer" in shown[0]
        written = frame(Region(scroll.region.right - 1, scroll.region.y, 1, scroll.region.height))
        assert terminal.display == shown
        assert {column for _, column in re.findall(r"\x1b\[(\d+);(\d+)H", written)} <= {"60"}, written
        rows = compositor.image.rows
        assert all(row is not None and "line" in "".join(row.cells) for row in rows[: scroll.region.height])


async def test_the_main_screen_uses_the_cropped_compositor(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        assert isinstance(main_screen(app)._compositor, CroppedCompositor)


async def test_a_key_is_echoed_without_waiting_for_the_update_timer(make_app: AppFactory) -> None:
    # While a reply streams, Textual's update timer keeps ticking at 60 Hz and a key's frame waited for the next
    # tick. Here the timer is stopped outright: the echo can only come from the screen's own idle handler.
    # (The pilot's own pauses paint by calling the timer's callback: the key is posted and awaited without them.)
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        screen._update_timer.stop()
        frames_before = app.pacer.frame_at
        app.post_message(events.Key("x", "x"))
        for _ in range(250):
            if app.pacer.frame_at > frames_before and not app.pacer.echo_pending:
                break
            await asyncio.sleep(0.02)
        assert app.pacer.frame_at > frames_before, "no frame showed the key"
        prompt_row = screen.query_one("#prompt").region.y + 1
        assert "x" in screen._compositor.render_strips()[prompt_row].text
