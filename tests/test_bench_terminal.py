"""The outside benchmark's terminal (bench/terminal.py): it answers a program's queries, counts its frames and
times what appears on its screen."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from terminal import Terminal  # noqa: E402

PROGRAM = r"""
import os, sys, termios, tty
tty.setraw(0)
out = sys.stdout.buffer
out.write(b"\x1b[?2026$p"); out.flush()
answer = b""
while not answer.endswith(b"$y"):
    answer += os.read(0, 1)
for n in range(2):  # two frames in synchronized output
    out.write(b"\x1b[?2026h\x1b[%d;1Hframe %d\x1b[?2026l" % (n + 1, n)); out.flush()
out.write(b"\x1b[5;1H" + answer.replace(b"\x1b", b"ESC")); out.flush()
typed = os.read(0, 1)
out.write(b"\x1b[6;1Hgot " + typed); out.flush()
os.read(0, 1)
"""


def test_the_terminal_answers_counts_frames_and_times_an_echo(tmp_path: Path) -> None:
    term = Terminal([sys.executable, "-c", PROGRAM], env=dict(os.environ), cwd=str(tmp_path), columns=40, lines=8)
    try:
        shown = term.wait(lambda lines: "ESC[?2026;2$y" in lines[4], timeout=10)
        assert shown is not None  # synchronized output is supported (mode 2026, "reset")
        assert term.display()[:2] == ["frame 0".ljust(40), "frame 1".ljust(40)]
        assert term.snapshot().frames >= 2
        sent = term.write(b"Z")
        echoed = term.wait(lambda lines: lines[5].startswith("got Z"), timeout=10)
        assert echoed is not None and echoed >= sent
    finally:
        term.write(b"q")
        term.close()
    assert term.proc.returncode is not None


BLANKING = r"""
import os, sys, tty
tty.setraw(0)
out = sys.stdout.buffer
out.write(b"\x1b[?2026h\x1b[1;1Hsome text\x1b[?2026l"); out.flush()
os.read(0, 1)
out.write(b"\x1b[?2026h\x1b[1;1H\x1b[9X\x1b[?2026l"); out.flush()  # the text erased: a blank frame
os.read(0, 1)
"""


def test_a_frame_that_blanks_the_watched_area_is_kept_with_its_bytes(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", BLANKING]
    term = Terminal(
        argv, env=dict(os.environ), cwd=str(tmp_path), columns=20, lines=4, blank=lambda lines: not lines[0].strip()
    )
    try:
        assert term.wait(lambda lines: "some text" in lines[0], timeout=10) is not None
        assert term.blanked == []
        term.write(b"x")
        assert term.wait(lambda lines: not lines[0].strip(), timeout=10) is not None
        [blanked] = term.blanked
        assert "some text" in blanked.before[0] and not blanked.after[0].strip()
        assert b"\x1b[9X" in blanked.data and "some text" in blanked.dump()
    finally:
        term.write(b"q")
        term.close()


def test_the_trace_counts_the_ui_loops_long_callbacks_while_the_reply_streams() -> None:
    from bench_terminal import long_callbacks

    spans = [  # [start, end, thread, what, CPU ms], as bench/trace_loop.py keeps them
        [10.0, 10.006, "ui", "task Timer._run_timer screen_update", 5.0],
        [10.1, 10.102, "ui", "task Timer._run_timer screen_update", 2.0],
        [10.2, 10.21, "ui", "task MessagePump._process_messages AssistantView", 9.0],
        [10.21, 10.215, "ui", "gc gen1 (3 freed)", 4.5],  # inside a callback: counted on its own
        [10.3, 10.31, "navtui-network", "task _produce", 8.0],  # another thread
        [10.4, 10.4, "ui", "display rows [1]", 0.0],  # a frame's note, not a callback
        [9.0, 9.01, "ui", "task Worker._run", 7.0],  # before the reply streamed
    ]
    found = long_callbacks(spans, 10.0, 11.0)
    assert found["over"] == 2 and found["cpu_ms"]["n"] == 3 and found["cpu_ms"]["max"] == 9.0
    assert found["by_name"] == [
        ["task MessagePump._process_messages AssistantView", 1, 9.0, 1],
        ["task Timer._run_timer screen_update", 2, 5.0, 1],
        ["gc gen1", 1, 4.5, 1],
    ]
