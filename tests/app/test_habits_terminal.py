"""The habits keys as a terminal sends them (a real pty, drawn by the benchmark's VT emulator): ESC CR for Alt+Enter,
``\\`` CR, ETX for ctrl+c, BEL for ctrl+g with the app suspended while $VISUAL runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.fakes import Text

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from terminal import Terminal  # noqa: E402

MODEL = "qwen2.5-coder:7b"
EDITOR = """
import sys
path = sys.argv[1]
text = open(path).read()
open(path, "w").write(text.replace("draft", "edited in the editor"))
"""


def _shows(text: str):
    return lambda lines: any(text in line for line in lines)


def test_keys_from_a_real_terminal(fake_server, workspace: Path, tmp_path: Path) -> None:
    fake_server.script(Text("first answer"))
    fake_server.script(Text("partial "), Text("never", delay=30))
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR)
    argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL]
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT), VISUAL=f"{sys.executable} {editor}")
    term = Terminal(argv, env=env, cwd=str(workspace), columns=100, lines=30)
    try:
        assert term.wait(lambda lines: MODEL in lines[-1] and "starting" not in lines[-1], 60), term.display()
        term.write(b"one\x1b\rtwo\\\rthree\r")  # Alt+Enter, then "\" + Enter: one message of three lines
        assert term.wait(_shows("first answer"), 30), "\n".join(term.display())
        assert fake_server.chat_requests[-1].json["messages"][-1]["content"] == "one\ntwo\nthree"

        term.write(b"go on\r")
        assert term.wait(_shows("partial"), 30), "\n".join(term.display())
        term.write(b"draft\x03")  # ctrl+c while the answer streams: the turn stops, the app and the draft stay
        assert term.wait(_shows("Interrupted"), 30), "\n".join(term.display())
        assert term.proc.poll() is None

        term.write(b"\x07")  # ctrl+g: the editor runs on the terminal, its text comes back to the prompt
        assert term.wait(_shows("edited in the editor"), 30), "\n".join(term.display())
        term.write(b"\x03")  # clears the prompt
        assert term.wait(lambda lines: not any("edited in the editor" in line for line in lines), 30)
        term.write(b"\x03")
        assert term.wait(_shows("again to quit"), 30), "\n".join(term.display())
        term.write(b"\x03")
        assert term.proc.wait(timeout=30) == 0
        # back on the normal screen: how to come back (the session has entries)
        assert term.wait(_shows("to continue this session: navtui -c (or navtui -r "), 30), "\n".join(term.display())
    finally:
        term.close()


def test_a_paste_holding_escape_sequences_stays_a_paste(fake_server, workspace: Path) -> None:
    # Text copied with colour codes in it (a log, `git diff --color`): inside a bracketed paste Textual's parser
    # took an ESC for the start of a key sequence, and sent what followed it (up to 32 characters) as keys: the
    # CR among them sent the prompt before the user pressed Enter, and the paste came apart.
    fake_server.script(Text("seen"))
    argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL]
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT))
    term = Terminal(argv, env=env, cwd=str(workspace), columns=100, lines=30)
    try:
        assert term.wait(lambda lines: MODEL in lines[-1] and "starting" not in lines[-1], 60), term.display()
        term.write(b"\x1b[200~ERROR \x1b[31mred\x1b[0m done\rnext line\x1b[201~")
        assert term.wait(_shows("ERROR ␛[31mred␛[0m done"), 30), "\n".join(term.display())
        assert term.wait(_shows("next line"), 30), "\n".join(term.display())
        assert fake_server.chat_requests == []  # nothing was sent
        term.write(b"!\r")  # keys after it are keys again
        assert term.wait(_shows("seen"), 30), "\n".join(term.display())
        sent = fake_server.chat_requests[-1].json["messages"][-1]["content"]
        assert sent == "ERROR ␛[31mred␛[0m done\nnext line!"
    finally:
        term.close()


def test_the_paste_guard_across_reads() -> None:
    from navtui.app.driver import PasteGuard

    guard = PasteGuard()
    assert guard.feed("\x1b") == "\x1b" and guard.feed("\x1b[A") == "\x1b[A"  # keys: nothing held, nothing changed
    assert guard.feed("a\x1b[200~b\x1b[1m") == "a\x1b[200~b␛[1m" and guard.pasting
    assert guard.feed("c\x1b[20") == "c"  # the end marker may be starting: held for the next read
    assert guard.feed("1~\x1b") == "\x1b[201~\x1b" and not guard.pasting  # an Escape after the paste stays one
    assert guard.feed("\x1b[200~x\x1b[2") == "\x1b[200~x" and guard.feed("J\x1b[201~") == "␛[2J\x1b[201~"


def test_the_paste_guard_sees_a_start_marker_split_across_reads() -> None:
    # A read that ends inside the start marker went on as it was, and the next one, which holds the rest of the
    # marker, was not taken for a paste: its ESCs reached the parser as keys (the CR after them sent the prompt).
    from navtui.app.driver import PasteGuard

    guard = PasteGuard()
    assert guard.feed("a\x1b[20") == "a\x1b[20" and not guard.pasting  # passed on (it may be a key), remembered
    assert guard.feed("0~b\x1b[1m\r") == "0~b␛[1m\r" and guard.pasting
    assert guard.feed("\x1b[201~\x1b[2") == "\x1b[201~\x1b[2" and not guard.pasting
    assert guard.feed("~") == "~" and not guard.pasting  # \x1b[2~ is the Insert key, not a paste
    for cut in range(1, 6):  # the marker cut after each of its characters, and in three reads
        guard = PasteGuard()
        marker = "\x1b[200~"
        shown = (
            guard.feed("x" + marker[:cut]) + guard.feed(marker[cut : cut + 1]) + guard.feed(marker[cut + 1 :] + "\x1bq")
        )
        assert shown == "x" + marker + "␛q" and guard.pasting, cut
    guard = PasteGuard()
    assert guard.feed("\x1b") == "\x1b" and guard.feed("\x1b") == "\x1b" and guard.feed("[A") == "[A"
    assert not guard.pasting  # keys: nothing held back, nothing changed


def test_the_paste_guard_sees_a_start_marker_split_in_the_read_that_ends_a_paste() -> None:
    # Two pastes in a row (or a paste, a key, a paste): the read that holds the first one's end marker may end
    # inside the next one's start marker. That tail was not remembered, so the second paste's ESCs reached the
    # parser as keys.
    from navtui.app.driver import PasteGuard

    guard = PasteGuard()
    assert guard.feed("\x1b[200~one\x1b[201~x\x1b[2") == "\x1b[200~one\x1b[201~x\x1b[2" and not guard.pasting
    assert guard.feed("00~two\x1b[1m\r") == "00~two␛[1m\r" and guard.pasting
    assert guard.feed("\x1b[201~") == "\x1b[201~" and not guard.pasting


def test_textual_s_input_loop_is_the_one_the_driver_copies() -> None:
    # KeyNoticingDriver.run_input_thread is a copy of Textual's (read, decode, parse) with the paste guard put
    # between the decode and the parse. A Textual release that changes its loop (a fix, a new step) would be lost
    # behind the copy without a word: this fails then, to have the copy compared and this digest updated.
    import hashlib
    import inspect

    from textual.drivers.linux_driver import LinuxDriver

    source = inspect.getsource(LinuxDriver.run_input_thread)
    digest = hashlib.sha256(source.encode()).hexdigest()
    assert digest == "d796af6d69db337d6fa6bd463984f7d17188d991dbb22f60efb92a8a9619507c", source


def test_keys_typed_while_navtui_starts_reach_the_prompt(fake_server, workspace: Path) -> None:
    # A user types as soon as they have typed `navtui`: the keys are in the terminal before the first frame. Textual
    # focused the first focusable widget (the transcript) as the screen was composed, and the prompt's own focus
    # came after the keys already queued: they went to the transcript and were lost.
    argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL]
    env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(ROOT))
    term = Terminal(argv, env=env, cwd=str(workspace), columns=100, lines=30)
    try:
        term.write(b"early keys")
        assert term.wait(lambda lines: MODEL in lines[-1] and "starting" not in lines[-1], 60), term.display()
        assert term.wait(_shows("│ early keys"), 30), "\n".join(term.display())
    finally:
        term.close()
