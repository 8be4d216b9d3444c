"""A terminal for benchmarks: a program on a pty, its output drawn by a VT emulator (pyte), timed from outside.

The reader thread plays the terminal a user has: it drains the pty as soon as bytes arrive; a second thread
draws them (pyte is slower than a real terminal, and must not hold the program's writes back), answers the
queries a modern terminal answers (synchronized output is supported, so a frame is presented whole at its end,
as kitty, WezTerm, iTerm2 or Windows Terminal do), and keeps the screen. Every chunk is timestamped when it
is read, before the emulator sees it, so the emulator's own cost does not add to a measured latency
(``lagging_ms`` reports how far behind the emulator fell).

Conditions on the screen ("the prompt shows a Z", "the status line is drawn") are checked at frame ends only
(the end of a synchronized update, or of a chunk outside one), and give the time of the chunk that made them
true.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyte

from navtui.tools.shell.procs import is_alive

SYNC_START = b"\x1b[?2026h"
SYNC_END = b"\x1b[?2026l"
# DECRQM (is mode N supported?): 2026 yes (reset, 2), anything else "not recognised" (0).
_DECRQM = re.compile(rb"\x1b\[\?(\d+)\$p")
# OSC 10/11 colour queries: a dark terminal.
_OSC_COLOUR = re.compile(rb"\x1b\](1[01]);\?(?:\x07|\x1b\\)")
_CLK_TCK = os.sysconf("SC_CLK_TCK")
READ_SWITCH_INTERVAL = 0.0005  # seconds: see Terminal.__init__
BURST_GAP = 0.003  # outside synchronized output, writes closer than this are one frame


def _take_terminal() -> None:
    """In the child, after setsid: the pty becomes its controlling terminal (``/dev/tty``), as in a terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class _Screen(pyte.Screen):
    """pyte's screen, answering device-attribute and cursor-position queries through the pty."""

    def __init__(self, columns: int, lines: int, reply: Callable[[bytes], None]) -> None:
        super().__init__(columns, lines)
        self._reply = reply

    def write_process_input(self, data: str) -> None:
        self._reply(data.encode())


@dataclass
class Condition:
    """Something to wait for on the screen; ``when`` is the read time of the chunk that made it true."""

    test: Callable[[list[str]], bool]
    event: threading.Event = field(default_factory=threading.Event)
    when: float = 0.0
    synced: int = 0  # synchronized updates the program had written by then


@dataclass
class Traffic:
    """What the program wrote: bytes, frames, and the bytes of each frame."""

    bytes: int = 0
    frames: int = 0
    frame_bytes: list[int] = field(default_factory=list)
    synced: int = 0  # frames that were synchronized updates

    def since(self, mark: Traffic) -> Traffic:
        return Traffic(
            self.bytes - mark.bytes,
            self.frames - mark.frames,
            self.frame_bytes[len(mark.frame_bytes) :],
            self.synced - mark.synced,
        )

    def copy(self) -> Traffic:
        return Traffic(self.bytes, self.frames, list(self.frame_bytes), self.synced)


@dataclass
class Blanked:
    """A frame end at which ``blank(screen)`` held where it did not at the frame end before: both screens, and
    the bytes that went from one to the other (the frame's own, and any written between frames)."""

    when: float  # seconds since the program started
    frame: int  # frames written by then
    before: list[str]
    after: list[str]
    data: bytes

    def dump(self) -> str:
        """The two screens and the frame's bytes (escapes shown as ``\\x1b``), for a person to read."""
        rule = "-" * len(self.before[0]) if self.before else ""
        return "\n".join(
            [
                f"frame {self.frame} at {self.when * 1000:.1f} ms ({len(self.data)} bytes)",
                "before:",
                rule,
                *self.before,
                rule,
                "after:",
                rule,
                *self.after,
                rule,
                "bytes:",
                repr(self.data),
            ]
        )


