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
