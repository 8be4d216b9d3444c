"""What a key's frame costs and when it goes out: only the widgets under the update are asked for lines, the
same bytes as Textual's own compositor, the echo does not wait for Textual's update timer, and a key goes before
the streamed answer's frames (from the moment the terminal driver reads it)."""

from __future__ import annotations

import asyncio
import collections
import os
import re
import sys
import threading
import time
from typing import Any

import pyte
from textual import events, messages
from textual._compositor import ChopsUpdate, Compositor
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static
from textual.widgets._toast import Toast

from navtui.app.app import NavtuiApp
from navtui.app.compositor import CroppedCompositor, DiffingCompositor
from navtui.app.driver import FrameWriter, KeyNoticingDriver
from navtui.app.local_echo import LocalEcho
from navtui.app.screen_image import DiffUpdate, ScreenImage
from navtui.app.screens.main import MainScreen
from navtui.widgets import pacing
from navtui.widgets.items import AssistantItem
from navtui.widgets.pacing import InputPacer
from navtui.widgets.prompt import PromptEditor
from navtui.widgets.status_line import StatusLine
from navtui.widgets.transcript import AssistantView
from tests.app.conftest import AppFactory, main_screen, rendered_text, settle, terminal_output, wait_for
from tests.fakes import Text


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


async def test_a_typed_key_goes_through_few_message_queues_and_its_frame_writes_its_line(make_app: AppFactory) -> None:
    # The key's own path (widgets/prompt.py): the key goes from the app to the prompt, where its binding runs
    # (backspace did not bubble back up to the app), the prompt's Changed stops there (the screen paints the
    # border's mode through the prompt's ``changed``), nothing posts the cursor's move, and the prompt repaints
    # the line it changed: the frame writes that row, not the border's.
    dispatched: list[str] = []
    names = {"Key", "Changed", "SelectionChanged"}
    app = make_app()

    def hook(message: object) -> None:
        if type(message).__name__ in names:
            dispatched.append(type(message).__name__)

    async with app.run_test(size=(100, 32), message_hook=hook) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        screen._update_timer.stop()
        frames = recorded_frames(app)
        prompt = screen.query_one(PromptEditor)
        text_row = prompt.content_region.y
        for key, character, text in (("x", "x", "x"), ("y", "y", "xy"), ("backspace", None, "x")):
            dispatched.clear()
            frames.clear()
            app.post_message(events.Key(key, character))
            await until(lambda text=text: bool(frames) and prompt.text == text and not app.pacer.echo_pending)
            await pilot.pause()
            assert sorted(dispatched) == ["Changed", "Key", "Key"], key
            assert rows_of(frames[0]) == {text_row}, key


def rows_of(update: object) -> set[int]:
    """The screen rows a frame writes."""
    if isinstance(update, DiffUpdate):
        return set(update.rows)
    assert isinstance(update, ChopsUpdate), update
    return {y for y, _, _ in update.spans}


async def streamed_answer(app: NavtuiApp, pilot: Any) -> tuple[MainScreen, AssistantView, list[object]]:
    """The main screen with a streaming answer on it, its update timer stopped (only the code under test paints),
    and the list the frames sent from then on go to."""
    await settle(app, pilot)
    screen = main_screen(app)
    view = screen.transcript.add(AssistantItem(streaming=True))
    assert isinstance(view, AssistantView)
    view.append("the answer starts\n\n")
    view.flush()
    await wait_for(pilot, lambda: "the answer starts" in rendered_text(view))
    screen._update_timer.stop()
    return screen, view, recorded_frames(app)


def recorded_frames(app: NavtuiApp) -> list[object]:
    """The list each frame the app sends from now on goes to (and is written as before)."""
    frames: list[object] = []
    display = app._display

    def sent(on: Any, renderable: Any) -> None:
        if renderable is not None:
            frames.append(renderable)
        display(on, renderable)

    app._display = sent  # type: ignore[method-assign]
    return frames


async def until(condition: Any) -> None:
    """Wait (on the loop, without the pilot's pauses: they paint) until ``condition()`` holds."""
    for _ in range(250):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"condition not met: {condition}")


