"""``navtui undo`` and ``--json``'s checkpoint ids, run as real processes against the fake server."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from navtui.checkpoints.cli import undo_main
from navtui.session.manager import SessionManager
from navtui.tools.shell.lifetime import SCRATCH_PREFIX, sweep_leftovers
from tests.fakes import Text, ToolCall

MODEL = "qwen2.5-coder:7b"
FIXTURES = Path(__file__).resolve().parents[1] / "session" / "fixtures"


def navtui_args(server: object, *args: str) -> list[str]:
    url = server.url  # type: ignore[attr-defined]
    return [sys.executable, "-m", "navtui", *args, "-p", "ollama", "-b", url, "-m", MODEL, "--approval", "yolo"]


def test_json_events_carry_each_turns_checkpoint_and_undo_puts_the_files_back(
    fake_server, workspace: Path, capsys
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    fake_server.script(ToolCall("shell", {"command": "echo 'def add(a, b):\n    return 0' > calc.py && touch new.py"}))
    fake_server.script(Text("done"))
    run = subprocess.run(
        navtui_args(fake_server, "--json", "break calc"),
        capture_output=True,
        text=True,
        cwd=workspace,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    turns = [event for line in run.stdout.splitlines() if (event := json.loads(line))["type"] == "turn_finished"]
    assert "checkpoint" in turns[0] and "checkpoint" not in turns[1]
    session = SessionManager.continue_recent(workspace)
    assert session is not None and session.get_entry(turns[0]["checkpoint"]) is not None

    assert undo_main([], cwd=workspace) == 2  # no terminal to ask on, no --yes: nothing happens
    assert (workspace / "new.py").exists()
    capsys.readouterr()
    assert undo_main(["--yes", "--diff"], cwd=workspace) == 0
    out = capsys.readouterr().out
    assert "    changed   calc.py\n    created   new.py\n" in out
    assert "-    return a + b\n+    return 0\n" in out
    assert "Put back 2 files.\n" in out
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert not (workspace / "new.py").exists()
    assert undo_main(["--yes"], cwd=workspace) == 1
    assert "Nothing to undo" in capsys.readouterr().out


def test_undo_after_kill_9_mid_turn_still_restores(fake_server, workspace: Path, private_temp: Path, capsys) -> None:
    (workspace / "calc.py").write_text("original\n")
    os.mkfifo(workspace / "ready")  # a FIFO is no file for checkpoints; the test waits on it
    fake_server.script(ToolCall("write", {"path": "notes.md", "content": "first turn\n"}))
    fake_server.script(ToolCall("shell", {"command": "echo half > calc.py && echo go > ready && sleep 60"}))
    child = subprocess.Popen(
        navtui_args(fake_server, "--print", "work"),
        cwd=workspace,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        with open(workspace / "ready") as fifo:  # blocks until the shell command is mid-way
            assert fifo.read() == "go\n"
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert (workspace / "calc.py").read_text() == "half\n"
    # Its shell's scratch dir (TMPDIR) outlives a kill -9; the next start in this home removes it (as here).
    left = list(private_temp.glob(f"{SCRATCH_PREFIX}{child.pid}.*"))
    assert left
    sweep_leftovers(0.2)
    assert not any(path.exists() for path in left)

    assert undo_main(["--yes"], cwd=workspace) == 0  # the cut-off turn: back to the first turn's checkpoint
    out = capsys.readouterr().out
    assert "changed   calc.py" in out and "Put back 1 file.\n" in out  # (it said "1 file(s)")
    assert (workspace / "calc.py").read_text() == "original\n" and (workspace / "notes.md").exists()
    assert undo_main(["--yes"], cwd=workspace) == 0  # then the first turn
    assert not (workspace / "notes.md").exists()


def test_a_pi_session_has_nothing_to_undo(workspace: Path, capsys) -> None:
    pi_file = workspace.parent / "pi.jsonl"  # as pi wrote it, in this directory
    pi_file.write_text(
        (FIXTURES / "pi-v3.jsonl").read_text().replace('"/home/dev/pi-project"', json.dumps(str(workspace)))
    )
    assert undo_main(["--session", str(pi_file)], cwd=workspace) == 1
    assert "Nothing to undo: no turn of this session changed files here" in capsys.readouterr().out


def test_undo_puts_files_back_only_where_it_runs_or_is_told(
    fake_server, workspace: Path, tmp_path: Path, capsys
) -> None:
    """A session file names its directory, and a session file is untrusted (a repository can ship one, `--session`
    takes any file): `navtui undo --session FILE --yes` run in another folder put files back in the one it named."""
    (workspace / "calc.py").write_text("kept\n")
    fake_server.script(ToolCall("shell", {"command": "echo changed > calc.py && touch new.py"}))
    fake_server.script(Text("done"))
    run = subprocess.run(
        navtui_args(fake_server, "--print", "work"), capture_output=True, text=True, cwd=workspace, timeout=60
    )
    assert run.returncode == 0, run.stderr
    session = SessionManager.continue_recent(workspace)
    assert session is not None and session.path.exists()
    shipped = tmp_path / "repo" / "notes.jsonl"  # the same file, as a cloned repository would carry it
    shipped.parent.mkdir()
    shutil.copyfile(session.path, shipped)

    assert undo_main(["--session", str(shipped), "--yes"], cwd=shipped.parent) == 2
    err = capsys.readouterr().err
    assert f"was recorded in {workspace.resolve()}, not here ({shipped.parent.resolve()}): nothing changed" in err
    assert f"name it with --cwd {workspace.resolve()}" in err
    assert (workspace / "calc.py").read_text() == "changed\n" and (workspace / "new.py").exists()
    assert undo_main(["--session", session.session_id[:8], "--yes"], cwd=shipped.parent) == 2  # by id: the same

    named = ["--session", str(shipped), "--yes", "--cwd", str(workspace)]
    assert undo_main(named, cwd=shipped.parent) == 0  # the user named the directory
    assert (workspace / "calc.py").read_text() == "kept\n" and not (workspace / "new.py").exists()
