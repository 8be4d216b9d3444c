"""``navtui export -o`` and ``/export PATH`` write over an earlier export only, never over another file.

A mistyped ``-o notes.md`` replaced the user's notes with the page, and ``-o`` naming the session file itself
replaced the session with its own export (the conversation was gone). ``--force`` still replaces on purpose.
"""

from __future__ import annotations

import os
import stat
import subprocess
import threading
from pathlib import Path

from navtui.session.manager import SessionManager
from tests.run_main import run_main


def a_session(workspace: Path) -> SessionManager:
    session = SessionManager.create(workspace)
    session.append_message({"role": "user", "content": "hello there", "timestamp": 1})
    return session


def test_export_never_writes_over_a_file_that_is_no_export(workspace: Path) -> None:
    session = a_session(workspace)
    notes = workspace / "notes.md"
    notes.write_text("# my notes\n\nkeep me\n")
    original = session.path.read_bytes()
    for target in (str(notes), str(session.path)):
        run = run_main("export", session.session_id, "-o", target, cwd=workspace)
        assert run.returncode == 1, run.stdout
        assert f"navtui export: {target} exists and is not an earlier export; nothing was written" in run.stderr
        assert "add --force to replace it" in run.stderr
    assert notes.read_text() == "# my notes\n\nkeep me\n" and session.path.read_bytes() == original


def test_an_earlier_export_is_written_again_and_force_replaces_any_file(workspace: Path) -> None:
    session = a_session(workspace)
    for name in ("page.html", "page.md"):
        for _ in range(2):
            run = run_main("export", session.session_id, "-o", name, cwd=workspace)
            assert run.returncode == 0, run.stderr
        assert "hello there" in (workspace / name).read_text()
    (workspace / "notes.txt").write_text("mine\n")
    run = run_main("export", session.session_id, "-o", "notes.txt", "--force", cwd=workspace)
    assert run.returncode == 0, run.stderr
    assert (workspace / "notes.txt").read_text().startswith("<!DOCTYPE html>")


def test_export_to_a_named_pipe_is_refused_at_once_not_held(workspace: Path) -> None:
    # The check that the path holds an earlier export opened it to read its head: a named pipe (mkfifo, a
    # repository's own) waited for a writer for ever, holding navtui export, and /export's thread with navtui's exit.
    session = a_session(workspace)
    pipe = workspace / "page.html"
    os.mkfifo(pipe)
    done = threading.Event()
    results: list[subprocess.CompletedProcess[str]] = []

    def export() -> None:
        results.append(run_main("export", session.session_id, "-o", str(pipe), cwd=workspace))
        done.set()

    worker = threading.Thread(target=export, daemon=True)
    worker.start()
    try:
        assert done.wait(30), "navtui export is held by the named pipe"
    finally:
        if not done.is_set():  # let the old code's open() go: a writer comes and goes
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
            worker.join(10)
    (run,) = results
    assert run.returncode == 1 and "is not a regular file; nothing was written" in run.stderr
    assert stat.S_ISFIFO(pipe.stat().st_mode)