async def test_a_keys_echo_goes_out_before_the_streamed_answer_that_grew(make_app: AppFactory) -> None:
    # The answer grew (a layout of the transcript is pending) when a key came: the key's frame paints the prompt
    # only, and the transcript's layout and repaint go out at the update timer's next tick.
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        screen, view, frames = await streamed_answer(app, pilot)
        height = view.region.height
        view.append("a second paragraph\n\nand a third one\n\n")
        view.flush()
        await until(lambda: screen._layout_required)
        app.post_message(events.Key("x", "x"))
        await until(lambda: bool(frames) and not app.pacer.echo_pending)
        prompt = screen.query_one("#prompt")
        outside = set(range(prompt.region.y, screen.size.height))  # the prompt box and the status line below it
        assert all(rows_of(frame) <= outside for frame in frames), [rows_of(frame) for frame in frames]
        assert "x" in screen._compositor.render_strips()[prompt.region.y + 1].text
        assert screen._layout_required and view.region.height == height  # the transcript waits for the timer
        screen._on_timer_update()  # its next tick
        assert not screen._layout_required and view.region.height > height
        assert any("and a third one" in line for line in rendered_text(view).splitlines())
        assert any(rows_of(frame) - outside for frame in frames[1:])  # the transcript's rows went out


async def test_a_key_read_from_the_terminal_goes_before_a_frame_of_streamed_output(make_app: AppFactory) -> None:
    # The driver notes a key when its input thread reads it: until the app has handled it, a frame of the stream
    # waits for the timer's next tick (and the key's own frame may carry it before).
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        screen, view, frames = await streamed_answer(app, pilot)
        view.append("more of the answer\n\n")
        view.flush()
        await until(lambda: screen._layout_required)
        app.pacer.read()  # as KeyNoticingDriver does on the input thread
        screen._on_timer_update()
        assert frames == [] and screen._layout_required
        app.pacer.key()  # the app handled it
        screen._on_timer_update()
        assert frames and not screen._layout_required


