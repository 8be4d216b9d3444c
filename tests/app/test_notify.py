"""Notifications for a user who looked away (ui.notify): which sequence for which terminal, and the bytes a
real terminal receives when a long turn ends and when an approval waits."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from navtui.app.notify import choose, sequence
from tests.fakes import Text, ToolCall

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from terminal import Terminal  # noqa: E402

MODEL = "qwen2.5-coder:7b"


def test_auto_picks_by_the_terminal_and_rings_the_bell_when_unsure() -> None:
    assert choose("auto", {"TERM_PROGRAM": "WezTerm", "TERM": "xterm-256color"}) == "osc9"
    assert choose("auto", {"TERM_PROGRAM": "iTerm.app"}) == "osc9"
    assert choose("auto", {"TERM": "xterm-kitty"}) == "osc9"
    assert choose("auto", {"TERM": "foot"}) == "osc777"
    assert choose("auto", {"TERM": "xterm-256color"}) == "bell"
    assert choose("auto", {"TERM_PROGRAM": "WezTerm", "TMUX": "/tmp/tmux-0/default,1,0"}) == "bell"  # inside tmux
    assert choose("osc777", {}) == "osc777" and choose("off", {"TERM_PROGRAM": "WezTerm"}) is None


def test_the_sequences_carry_safe_text() -> None:
    assert sequence("osc9", "navtui", "done") == "\x1b]9;navtui: done\x07"
    assert sequence("osc777", "navtui", "a;b") == "\x1b]777;notify;navtui;a,b\x07"  # ";" would split the fields
    assert sequence("bell", "navtui", "done") == "\x07"
    assert "\x1b]52" not in sequence("osc9", "navtui", "shell: echo \x1b]52;c;x\x07")  # a command's text is shown


def test_a_long_turn_and_a_waiting_approval_are_announced(fake_server, workspace: Path, navtui_home: Path) -> None:
    (navtui_home / "settings.json").write_text(json.dumps({"ui": {"notify": "osc9", "notify_after": 0}}))
    fake_server.script(Text("all done"))
    fake_server.script(ToolCall("write", {"path": "a.txt", "content": "x\n"}))
    fake_server.script(Text("written"))
    argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL]
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT))
    term = Terminal(argv, env=env, cwd=str(workspace), columns=100, lines=30, record=True)

    def received() -> bytes:
        assert term.record is not None
        return b"".join(chunk for _, chunk in term.record)

    try:
        assert term.wait(lambda lines: MODEL in lines[-1] and "starting" not in lines[-1], 60), term.display()
        term.write(b"hello\r")
        assert term.wait(lambda lines: any("all done" in line for line in lines), 30), "\n".join(term.display())
        finished = re.compile(rb"\x1b\]9;navtui: the turn finished after \d+ s\x07")
        assert term.wait(lambda _: finished.search(received()) is not None, 30), received()[-2000:]
        term.write(b"write a file\r")
        assert term.wait(lambda lines: any("Allow write" in line for line in lines), 30), "\n".join(term.display())
        assert term.wait(
            lambda _: b"\x1b]9;navtui: approval waits \xc2\xb7 write: a.txt (1 line)\x07" in received(), 30
        ), re.findall(rb"\x1b\]9;[^\x07]*", received())
    finally:
        term.close()
