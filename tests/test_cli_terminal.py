"""Every subcommand on a real pty, fed hostile names and contents: no foreign escape sequence reaches the terminal.

The hostile text is a session's name and label, an indexed file's content (an ST-terminated OSC too), an MCP
server's name, a theme's name, the directory's name and an exception's message. What navtui writes to the pty is
checked byte by byte: the only escape sequences allowed are the colours navtui itself chooses (SGR, as
``navtui search`` prints them), never the hostile ones.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from navtui.cli import main

OSC52_ST = "\x1b]52;c;cm0gLXJmIH4=\x1b\\"  # the clipboard, ST-terminated
TITLE_BEL = "\x1b]0;PWNED\x07"
CLEAR = "\x1b[2J"
C1_CSI = "\x9b2J"
DCS = "\x1bP1$r\x1b\\"
HIDDEN = "\x1b[8;30;40m"  # an SGR, but not one of navtui's: concealed black on black
HOSTILE = f"a{OSC52_ST}b{TITLE_BEL}c{CLEAR}d{C1_CSI}e{DCS}f{HIDDEN}g\u202eh"

_OWN_SGR = re.compile(rb"\x1b\[[0-9;]*m")


def foreign_sequences(output: bytes) -> list[str]:
    """What in ``output`` a terminal would act on, beyond navtui's own colours."""
    problems = []
    if HIDDEN.encode() in output:
        problems.append("the hostile SGR")
    rest = _OWN_SGR.sub(b"", output)
    for name, pattern in (("ESC", b"\x1b"), ("BEL", b"\x07")):
        if pattern in rest:
            problems.append(name)
    text = rest.decode("utf-8", "surrogateescape")  # a raw C1 byte (not UTF-8) becomes U+DC9B here
    problems += [f"U+{ord(c):04X}" for c in set(re.findall("[\x80-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]", text))]
    return problems


@contextmanager
def on_a_pty() -> Iterator[list[bytes]]:
    """``sys.stdout`` and ``sys.stderr`` on the slave side of a new pty; the bytes read from the master."""
    master, slave = os.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the slave side closed
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    saved = sys.stdout, sys.stderr
    try:
        with open(slave, "w", encoding="utf-8", closefd=False, buffering=1) as out:
            sys.stdout = sys.stderr = out
            yield chunks
    finally:
        sys.stdout, sys.stderr = saved
        os.close(slave)
        reader.join(timeout=10)
        os.close(master)


def run_on_pty(argv: list[str]) -> tuple[int, bytes]:
    with on_a_pty() as chunks:
        code = main(argv)
    return code, b"".join(chunks)


@pytest.fixture
def hostile_repo(tmp_path: Path, navtui_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose directory name, files, session, .mcp.json and theme are all hostile."""
    from navtui.session.manager import SessionManager

    repo = tmp_path / f"repo{HOSTILE}"
    repo.mkdir()
    (repo / "notes.py").write_text(f"def lookup():\n    return '{HOSTILE} needle'\n", encoding="utf-8")
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": {HOSTILE: {"command": "true"}}}), encoding="utf-8")
    themes = repo / ".navtui" / "themes"
    themes.mkdir(parents=True)
    theme = json.loads((Path(__file__).parents[1] / "navtui" / "themes" / "dark.json").read_text(encoding="utf-8"))
    theme["name"] = f"t{HOSTILE}"
    (themes / "hostile.json").write_text(json.dumps(theme), encoding="utf-8")
    session = SessionManager.create(repo)
    entry = session.append_message({"role": "user", "content": f"hello {HOSTILE}", "timestamp": 1})
    session.append_label(entry, HOSTILE)
    session.set_name(f"name {HOSTILE}")
    monkeypatch.chdir(repo)
    return repo


def _check(argv: list[str], *, expect: str | None = None, codes: tuple[int, ...] = (0, 1)) -> bytes:
    code, output = run_on_pty(argv)
    assert foreign_sequences(output) == [], (argv, output[-2000:])
    if expect is not None:
        assert expect.encode() in output, (argv, output[-2000:])
    assert code in codes, (argv, code, output[-2000:])
    return output


def test_every_subcommand_shows_hostile_text_inertly(hostile_repo: Path) -> None:
    shown = "a␛]52;c;cm0gLXJmIH4=␛\\b␛]0;PWNED␇c␛[2Jd\\x9b2Je"
    _check(["sessions"], expect=shown)
    _check(["sessions", "--all"], expect=shown)
    _check(["sessions", "--json"], expect="\\u001b]52")
    _check(["export", Path(next((Path(os.environ["NAVTUI_HOME"])).rglob("*.jsonl"))).as_posix(), "-o", "-"])
    _check(["themes", "list"], expect=shown)
    _check(["themes", "validate", str(hostile_repo / ".navtui" / "themes" / "hostile.json")], expect=shown)
    _check(["mcp", "list", "--no-connect"], expect=shown)  # only an invalid name: a warning, no crash
    _check(["mcp", "list"], expect="No MCP servers can be started")
    _check(["sandbox"], expect=shown)
    _check(["index", "--json"])
    _check(["search", "needle"], expect=shown)
    _check(["search", "-s", "lookup"])
    _check(["--cwd", f"missing{HOSTILE}", "--print", "x"], expect="missing", codes=(2,))  # an error quoting a path


def test_a_traceback_is_inert_too(monkeypatch: pytest.MonkeyPatch) -> None:
    import navtui.cli

    def crash(argv: list[str]) -> int:
        raise RuntimeError(f"bug while reading {HOSTILE}")

    monkeypatch.setattr(navtui.cli, "_main", crash)
    code, output = run_on_pty(["sessions"])
    assert code == 1
    assert b"RuntimeError: bug while reading a\xe2\x90\x9b]52" in output  # ␛ as UTF-8
    assert foreign_sequences(output) == []


def test_into_a_pipe_the_bytes_stay_and_nothing_fails(capfd: pytest.CaptureFixture[str], hostile_repo: Path) -> None:
    """Not a terminal: the session name comes out as written (data for the next program)."""
    assert main(["sessions"]) == 0
    out = capfd.readouterr().out
    assert f"name {HOSTILE}"[:40] in out