class Terminal:
    """Run ``argv`` on a ``columns`` x ``lines`` pty with a VT emulator reading its output."""

    def __init__(
        self,
        argv: list[str],
        *,
        env: dict[str, str],
        cwd: str,
        columns: int = 120,
        lines: int = 40,
        record: bool = False,
        blank: Callable[[list[str]], bool] | None = None,
    ) -> None:
        """``record`` keeps every chunk read (``self.record``); ``blank`` is checked at every frame end, and a
        frame end where it holds after one where it did not is kept in ``self.blanked`` (``Blanked``: e.g. a
        frame that left the transcript area empty while it had text)."""
        # The reader timestamps what it reads once it has the GIL again, and the drawer (pyte, pure Python) holds
        # it for a switch interval at a time: 5 ms by default, several in a row on a loaded machine, so a frame's
        # read time came late by up to tens of ms (docs/speed.md, "Eighth wave"). The reader asks for it sooner.
        sys.setswitchinterval(min(sys.getswitchinterval(), READ_SWITCH_INTERVAL))
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self._lock = threading.Lock()
        self._screen = _Screen(columns, lines, self.write)
        self._stream = pyte.ByteStream(self._screen)
        self._conditions: list[Condition] = []
        self._in_sync = False
        self._tail = b""  # the end of the last chunk (a marker may be split across reads)
        self._frame_start_bytes = 0
        self._last_read = 0.0
        self.traffic = Traffic()
        self.lagging_ms = 0.0  # the longest time a chunk waited behind the emulator
        self.frame_ends: list[float] = []  # the read time of each synchronized update's end (monotonic)
        self._inbox: deque[tuple[float, bytes]] = deque()
        self._arrived = threading.Condition()
        self.record: list[tuple[float, bytes]] | None = [] if record else None
        self._blank = blank
        self._was_blank = True  # the screen starts empty: the first frame with text arms the check
        self._since_frame = bytearray()  # the bytes since the last frame end (with ``blank`` only)
        self._last_display: list[str] = []
        self.blanked: list[Blanked] = []
        self.emulator_errors: list[str] = []  # what the emulator could not draw (the screen may be stale after one)
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=_take_terminal,  # no threads of ours run yet: the reader starts below
        )
        os.close(slave)
        self._reader = threading.Thread(target=self._read, name="terminal-reader", daemon=True)
        self._drawer = threading.Thread(target=self._draw, name="terminal-drawer", daemon=True)
        self._reader.start()
        self._drawer.start()

    # ------------------------------------------------------------------ input
    def write(self, data: bytes) -> float:
        """Type ``data``; returns when it was sent."""
        sent = time.monotonic()
        try:
            os.write(self.master, data)
        except OSError:
            pass
        return sent

    # ------------------------------------------------------------------ output
    def _read(self) -> None:
        """Drain the pty at once (a slow emulator must not hold the program's writes back) and timestamp."""
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            now = time.monotonic()
            self._answer_queries(data)
            with self._arrived:
                self._inbox.append((now, data))
                self._arrived.notify()
        with self._arrived:
            self._inbox.append((0.0, b""))
            self._arrived.notify()

    def _draw(self) -> None:
        """Feed what was read to the emulator, in order, and check the conditions waited for."""
        while True:
            with self._arrived:
                while not self._inbox:
                    self._arrived.wait()
                now, data = self._inbox.popleft()
            if not data:
                break
            if self.record is not None:
                self.record.append((now - self.started, data))
            with self._lock:
                try:
                    self._take(data, now)
                except Exception as exc:  # a dead drawer would freeze the screen: a wait that looks like a hang
                    self.emulator_errors.append(f"{type(exc).__name__}: {exc} (in {len(data)} bytes: {data[:120]!r})")
            self.lagging_ms = max(self.lagging_ms, (time.monotonic() - now) * 1000)
        with self._lock:
            for condition in self._conditions:
                condition.event.set()  # the program is gone: wake every waiter

    def _take(self, data: bytes, now: float) -> None:
        # On a busy machine one read can hold the end of a frame and the start of the next: the conditions are
        # checked at each frame's end, on the screen as that frame left it, as a terminal would have shown it.
        start = 0
        while (end := data.find(SYNC_END, start)) >= 0:
            self._take_part(data[start : end + len(SYNC_END)], now)
            start = end + len(SYNC_END)
        if start < len(data):
            self._take_part(data[start:], now)

    def _take_part(self, data: bytes, now: float) -> None:
        traffic = self.traffic
        joined = self._tail + data
        starts, ends = joined.count(SYNC_START), joined.count(SYNC_END)
        self._tail = data[-(len(SYNC_END) - 1) :]
        traffic.bytes += len(data)
        self._stream.feed(data)
        if starts or ends:
            self._in_sync = joined.rfind(SYNC_START) > joined.rfind(SYNC_END)
            for _ in range(ends):
                self.frame_ends.append(now)
                traffic.frames += 1
                traffic.synced += 1
                traffic.frame_bytes.append(traffic.bytes - self._frame_start_bytes)
                self._frame_start_bytes = traffic.bytes
        elif not self._in_sync and now - self._last_read > BURST_GAP:
            traffic.frames += 1  # a program without synchronized output: count bursts of writes
            if traffic.frame_bytes or self._frame_start_bytes:
                traffic.frame_bytes.append(traffic.bytes - len(data) - self._frame_start_bytes)
            self._frame_start_bytes = traffic.bytes - len(data)
        self._last_read = now
        if self._blank is not None:
            self._check_blank(data)
        if not self._in_sync and self._conditions:
            display = self._screen.display
            for condition in list(self._conditions):
                if condition.test(display):
                    condition.when = now
                    condition.synced = traffic.synced
                    condition.event.set()
                    self._conditions.remove(condition)

    def _check_blank(self, data: bytes) -> None:
        self._since_frame += data
        if self._in_sync:
            return
        assert self._blank is not None
        display = list(self._screen.display)
        blank = self._blank(display)
        if blank and not self._was_blank:
            when = self._last_read - self.started
            self.blanked.append(
                Blanked(when, self.traffic.frames, self._last_display, display, bytes(self._since_frame))
            )
        self._was_blank = blank
        self._last_display = display
        self._since_frame.clear()

    def _answer_queries(self, data: bytes) -> None:
        if b"$p" in data:
            for match in _DECRQM.finditer(data):
                mode = int(match.group(1))
                self.write(b"\x1b[?%d;%d$y" % (mode, 2 if mode == 2026 else 0))
        if b"\x1b]1" in data:
            for match in _OSC_COLOUR.finditer(data):
                colour = b"ffff/ffff/ffff" if match.group(1) == b"10" else b"0000/0000/0000"
                self.write(b"\x1b]" + match.group(1) + b";rgb:" + colour + b"\x1b\\")

    # ------------------------------------------------------------------ the screen
    def display(self) -> list[str]:
        with self._lock:
            return list(self._screen.display)

    def cells(self) -> list[list[tuple[str, str, str, bool, bool, bool]]]:
        """Every cell as drawn: its text, colours, bold, reverse and underline (to compare two screens whole)."""
        with self._lock:
            buffer, screen = self._screen.buffer, self._screen
            return [
                [
                    (char.data, char.fg, char.bg, char.bold, char.reverse, char.underscore)
                    for char in (buffer[y][x] for x in range(screen.columns))
                ]
                for y in range(screen.lines)
            ]

    def watch(self, test: Callable[[list[str]], bool]) -> Condition:
        """Start watching for ``test(screen lines)`` at frame ends; the condition's event is set when it holds."""
        condition = Condition(test)
        with self._lock:
            if not self._in_sync and test(self._screen.display):
                condition.when = time.monotonic()
                condition.event.set()
            else:
                self._conditions.append(condition)
        return condition

    def forget(self, condition: Condition) -> None:
        with self._lock:
            if condition in self._conditions:
                self._conditions.remove(condition)

    def wait(self, test: Callable[[list[str]], bool], timeout: float) -> float | None:
        """Wait until ``test(screen lines)`` holds at a frame end; returns the read time that made it hold."""
        condition = self.watch(test)
        if not condition.event.wait(timeout) or not condition.when:
            self.forget(condition)
            return None
        return condition.when

    def snapshot(self) -> Traffic:
        with self._lock:
            return self.traffic.copy()

    # ------------------------------------------------------------------ the process
    def _pids(self) -> list[int]:
        """The program and every process it started."""
        pids, queue = [], [self.proc.pid]
        while queue:
            pid = queue.pop()
            pids.append(pid)
            for task in Path(f"/proc/{pid}/task").glob("*/children"):
                try:
                    queue.extend(int(child) for child in task.read_text().split())
                except OSError:
                    pass
        return pids

    def cpu_seconds(self) -> float:
        """User + system CPU of the program and its live children."""
        total = 0
        for pid in self._pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
        return total / _CLK_TCK

    def rss_mb(self) -> tuple[float, float]:
        """Resident memory now of (the program, the program and its children), in MB."""
        sizes = []
        for pid in self._pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        sizes.append(int(line.split()[1]) / 1024)
            except OSError:
                continue
        return (sizes[0] if sizes else 0.0), sum(sizes)

    def close(self) -> None:
        """Stop the program and everything it started (some daemonize out of its process group), then the reader."""
        pids = self._pids()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            try:
                self.proc.wait(timeout=3)
                if sig == signal.SIGTERM and any(is_alive(pid) for pid in pids[1:]):
                    time.sleep(0.5)
                    continue
                break
            except subprocess.TimeoutExpired:
                continue
        self._reader.join(timeout=3)
        self._drawer.join(timeout=30)
        os.close(self.master)
