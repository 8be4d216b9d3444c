"""Textual's terminal driver, noting when its input thread reads a key (``widgets/pacing.py``), with frames
written by the event loop itself.

A key read from the terminal is posted to the app's queue, behind whatever the event loop has queued already: a
Markdown flush, a frame of streamed output. Noted here, on the input thread, the moment it is read, those wait
for it instead (``InputPacer.key_waiting``).

Textual hands what it writes to an output thread, three writes a frame (the synchronized update's start, the
frame, its end), each taken off a queue by that thread once it has the GIL and a core: on a loaded machine the
echo of a key reached the terminal 3-31 ms after the loop had made its frame (docs/speed.md, "Eighth wave").
Once the terminal is set up, the output thread is stopped (what start-up queued is written first) and the loop
writes: a synchronized update's parts are kept until its end and go out in one write; anything written outside
one goes out at once, in order. A
terminal that stops reading (flow control, a stalled connection) now holds the loop at its next frame; with the
thread it held the loop once 30 writes had queued.

The input thread also echoes a key whose outcome is certain at once, through the same writer (``app/local_echo.py``);
an app's frame is kept whole (``begin_frame``, ``end_frame``: a synchronized update or not) and the echoes it would
wipe, made before their key, are written again at its end, in the same write.

The input loop is the driver's own (``KeyNoticingDriver.run_input_thread``, as Textual's reads, decodes and
parses): what a bracketed paste holds is made inert before the parser sees it (``PasteGuard``).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from typing import TextIO

from textual import events, messages
from textual._ansi_sequences import SYNC_END, SYNC_START
from textual.drivers.linux_driver import LinuxDriver

from navtui.app.local_echo import NUMBERED, echo_of
from navtui.widgets.pacing import pacer_of


class FrameWriter:
    """Writes to the terminal from the calling thread: a synchronized update whole at its end (or at ``flush``),
    anything else at once. A terminal gone (the pty closed: EIO) takes no more writes, as a closed one would."""

    def __init__(self, file: TextIO) -> None:
        self._file = file
        # Written from the loop, the terminal must block rather than refuse: a program run on it before (the
        # $VISUAL that ctrl+g suspends the app for, say) may have left it non-blocking, and a write refused
        # halfway (EAGAIN) would lose part of a frame.
        with contextlib.suppress(OSError, ValueError):
            os.set_blocking(file.fileno(), True)
        # Frames go to the descriptor, every byte: a write cut short (a signal while the terminal's buffer is full,
        # or between the kernel's 2,048-byte chunks of a tty write) is followed by the rest. The text file drops
        # that rest when its binary layer is unbuffered (PYTHONUNBUFFERED=1, ``python -u``: Textual's stderr then
        # writes once and ignores the count): a frame lost its tail, and an escape sequence cut in two left its
        # last letter on the screen (the stray ``h`` of tests/app/test_local_echo.py at load 5-8).
        self._fd: int | None = None
        with contextlib.suppress(OSError, ValueError, AttributeError):
            file.flush()  # what start-up wrote through the file goes first
            self._fd = file.fileno()
        self._encoding = getattr(file, "encoding", None) or "utf-8"
        self._errors = getattr(file, "errors", None) or "strict"
        self._lock = threading.Lock()
        self._frame: list[str] = []
        self._in_frame = False
        self._app_frame = False  # between ``begin_frame`` and ``end_frame``: everything is kept for one write
        self.gone = False
        # What to write again at the end of each frame of the app's, inside its update (the local echoes it does
        # not show: app/local_echo.py)
        self.reapply: Callable[[], str] | None = None

    def write(self, text: str) -> None:
        with self._lock:
            if self._app_frame:
                self._frame.append(text)
                return
            if text == SYNC_START:
                self._in_frame = True
            if not self._in_frame:
                self._out(text)
                return
            self._frame.append(text)
            if text == SYNC_END:
                self._write_frame()

    def begin_frame(self) -> None:
        """The app writes a frame: keep it, synchronized update or not (a terminal without mode 2026, tmux 3.3)."""
        with self._lock:
            self._app_frame = True

    def end_frame(self) -> None:
        """Write the frame kept since ``begin_frame`` in one write, with what ``reapply`` gives at its end (inside
        its synchronized update, if it is one)."""
        with self._lock:
            self._app_frame = False
            again = self.reapply() if self.reapply is not None else ""
            if again:
                if self._frame and self._frame[-1] == SYNC_END:
                    self._frame.insert(len(self._frame) - 1, again)
                else:
                    self._frame.append(again)
            self._write_frame()

    def write_now(self, make: Callable[[], str]) -> None:
        """Write what ``make`` returns (called under the writer's lock) at once, as a synchronized update of its own,
        ahead of a frame the loop may be putting together."""
        with self._lock:
            text = make()
            if text:
                self._out(f"{SYNC_START}{text}{SYNC_END}")

    def flush(self) -> None:
        with self._lock:
            if not self._app_frame:  # (an app's frame is written whole by ``end_frame``)
                self._write_frame()

    def _write_frame(self) -> None:
        self._in_frame = False
        text, self._frame = "".join(self._frame), []
        self._out(text)

    def _out(self, text: str) -> None:
        if self.gone:
            return
        try:
            if self._fd is None:
                if text:
                    self._file.write(text)
                self._file.flush()
                return
            data = memoryview(text.encode(self._encoding, self._errors))
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError:
            self.gone = True  # the app ends on the hangup that follows; a traceback would go nowhere


PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
VISIBLE_ESC = "\u241b"  # ␛, as core/display.py shows an escape in untrusted text


class PasteGuard:
    """What a bracketed paste holds reaches the parser with each ESC made visible (``␛``).

    Textual's parser, inside a paste, takes an ESC for the start of a key sequence and sends what follows it (up to
    32 characters) as keys: text copied with colour codes in it sent the prompt at its first CR, before the user
    pressed Enter, and the paste came apart. Only the paste's end marker ends it. Outside a paste nothing is held
    back (a lone ESC is the Escape key), but the tail of a read that may begin the start marker is remembered: when
    the next read completes it, what follows is the paste. Inside, the tail of a read that may begin the end marker
    waits for the next.
    """

    def __init__(self) -> None:
        self.pasting = False
        self._held = ""
        self._begun = ""  # the end of the last read outside a paste, if it may begin the start marker (passed on)

    def feed(self, data: str) -> str:
        if not self.pasting:
            begun, self._begun = self._begun, ""
            if not begun and PASTE_START not in data and "\x1b" not in data[1 - len(PASTE_START) :]:
                return data  # (every key typed: two looks)
            seen = begun + data
            start = seen.find(PASTE_START)
            if start < 0:
                self._begun = _marker_begun(seen)
                return data
            if start < len(begun):  # the marker began in what went on before: the paste starts after its rest
                rest = start + len(PASTE_START) - len(begun)
                self.pasting = True
                return data[:rest] + self.feed(data[rest:])
        data, self._held, out = self._held + data, "", []
        while data:
            if not self.pasting:
                start = data.find(PASTE_START)
                if start < 0:
                    out.append(data)
                    self._begun = _marker_begun(data)
                    break
                out.append(data[: start + len(PASTE_START)])
                data, self.pasting = data[start + len(PASTE_START) :], True
                continue
            end = data.find(PASTE_END)
            if end < 0:
                keep = next((n for n in range(len(PASTE_END) - 1, 0, -1) if data.endswith(PASTE_END[:n])), 0)
                data, self._held = (data[:-keep], data[-keep:]) if keep else (data, "")
                out.append(data.replace("\x1b", VISIBLE_ESC))
                break
            out.append(data[:end].replace("\x1b", VISIBLE_ESC) + PASTE_END)
            data, self.pasting = data[end + len(PASTE_END) :], False
        return "".join(out)


def _marker_begun(data: str) -> str:
    """The end of ``data`` that begins the paste start marker (``\\x1b[20``), or ``""``."""
    return next((data[-n:] for n in range(len(PASTE_START) - 1, 0, -1) if data.endswith(PASTE_START[:n])), "")


class KeyNoticingDriver(LinuxDriver):
    _frames: FrameWriter | None = None

    def run_input_thread(self) -> None:
        """Textual's input loop (read the terminal, decode, parse, hand each event on), with what a bracketed paste
        holds made inert first (``PasteGuard``). Textual's own loop takes its parser from its module, so the data
        cannot be reached between the read and the parse without this. Textual's names it uses (``fileno``,
        ``exit_event``, ``_debug``, the parser's ``feed`` and ``tick``) are pinned by tests/app/test_habits_terminal.py,
        which runs it on a pty, and so is Textual's loop itself (a digest of its source: a change there is compared)."""
        import selectors
        from codecs import getincrementaldecoder

        from textual._parser import ParseError
        from textual._xterm_parser import XTermParser

        parser, guard = XTermParser(self._debug), PasteGuard()
        decode = getincrementaldecoder("utf-8")().decode
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)

        def take(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for _key, mask in ready:
                if mask & selectors.EVENT_READ:
                    text = decode(os.read(self.fileno, 4096), final=final)
                    if not text:  # stdin is not a terminal and has ended
                        break
                    for event in parser.feed(guard.feed(text)):
                        self.process_message(event)
            for event in parser.tick():  # a lone ESC becomes the Escape key once its wait is over
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                take(selector.select(0.1))
            selector.unregister(self.fileno)
            take(selector.select(0.1), final=True)
        finally:
            selector.close()
            with contextlib.suppress(EOFError, ParseError):
                for _event in parser.feed(""):
                    pass

    def process_message(self, message: messages.Message) -> None:
        # Runs on the input thread: a timestamp is set on the app's pacer, the event numbered and a key with a
        # certain outcome echoed (app/local_echo.py).
        if isinstance(message, events.Key):
            pacer = pacer_of(self._app)
            if pacer is not None:
                pacer.read()
        echo, frames = echo_of(self._app), self._frames
        if echo is not None and frames is not None and isinstance(message, NUMBERED):  # (not every mouse move)
            try:
                frames.write_now(lambda: echo.read_event(message))
            except Exception as exc:  # noqa: BLE001 - a fault here would end the input thread, and the app with it
                # The echo is only ever ahead of the loop: off for good, the key goes on to the loop as with it off.
                echo_failed = getattr(self._app, "local_echo_failed", None)
                if echo_failed is not None:
                    echo_failed(exc)
        super().process_message(message)

    def start_application_mode(self) -> None:
        before = self._writer_thread
        super().start_application_mode()
        thread = self._writer_thread
        if thread is None or thread is before or self._file is None:
            return  # the terminal was not set up (a process put in the background): left as Textual leaves it
        thread.stop()  # what start-up queued is written; from here on the loop writes
        frames = FrameWriter(self._file)
        echo = echo_of(self._app)
        if echo is not None:
            frames.reapply = echo.reapply
        self._frames = frames

    def stop_application_mode(self) -> None:
        try:
            super().stop_application_mode()  # its last writes and flush go through the frame writer
        finally:
            frames, self._frames = self._frames, None
            if frames is not None:
                frames.flush()

    def write(self, data: str) -> None:
        if self._frames is None:
            super().write(data)
        else:
            self._frames.write(data)

    def flush(self) -> None:
        if self._frames is not None:
            self._frames.flush()

    def begin_frame(self) -> None:
        if self._frames is not None:
            self._frames.begin_frame()

    def end_frame(self) -> None:
        if self._frames is not None:
            self._frames.end_frame()
