"""Frames written by the event loop itself, each synchronized update in one write (app/driver.py): Textual's
output thread took each of a frame's three parts off its queue once it had the GIL and a core, 3-31 ms of a
key's echo on a loaded machine (docs/speed.md, "Eighth wave")."""

from __future__ import annotations

import contextlib
import io
import os
import select
import signal
import sys
import threading
import tty
from pathlib import Path

from textual._ansi_sequences import SYNC_END, SYNC_START

from navtui.app.driver import FrameWriter

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from terminal import Terminal  # noqa: E402

MODEL = "qwen2.5-coder:7b"


def readable(fd: int) -> bytes:
    """What the pipe holds now (nothing if it is empty)."""
    out = b""
    while select.select([fd], [], [], 0)[0]:
        out += os.read(fd, 65536)
    return out


def test_a_synchronized_update_goes_out_whole_at_its_end_and_the_rest_at_once() -> None:
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "w", encoding="utf-8") as file:
        writer = FrameWriter(file)
        writer.write("\x1b[?25l")  # outside a frame: at once
        assert readable(read_end) == b"\x1b[?25l"
        writer.write(SYNC_START)
        writer.write("\x1b[38;4HZ é")
        assert readable(read_end) == b""  # kept until the update ends
        writer.write(SYNC_END)
        assert readable(read_end) == f"{SYNC_START}\x1b[38;4HZ é{SYNC_END}".encode()
        writer.write(SYNC_START)
        writer.write("half a frame")
        writer.flush()  # the driver's flush writes what it holds
        assert readable(read_end) == f"{SYNC_START}half a frame".encode()
        writer.write("\x1b[?25h")
        assert readable(read_end) == b"\x1b[?25h"
    os.close(read_end)


def test_a_terminal_left_non_blocking_is_written_blocking() -> None:
    # A program run on the terminal before (an editor) may leave it non-blocking: a frame bigger than what the
    # terminal takes at once would fail halfway (EAGAIN) where Textual's thread would have waited.
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    with os.fdopen(write_end, "w", encoding="utf-8") as file:
        writer = FrameWriter(file)
        assert os.get_blocking(write_end)
        writer.write("\x1b[?25l")
        assert readable(read_end) == b"\x1b[?25l" and not writer.gone
    os.close(read_end)


def test_a_terminal_gone_takes_no_more_writes_and_raises_nothing() -> None:
    master, slave = os.openpty()
    file = os.fdopen(slave, "w", encoding="utf-8")
    writer = FrameWriter(file)
    writer.write("\x1b[?25l")
    os.close(master)  # the terminal is gone: a write to the pty fails (EIO)
    writer.write(SYNC_START)
    writer.write("a frame" * 1000)
    writer.write(SYNC_END)
    writer.write("\x1b[?25h")
    writer.flush()
    assert writer.gone
    with contextlib.suppress(OSError):
        file.close()  # its buffer still holds what could not be written


def test_a_frame_whose_write_a_signal_cuts_short_arrives_whole() -> None:
    # Textual writes to stderr, whose binary layer is unbuffered under PYTHONUNBUFFERED=1 or ``python -u``: its
    # text file writes once and ignores a short count. A signal while the terminal's buffer is full (or between
    # the kernel's 2,048-byte chunks of a tty write) cuts the write short, and the frame lost its tail: on a
    # loaded machine an escape sequence cut in two left its last letter on screen (tests/app/test_local_echo.py).
    master, slave = os.openpty()
    tty.setraw(slave)
    file = io.TextIOWrapper(io.FileIO(slave, "w"), encoding="utf-8", write_through=True)  # as such a stderr is
    writer = FrameWriter(file)
    body = "".join(f"\x1b[{n % 30 + 1};1H╭─ line {n} ─╮" for n in range(8000))
    got = bytearray()

    def read() -> None:  # a terminal slower than the writer: its buffer fills and the write waits
        with contextlib.suppress(OSError):
            while not got.endswith(SYNC_END.encode()) and (data := os.read(master, 512)):
                got.extend(data)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: None)
    signal.setitimer(signal.ITIMER_REAL, 0.0005, 0.0005)  # signals all along the write (a resize, a child's end)
    try:
        for part in (SYNC_START, body, SYNC_END):
            writer.write(part)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, previous)
    reader.join(10)
    os.close(master)  # (a reader still waiting for the frame's end ends)
    reader.join(10)
    file.close()
    frame = f"{SYNC_START}{body}{SYNC_END}".encode()
    assert len(got) == len(frame) and got == frame, (len(got), len(frame))
    assert not writer.gone


def test_on_a_real_terminal_each_echo_arrives_in_one_piece(fake_server, workspace: Path) -> None:
    # navtui on a pty, drawn by the bench's emulator: after start-up every read the terminal gets ends where a
    # synchronized update ends (a key's echo is a few dozen bytes: one write, one read), and the keys show.
    argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL]
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT))
    term = Terminal(argv, env=env, cwd=str(workspace), columns=100, lines=30, record=True)
    try:
        assert term.wait(lambda lines: MODEL in lines[-1] and "starting" not in lines[-1], 60), term.display()
        assert term.record is not None
        started = len(term.record)
        for key, shown in ((b"a", "│ a "), (b"b", "│ ab "), (b"c", "│ abc "), (b"\x7f", "│ ab ")):
            term.write(key)
            assert term.wait(lambda lines, shown=shown: any(shown in line for line in lines), 30), term.display()
        chunks = [data for _, data in term.record[started:]]
        assert chunks and all(chunk.endswith(SYNC_END.encode()) for chunk in chunks), chunks
        term.write(b"\x03")  # clears the prompt
        assert term.wait(lambda lines: not any("│ ab " in line for line in lines), 30), term.display()
        term.write(b"\x03")
        assert term.wait(lambda lines: any("again to quit" in line for line in lines), 30), term.display()
        term.write(b"\x03")
        assert term.proc.wait(timeout=30) == 0
    finally:
        term.close()
