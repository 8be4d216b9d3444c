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