async def test_the_driver_notes_a_key_when_its_input_thread_reads_it(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        assert app.get_driver_class() is KeyNoticingDriver or sys.platform == "win32"
        driver = KeyNoticingDriver(app)
        before = time.monotonic()
        reader = threading.Thread(target=driver.process_message, args=(events.Key("q", "q"),))
        reader.start()
        reader.join()
        assert app.pacer.read_at >= before and app.pacer.key_waiting
        await wait_for(pilot, lambda: "q" in app.query_one("#prompt", PromptEditor).text)
        assert not app.pacer.key_waiting  # the app handled it


class FaultyEcho(LocalEcho):
    def read_event(self, message: object) -> str:
        raise RuntimeError("broken on purpose")


async def test_a_fault_in_the_local_echo_costs_neither_the_key_nor_the_app(make_app: AppFactory) -> None:
    # The echo runs on the driver's input thread, where an exception ended the thread and the app with it (Textual
    # panics). Now the echo is off from that key on, the key still reaches the prompt, and a notice says so.
    app = make_app()
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await settle(app, pilot)
        app.local_echo = FaultyEcho()
        driver = KeyNoticingDriver(app)
        read_end, write_end = os.pipe()
        with os.fdopen(write_end, "w", encoding="utf-8") as terminal:
            driver._frames = FrameWriter(terminal)
            failed: list[BaseException] = []

            def read(key: str) -> None:
                try:
                    driver.process_message(events.Key(key, key))
                except BaseException as exc:  # what would have ended the input thread
                    failed.append(exc)

            for key in "qr":
                reader = threading.Thread(target=read, args=(key,))
                reader.start()
                reader.join()
        os.close(read_end)
        assert failed == [] and app.local_echo is None
        await wait_for(pilot, lambda: app.query_one("#prompt", PromptEditor).text == "qr")
        await wait_for(pilot, lambda: len(app.screen.query(Toast)) == 1)
        assert "broken on purpose" in str(app.screen.query_one(Toast).render())


def test_a_waiting_key_holds_streamed_output_back_for_a_while_only() -> None:
    pacer = InputPacer()
    assert not pacer.key_waiting and not pacer.echo_pending
    pacer.read()
    assert pacer.key_waiting and pacer.echo_pending and pacer.delay(last_flush=0.0) == pacing.RETRY
    pacer.read_at -= pacing.ECHO_WAIT  # a key the app never saw
    assert not pacer.key_waiting
    pacer.read()
    pacer.key()
    assert not pacer.key_waiting and pacer.echo_pending and not pacer.just_echoed
    pacer.frame()
    assert not pacer.echo_pending and pacer.just_echoed
    pacer.echoed_at -= pacing.JUST_ECHOED
    assert not pacer.just_echoed


def test_a_frame_made_before_the_key_reached_the_screen_is_not_its_echo() -> None:
    pacer = InputPacer()
    pacer.read()
    pacer.key()
    pacer.frame(shows_key=False)  # the spinner, painted while the prompt had not applied the key yet
    assert pacer.echo_pending and not pacer.just_echoed
    assert pacer.delay(last_flush=time.monotonic()) == pacing.RETRY  # the stream still waits for the echo
    pacer.frame()
    assert not pacer.echo_pending and pacer.just_echoed
    pacer.read()
    pacer.key()
    pacer.key_at -= pacing.ECHO_WAIT  # a key whose widget never painted anything: waited for a while only
    pacer.read_at = pacer.key_at
    pacer.frame(shows_key=False)
    assert not pacer.echo_pending


async def spinning_after_an_answer(app: Any, pilot: Any) -> tuple[Any, list[Any], StatusLine, PromptEditor, int]:
    """A streamed answer on screen, the status line's spinner going and its frame painted (the timer's tick, as
    while a reply streams): the screen, its recorded frames, the status line, the prompt and the prompt's row."""
    screen, _view, frames = await streamed_answer(app, pilot)
    status = screen.query_one(StatusLine)
    prompt = screen.query_one(PromptEditor)
    status.set_working(True, "working")
    await until(lambda: not status._repaint_required)
    screen._on_timer_update()
    return screen, frames, status, prompt, prompt.content_region.y


async def test_a_keys_echo_is_the_frame_that_shows_it_not_the_spinners_before_it(make_app: AppFactory) -> None:
    # While a reply streams the status line's spinner changes ten times a second. A key handled by the app was
    # counted as echoed by the first frame after it, and the spinner's frame, painted while the key was still on
    # its way through the prompt (its queue, its repaint, its Update to the screen), came first: the stream's
    # flushes and frames then went before the key's own frame (20-40 ms of the slowest echoes).
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        screen, frames, status, prompt, prompt_row = await spinning_after_an_answer(app, pilot)
        shown: list[bool] = []  # each frame from here: the key on the prompt's row
        display = app._display

        def noted(on: Any, renderable: Any) -> None:
            display(on, renderable)
            if renderable is not None:
                shown.append("x" in screen._compositor.render_strips()[prompt_row].text)

        app._display = noted  # type: ignore[method-assign]
        for index in range(3):
            app.pacer.read()
            app.pacer.key()  # the app has handled the key and handed it to the prompt: it is in the prompt's queue
            prompt.post_message(events.Key("x", "x"))
            status.tick(index)
            screen._dirty_widgets.add(status)
            screen._on_timer_update()  # the spinner's frame, before the prompt had the key
            assert shown == [False]
            assert app.pacer.echo_pending  # still to come
            assert app.pacer.delay(last_flush=time.monotonic()) == pacing.RETRY  # the stream's flush waits for it
            await until(lambda: prompt.text == "x" and not app.pacer.echo_pending)
            assert shown[-1] and len(shown) >= 2, shown  # the frame that ended the wait is the one showing the key
            shown.clear()
            app.post_message(events.Key("backspace", None))
            await until(lambda: prompt.text == "" and not app.pacer.echo_pending)
            shown.clear()


async def test_an_idle_screen_holding_the_prompts_update_paints_the_echo_with_it(make_app: AppFactory) -> None:
    # Textual sends a pump Idle once its queue is empty, though it may have taken the next message off the queue to
    # look at (``_pending_message``). While a reply streamed, that message was often the prompt's Update with the
    # key's echo: the screen's idle painted what came before it (the spinner) at once, counted that as the echo,
    # and the echo itself waited for the stream's next frame (found with bench_terminal.py --trace).
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        screen, frames, status, prompt, prompt_row = await spinning_after_an_answer(app, pilot)
        frames.clear()
        app.pacer.read()
        app.pacer.key()
        prompt.insert("x")  # the key applied: the prompt asks for its row's repaint
        prompt._repaint_required = False  # ... and posted its Update, which the screen took off its queue:
        screen._pending_message = messages.Update(prompt)
        status.tick(1)
        screen._dirty_widgets.add(status)  # the spinner's Update, handled
        assert pacing.key_on_its_way(screen, app.pacer)
        await screen._on_idle(events.Idle())
        assert frames == [] and app.pacer.echo_pending  # nothing painted ahead of the echo
        screen.check_idle()  # the screen's loop wakes, handles the Update it held, goes idle: one frame, the echo
        await until(lambda: not app.pacer.echo_pending)
        assert len(frames) == 1 and "x" in screen._compositor.render_strips()[prompt_row].text
        assert rows_of(frames[0]) == {prompt_row, status.region.y}


async def test_the_key_on_its_way_reads_textuals_queues_and_refresh_flags(make_app: AppFactory) -> None:
    # key_on_its_way reads private state of Textual's: a widget's refresh flags and message queue, the screen's
    # queue (a deque in Textual's own Queue), the message a pump took off it to look at and an Update's widget. A release that renames them fails here.
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        prompt = screen.query_one(PromptEditor)
        assert screen.focused is prompt
        app.pacer.key()
        assert pacing.key_on_its_way(screen, app.pacer) is False  # nothing of the prompt pending
        prompt._repaint_required = True
        assert pacing.key_on_its_way(screen, app.pacer)
        prompt._repaint_required = False
        app.pacer.key()
        prompt.post_message(events.Key("y", "y"))  # in the prompt's queue
        assert pacing.key_on_its_way(screen, app.pacer)
        await until(lambda: prompt.text == "y" and not app.pacer.echo_pending)
        assert pacing.key_on_its_way(screen, app.pacer) is False
        app.pacer.key()
        screen._message_queue.put_nowait(messages.Update(prompt))  # the prompt's repaint, posted to the screen
        assert isinstance(screen._message_queue.values, collections.deque)
        assert pacing.key_on_its_way(screen, app.pacer)
        await until(lambda: not app.pacer.echo_pending)
        assert pacing.key_on_its_way(screen, app.pacer) is False
        assert screen._pending_message is None and prompt._pending_message is None  # Textual's peeked message


def emulated_terminal(app: Any, width: int, height: int) -> pyte.Screen:
    """A terminal emulator showing what ``app`` has shown so far, fed every frame it writes from now on."""
    terminal = pyte.Screen(width, height)
    stream = pyte.ByteStream(terminal)
    stream.feed(terminal_output(app).encode())
    display = app._display

    def sent(on: Any, renderable: Any) -> None:
        display(on, renderable)
        if renderable is not None and not app._batch_count:
            stream.feed(renderable.render_segments(app.console).encode())

    app._display = sent
    return terminal


async def test_the_end_of_an_answer_is_painted_at_once_even_while_a_key_waits(
    make_app: AppFactory, fake_server
) -> None:
    # The update timer is stopped and a key stays read and not handled throughout: streamed frames and flushes
    # wait for it, and only the screen's own idle handler could paint. The end of the turn paints the answer's
    # last lines anyway, before the agent goes on (its checks, the next request).
    fake_server.script(Text("The answer starts here.\n\nA middle paragraph.\n\nThe last line of the answer."))
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        terminal = emulated_terminal(app, 100, 32)
        screen._update_timer.stop()
        app.pacer.read_at = time.monotonic() + 60  # a key read "now" for the next minute, never handled
        assert app.pacer.key_waiting
        painted = screen.painted
        shown: list[str] = []

        async def noted() -> None:
            await painted()
            shown.append("\n".join(terminal.display))

        screen.painted = noted  # type: ignore[method-assign]
        screen.submit("answer me")
        await until(lambda: not screen.running)
        assert shown and "The last line of the answer." in shown[0], shown  # on the terminal as the turn ended
        assert "answer me" in shown[0] and "The answer starts here." in shown[0]


async def test_the_end_of_an_answer_is_on_the_terminal_before_the_agent_records_it(
    make_app: AppFactory, fake_server
) -> None:
    # The first paint of the turn's end comes at the stream's end: the answer's last line is on the terminal while
    # the agent's context (and so its session record, usage and checks) does not hold the answer yet.
    fake_server.script(Text("The answer starts here.\n\nThe last line of the answer."))
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        terminal = emulated_terminal(app, 100, 32)
        screen._update_timer.stop()  # only the turn's end paints
        painted = screen.painted
        shown: list[tuple[str, list[str]]] = []

        async def noted() -> None:
            await painted()
            roles = [m.role for m in screen.runtime.agent.messages]
            shown.append(("\n".join(terminal.display), roles))

        screen.painted = noted  # type: ignore[method-assign]
        screen.submit("answer me")
        await until(lambda: not screen.running)
        first_frame, roles = shown[0]
        assert "The last line of the answer." in first_frame and roles == ["user"], shown[0]
        assert shown[-1][1] == ["user", "assistant"]


async def test_painted_returns_at_once_when_nothing_changed(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        frames_before = app.pacer.frame_at
        await asyncio.wait_for(screen.painted(), 1.0)  # no frame needed: the screen's idle handler says so
        assert not screen._paint_waiters and app.pacer.frame_at == frames_before
