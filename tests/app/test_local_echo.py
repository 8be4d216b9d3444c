"""A typed key shown before the UI loop gets to it (app/local_echo.py): navtui on a real pty, drawn by the bench's
VT emulator, its UI loop held by the test (tests/app/echo_host.py: a signal, then FIFOs the test writes); and the
echo and the frame writer alone on a pty for a frame made before the key."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyte
import pytest
from rich.style import Style
from textual import events
from textual._ansi_sequences import SYNC_END, SYNC_START
from textual.keys import _character_to_key

from navtui.app.driver import FrameWriter
from navtui.app.local_echo import EchoState, LocalEcho, enabled_by
from navtui.app.screen_image import Row, ScreenImage

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from terminal import Terminal  # noqa: E402

MODEL = "qwen2.5-coder:7b"
HOST = Path(__file__).with_name("echo_host.py")
WAIT = 30.0


def _in_time(action: Callable[[], Any], what: str) -> None:
    """Run ``action`` (a FIFO's open blocks until the other end opens) and fail if it does not end in time."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            action()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(WAIT)
    assert not thread.is_alive(), f"{what}: no answer in {WAIT} s"
    assert not errors, errors


class Held:
    """navtui on a 100x30 pty whose UI loop the test can hold (``hold``) and let go (``release``)."""

    def __init__(self, url: str, workspace: Path, folder: Path, echo: bool) -> None:
        folder.mkdir()
        os.mkfifo(folder / "held")
        os.mkfifo(folder / "release")
        self.folder = folder
        argv = [sys.executable, str(HOST), "-p", "ollama", "-b", url, "-m", MODEL]
        env = dict(
            os.environ,
            TERM="xterm-256color",
            PYTHONPATH=str(ROOT),
            NAVTUI_TEST_HOLD=str(folder),
            NAVTUI_LOCAL_ECHO="1" if echo else "0",
        )
        self.term = Terminal(argv, env=env, cwd=str(workspace), columns=100, lines=30, record=True)
        # Started: the status line shows the model and its context window (asked of the server after the first frame)
        assert self.term.wait(lambda lines: MODEL in lines[-1] and "%" in lines[-1], 60), self.screen()

    def screen(self) -> str:
        return "\n".join(f"{y:2} {line}" for y, line in enumerate(self.term.display()))

    def hold(self, wrong: bool = False, in_frame: bool = False) -> None:
        """Hold the UI loop (SIGUSR2: bind backspace with priority first, with no frame, then hold; ``in_frame``:
        inside the next frame that paints an echo's row, once a key makes one)."""
        os.kill(self.term.proc.pid, signal.SIGRTMIN if in_frame else signal.SIGUSR2 if wrong else signal.SIGUSR1)
        if in_frame:
            return

        def held() -> None:
            with open(self.folder / "held", encoding="utf-8") as fifo:
                assert fifo.read(1) == "h"

        _in_time(held, "hold")

    def held_in_frame(self) -> None:
        def held() -> None:
            with open(self.folder / "held", encoding="utf-8") as fifo:
                assert fifo.read(1) == "h"

        _in_time(held, "hold inside a frame")

    def release(self) -> int:
        """Let the loop go; returns the count of frames the terminal had then."""
        frames = self.term.snapshot().synced

        def release() -> None:
            with open(self.folder / "release", "w", encoding="utf-8") as fifo:
                fifo.write("r")

        _in_time(release, "release")
        return frames

    def frame_after(self, frames: int) -> None:
        term = self.term
        assert term.wait(lambda lines: term.traffic.synced > frames, WAIT), self.screen()

    def shows(self, text: str) -> float | None:
        return self.term.wait(lambda lines: any(text in line for line in lines), WAIT)

    def close(self) -> None:
        self.term.write(b"\x03")
        self.term.write(b"\x03")
        self.term.close()


@pytest.fixture
def held(fake_server: Any, workspace: Path, tmp_path: Path) -> Callable[[bool], Held]:
    started: list[Held] = []

    def start(echo: bool) -> Held:
        session = Held(fake_server.url, workspace, tmp_path / f"hold-{len(started)}", echo)
        started.append(session)
        return session

    yield start  # type: ignore[misc]
    for session in started:
        session.close()


def test_a_key_read_while_the_loop_is_held_is_on_the_terminal_before_the_loop_runs(held: Any) -> None:
    app = held(True)
    app.hold()  # a first key and its frame: the start-up's frames are over
    app.term.write(b"a")
    app.frame_after(app.release())
    assert app.shows("│ a "), app.screen()
    app.hold()
    app.term.write(b"Z")
    assert app.shows("│ aZ "), app.screen()  # the loop is still held: the input thread drew it
    row = next(y for y, line in enumerate(app.term.display()) if "│ aZ " in line)
    echoed = app.term.cells()[row]
    frames = app.release()
    app.frame_after(frames)  # the loop's frame for the key: it confirms the echo, cell for cell
    assert app.term.cells()[row] == echoed
    app.hold()  # and erased down to an empty prompt (the bench's probe: "Z", then its erasure)
    app.term.write(b"\x7f\x7f")
    assert app.term.wait(lambda lines: _prompt_line(lines) == "", WAIT), app.screen()
    erased = app.term.cells()[row]
    app.frame_after(app.release())
    assert app.term.cells()[row] == erased
    chunks = [data for _, data in app.term.record or []]
    assert all(chunk.endswith(SYNC_END.encode()) for chunk in chunks[-2:]), chunks[-2:]


def _seen(term: Terminal) -> list[list[tuple[str, str, str, bool, bool, bool]]]:
    """The screen as a user sees it: a blank's foreground does not show (the frames leave it as they find it)."""
    return [
        [
            (text, "" if text == " " and not reverse and not under else fg, bg, bold, reverse, under)
            for text, fg, bg, bold, reverse, under in row
        ]
        for row in term.cells()
    ]


def _differ(a: Terminal, b: Terminal) -> str:
    """The cells that differ (row, column, each side's)."""
    out = []
    for y, (row_a, row_b) in enumerate(zip(_seen(a), _seen(b), strict=True)):
        out.extend(f"{y},{x}: {ca} != {cb}\n" for x, (ca, cb) in enumerate(zip(row_a, row_b, strict=True)) if ca != cb)
    return "".join(out[:20])


def _below_transcript(term: Terminal) -> list[list[tuple[str, str, str, bool, bool, bool]]]:
    """The rows from the prompt's top border down (the prompt, the completion list, the status line): what an
    echo writes to. (The transcript above is left out: in two runs of the same checkout, with or without the echo,
    its layout after the prompt or the list changed height was at times not repainted at idle: seen on ``main``.)"""
    lines = term.display()
    top = max(y for y, line in enumerate(lines) if line.lstrip().startswith("╭"))
    return _seen(term)[top:]


def _both_showing_ab(held: Any) -> tuple[Held, Held]:
    """A process with the echo and one without, each having typed "ab" and drawn it."""
    on, off = held(True), held(False)
    for app in (on, off):
        app.hold()
        app.term.write(b"ab")
        app.frame_after(app.release())
        assert app.shows("│ ab "), app.screen()
    return on, off


def _same_screens(on: Held, off: Held, what: str) -> None:
    """The two screens become the same, cell for cell (a step may take more than one frame: a layout, a list)."""
    deadline = time.monotonic() + WAIT
    while (below := _below_transcript(on.term)) != _below_transcript(off.term):
        assert time.monotonic() < deadline, f"{what}\n{below}\n{on.screen()}\n---\n{off.screen()}"
        on.term.wait(lambda lines: False, 0.02)  # until the next check: frames of either app may still come


def _prompt_line(lines: list[str]) -> str:
    """The text of the prompt's first row (the row under its top border, the last one on screen)."""
    top = max(y for y, line in enumerate(lines) if line.lstrip().startswith("╭"))
    return lines[top + 1].strip().strip("│").strip()


def _line_shown(line: str) -> str:
    return f"│ {line} "


def test_the_screen_after_the_loops_frame_is_the_screen_without_the_echo(held: Any, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("notes\n")
    on, off = held(True), held(False)
    line = ""
    # (keys, the prompt's line after them or None when it is not what is checked, echoed before the loop runs,
    # what else must show once the loop has run)
    steps: list[tuple[str, str | None, bool, str | None]] = [
        ("h", "h", True, None),  # the first key into an empty prompt
        ("ello", "hello", True, None),  # several keys in a row
        ("\x7f", "hell", True, None),  # backspace at the end of the line
        (" w", "hell w", True, None),
        ("x" * 84, "hell w" + "x" * 84, True, None),  # up to a few cells before the prompt's edge
    ]
    line = "hell w" + "x" * 84
    for _ in range(6):  # to the last column and past it: the line wraps, the prompt grows
        line += "y"
        steps.append(("y", None, False, None))
    steps += [
        ("\x03", "", False, None),  # ctrl+c clears the prompt
        ("Z", "Z", False, None),  # (the prompt shrank: its row may be unknown to the screen image for a while)
        ("\x7f", "", False, None),
        ("/", None, False, "/help"),  # the command list opens
        ("\x1b", None, False, None),
        ("\x03", None, False, None),
        ("see @", None, False, "notes.txt"),  # the file list opens at "@"
    ]
    for keys, shown, echoed, then in steps:
        for app in (on, off):
            app.hold()
            app.term.write(keys.encode())
        if echoed and shown is not None:  # drawn while the loop is held
            assert on.term.wait(lambda lines, shown=shown: _prompt_line(lines) == shown, WAIT), (keys, on.screen())
        for app in (on, off):
            app.frame_after(app.release())
            if then is not None:
                assert app.shows(then), app.screen()
            if shown is not None:
                assert app.shows(_line_shown(shown) if shown else "│  "), app.screen()
        _same_screens(on, off, f"after {keys!r}")


def test_brackets_and_the_modes_characters_after_text_are_echoed_and_the_screen_is_the_same(held: Any) -> None:
    on, off = held(True), held(False)
    # (keys, the prompt's line after them, echoed before the loop runs)
    steps = [
        ("say", "say", True),
        (" (x)", "say (x)", True),  # brackets at the end of the line: the cursor's cell holds none to match
        (" [y] {z}", "say (x) [y] {z}", True),
        (" !$", "say (x) [y] {z} !$", True),  # after text: the prompt's mode is its first character's
        ("\x7f", "say (x) [y] {z} !", True),
        ("\x03", "", False),
        ("!", "!", False),  # first in the prompt: the shell mode (its border), the loop's
        ("ls (", "!ls (", False),  # (typed as one write: the chain waits for the loop after the "!")
        ("\x03", "", False),
        ("$", "$", False),
    ]
    for keys, shown, echoed in steps:
        for app in (on, off):
            app.hold()
            app.term.write(keys.encode())
        if echoed:  # drawn while the loop is held
            assert on.term.wait(lambda lines, shown=shown: _prompt_line(lines) == shown, WAIT), (keys, on.screen())
        for app in (on, off):
            app.frame_after(app.release())
            assert app.shows(_line_shown(shown) if shown else "│  "), (keys, app.screen())
        _same_screens(on, off, f"after {keys!r}")


def test_a_key_read_while_the_frame_of_the_prompts_row_is_made_is_echoed(held: Any) -> None:
    on, off = _both_showing_ab(held)
    on.hold(in_frame=True)
    on.term.write(b"c")  # echoed; the loop's frame that confirms it paints the prompt's row, and holds inside
    on.held_in_frame()
    on.term.write(b"d")  # read while that frame is made: it shows "abc" as the echo drew it, "d" chains from "c"
    assert on.term.wait(lambda lines: _prompt_line(lines) == "abcd", WAIT), on.screen()
    frames = on.release()
    on.frame_after(frames)
    off.term.write(b"cd")
    assert off.shows("│ abcd "), off.screen()
    _same_screens(on, off, "after a key read while the prompt's frame was made")
    for app in (on, off):  # and the chain goes on from there
        app.hold()
        app.term.write(b"e)")
    assert on.term.wait(lambda lines: _prompt_line(lines) == "abcde)", WAIT), on.screen()
    for app in (on, off):
        app.frame_after(app.release())
    _same_screens(on, off, "after the chain")


def test_a_wrong_echo_is_put_right_by_the_loops_frame(held: Any) -> None:
    on, off = _both_showing_ab(held)
    for app in (on, off):
        app.hold(wrong=True)  # backspace is bound with priority, with no frame: the prompt will not get it
        app.term.write(b"\x7f")
    assert on.shows("│ a "), on.screen()  # the echo, wrong on purpose
    off.release()  # the key changes nothing: no frame follows
    on.frame_after(on.release())
    assert on.shows("│ ab "), on.screen()  # put right by the frame that follows the key, though it changed nothing
    _same_screens(on, off, "after the wrong echo")


def test_switched_off_the_loop_draws_the_key(held: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = held(False)
    app.hold()
    app.term.write(b"Z")
    assert app.term.record is not None
    frames = app.release()
    app.frame_after(frames)
    assert app.shows("│ Z ")
    after = b"".join(data for _, data in app.term.record[-3:])
    assert b"Z" in after  # written by the loop's frame (switched on, the echo had drawn it: the frame writes no Z)
    monkeypatch.setenv("NAVTUI_LOCAL_ECHO", "0")
    assert not enabled_by(True)
    monkeypatch.setenv("NAVTUI_LOCAL_ECHO", "on")
    assert enabled_by(False)
    monkeypatch.delenv("NAVTUI_LOCAL_ECHO")
    assert not enabled_by(False) and enabled_by(True)


def test_the_setting_turns_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from navtui.app.app import NavtuiApp
    from navtui.app.startup import peek_settings
    from navtui.config.launch import LaunchOptions

    monkeypatch.delenv("NAVTUI_LOCAL_ECHO", raising=False)
    options = LaunchOptions(cwd=tmp_path, provider="ollama", model=MODEL, ephemeral=True)
    (tmp_path / ".navtui").mkdir()
    assert NavtuiApp(None, options=options, settings=peek_settings(tmp_path, {})).local_echo is not None
    (tmp_path / ".navtui" / "settings.json").write_text('{"ui": {"local_echo": false}}')
    settings = peek_settings(tmp_path, {})
    assert settings.ui.local_echo is False
    assert NavtuiApp(None, options=options, settings=settings).local_echo is None


# ---------------------------------------------------------------------- the echo and the frame writer alone
def _row_text(image: ScreenImage, y: int) -> str:
    row = image.rows[y]
    assert row is not None
    steps = image.sgr_run([(look, cell == " ") for cell, look in zip(row.cells, row.looks, strict=True)])
    return f"\x1b[{y + 1};1H" + "".join(sgr + cell for sgr, cell in zip(steps, row.cells, strict=True)) + "\x1b[0m"


def _image_showing_ab(width: int, height: int, y: int) -> tuple[ScreenImage, tuple[Any, Any, Any, Any]]:
    """A screen image whose row ``y`` is a prompt showing "ab", the cursor after it; and its looks: plain, the
    typed text, the cursor's cell, the blanks."""
    image = ScreenImage()
    image.begin(width, height)
    plain = image.look(None)
    text, cursor, blank = (
        image.look(Style.parse(s)) for s in ("#d0d0d0 on #1c1c1c", "#1c1c1c on #ffffff", "on #1c1c1c")
    )
    image.rows[y] = Row(
        [*"│ ab", " ", *[" "] * (width - 6), "│"], [plain, plain, text, text, cursor, *[blank] * (width - 6), plain]
    )
    return image, (plain, text, cursor, blank)


def _state_after_ab(
    image: ScreenImage, size: tuple[int, int], y: int, looks: tuple[Any, Any, Any], *, typed: str
) -> EchoState:
    """What the loop publishes after a frame of ``_image_showing_ab``'s prompt, ``typed`` the keys it may echo."""
    text, cursor, blank = looks
    typing, erasing = image.sgr_run([(text, False), (cursor, True)]), image.sgr_run([(cursor, True), (blank, True)])
    return EchoState(
        seq=0, generation=image.generation, size=size, y=y, left=2, x=4, end=size[0] - 1, line="ab",
        content_y=0, text=text, cursor=cursor, blank=blank, sgr_text=typing[0], sgr_text_cursor=typing[1],
        sgr_cursor=erasing[0], sgr_cursor_blank=erasing[1], typed=frozenset(typed), backspace=True, alone=True,
    )  # fmt: skip


@pytest.mark.parametrize("synchronized", [True, False], ids=["synchronized update", "no mode 2026 (tmux 3.3)"])
def test_a_frame_made_before_the_key_does_not_erase_its_echo(synchronized: bool) -> None:
    width, height, y = 20, 3, 1
    image, (plain, text, cursor, blank) = _image_showing_ab(width, height, y)
    master, slave = os.openpty()
    screen = pyte.Screen(width, height)
    stream = pyte.ByteStream(screen)
    file = os.fdopen(slave, "w", encoding="utf-8")
    frames = FrameWriter(file)
    echo = LocalEcho()
    frames.reapply = echo.reapply

    def take() -> None:
        data = b""
        while chunk := _readable(master):
            data += chunk
        stream.feed(data)

    def frame(body: str) -> None:  # as App._display writes one that paints the prompt's row
        echo.render_begins({y})
        echo.overlay(image)
        echo.frame_begins_write((width, height))
        frames.begin_frame()
        for part in (SYNC_START, body, SYNC_END) if synchronized else (body,):
            frames.write(part)
        frames.end_frame()

    state = _state_after_ab(image, (width, height), y, (text, cursor, blank), typed="c")
    before = _row_text(image, y)
    frame(before)
    echo.frame_written(image, state)
    take()
    assert screen.display[y].startswith("│ ab ")

    key = events.Key(_character_to_key("c"), "c")
    reader = threading.Thread(target=frames.write_now, args=(lambda: echo.read_event(key),))  # the input thread
    reader.start()
    reader.join()
    take()
    assert screen.display[y].startswith("│ abc ") and screen.buffer[y][5].bg != screen.buffer[y][6].bg

    frame(before)  # made before the key (the prompt has not taken it): it paints the row as the loop knows it
    echo.frame_written(image, None)
    take()
    assert screen.display[y].startswith("│ abc ")  # written again at the frame's end, in the same update
    assert screen.buffer[y][5].bg == "ffffff"  # the cursor's cell, one right of the echo
    assert image.rows[y] is not None and image.rows[y].cells[4] == "c"  # the image holds what the terminal shows

    assert echo.handled_event(key) is not None  # the loop handles the key; its frame shows it: nothing pending
    echo.key_applied(key)
    frame(_row_text(image, y))
    after = EchoState(
        **{
            **{name: getattr(state, name) for name in state.__dataclass_fields__},
            "seq": 1,
            "x": 5,
            "line": "abc",
            "typed": frozenset("cd"),
        }
    )
    echo.frame_written(image, after)
    assert echo.pending == [] and echo.reapply() == "" and echo.state is after

    # A frame that paints other rows only (a stream's) leaves the state: a key read while it is made is echoed
    echo.render_begins({0})
    key = events.Key(_character_to_key("d"), "d")
    frames.write_now(lambda: echo.read_event(key))
    echo.frame_begins_write((width, height))
    frames.begin_frame()
    frames.write("\x1b[1;3Hstream\x1b[0m")
    frames.end_frame()
    echo.frame_written(image, None)
    take()
    assert screen.display[0].startswith("  stream") and screen.display[y].startswith("│ abcd ")
    assert [prediction.seq for prediction in echo.pending] == [2]  # until the loop's frame shows it
    file.close()
    os.close(master)


@pytest.mark.parametrize("as_predicted", [True, False], ids=["the prompt as the echoes drew it", "another prompt"])
def test_a_key_read_while_a_frame_paints_the_prompts_row_chains_when_the_frame_shows_the_echoes(
    as_predicted: bool,
) -> None:
    # The loop confirms the echo of "c" by a frame that paints the prompt's row; "d" is read while that frame is
    # made. The prompt the frame paints is what the echoes drew ("abc", the cursor after it): "d" chains from "c",
    # is echoed at once and written again at the frame's end. Any other prompt (the loop says so: ``verify``): the
    # state is withdrawn as before, "d" waits for the loop.
    width, height, y = 20, 3, 1
    image, (plain, text, cursor, blank) = _image_showing_ab(width, height, y)
    master, slave = os.openpty()
    screen = pyte.Screen(width, height)
    stream = pyte.ByteStream(screen)
    file = os.fdopen(slave, "w", encoding="utf-8")
    frames = FrameWriter(file)
    echo = LocalEcho()
    frames.reapply = echo.reapply
    asked: list[tuple[str, int]] = []

    def verify(state: EchoState, line: str, x: int) -> bool:
        asked.append((line, x))
        return as_predicted

    echo.verify = verify

    def take() -> None:
        data = b""
        while chunk := _readable(master):
            data += chunk
        stream.feed(data)

    def type_key(character: str) -> None:
        key = events.Key(_character_to_key(character), character)
        frames.write_now(lambda: echo.read_event(key))  # as the input thread does
        keys.append(key)

    keys: list[events.Key] = []
    state = _state_after_ab(image, (width, height), y, (text, cursor, blank), typed="cde")
    echo.frame_written(image, state)
    frames.write(_row_text(image, y))
    take()
    type_key("c")
    take()
    assert screen.display[y].startswith("│ abc ")

    echo.handled_event(keys[0])  # the loop: the prompt takes "c" and its frame paints the row
    echo.key_applied(keys[0])
    echo.render_begins({y})
    assert asked == [("abc", 5)]  # the line and the cursor after "c", as the echo drew them
    type_key("d")  # read while the frame is made
    take()
    assert screen.display[y].startswith("│ abcd " if as_predicted else "│ abc ")
    echo.overlay(image)
    echo.frame_begins_write((width, height))
    image.rows[y] = Row(
        [*"│ abc", " ", *[" "] * 13, "│"], [plain, plain, text, text, text, cursor, *[blank] * 13, plain]
    )  # (the frame's diff: the prompt as it is, "c" taken, "d" not yet)
    frames.begin_frame()
    for part in (SYNC_START, _row_text(image, y), SYNC_END):
        frames.write(part)
    frames.end_frame()
    echo.frame_written(image, None)
    take()
    if as_predicted:
        assert screen.display[y].startswith("│ abcd ")  # written again at the frame's end
        assert screen.buffer[y][6].bg == "ffffff"  # the cursor's cell after "d"
        assert echo.state is state and [prediction.seq for prediction in echo.pending] == [2]
        type_key("e")  # the chain goes on after the frame
        take()
        assert screen.display[y].startswith("│ abcde ") and echo.echoed == 3
    else:
        assert screen.display[y].startswith("│ abc ") and echo.state is None and echo.echoed == 1
    file.close()
    os.close(master)


def _readable(fd: int) -> bytes:
    import select

    if select.select([fd], [], [], 0)[0]:
        return os.read(fd, 65536)
    return b""


def test_the_textual_names_relied_on() -> None:
    # An event takes the number the input thread gives it; printable characters' key names; what a frame and the
    # echo's state read of the app, the screen and the prompt (tests/app/test_prompt_lines.py pins the rest).
    from textual.app import App
    from textual.screen import Screen
    from textual.widgets import TextArea

    key = events.Key("a", "a")
    key._navtui_echo_seq = 1  # type: ignore[attr-defined]
    assert [_character_to_key(c) for c in " /@Za\\"] == ["space", "slash", "at", "Z", "a", "backslash"]
    app = App()
    assert app._keymap == {} and app._batch_count == 0
    assert Screen()._select_state is None
    area = TextArea("ab")
    assert area.cursor_screen_offset is not None and area.wrapped_document.get_offsets(0) == []
