"""Session files whose fields hold the wrong JSON types, through every CLI path that reads them.

A session file is another program's output (pi, omp, a repository's, a crash's): a ``"text": 5`` in a user
message ended ``navtui sessions`` (every session of the directory) with a TypeError traceback; a ``"type": []``
or ``"role": {}`` ended ``navtui export``, ``undo`` and ``-r`` the same way (unhashable in a set lookup), and a
header's ``"cwd": -1`` in ``Path()``. Each now lists, exports and resumes what it can read, and no file changes.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from navtui.session.listing import project_sessions_dir
from tests.fakes import Text
from tests.fakes.server import FakeServer
from tests.run_main import run_main
from tests.test_cli_terminal import foreign_sequences

STAMP = "2026-02-16T10:20:31.000Z"


def header(session_id: str, cwd: object, **extra: object) -> dict[str, object]:
    return {"type": "session", "version": 3, "id": session_id, "timestamp": STAMP, "cwd": cwd, **extra}


def user(entry_id: str, parent: str | None, content: object, **message: object) -> dict[str, object]:
    body = {"role": "user", "content": content, "timestamp": 1, **message}
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": STAMP, "message": body}


def hostile_files(workspace: Path) -> dict[str, list[dict[str, object]]]:
    cwd = str(workspace)
    return {
        "a0000000000000a1": [header("a0000000000000a1", cwd), user("00000001", None, [{"type": "text", "text": 5}])],
        "a0000000000000a2": [
            header("a0000000000000a2", cwd),
            user("00000001", None, "first"),
            {**user("00000002", "00000001", "x"), "type": ["message"]},
            {"type": {"a": 1}, "id": "00000003", "parentId": "00000001", "timestamp": STAMP},
            {"type": "model_change", "id": "00000004", "parentId": "00000001", "timestamp": STAMP, "modelId": {}},
        ],
        "a0000000000000a3": [header("a0000000000000a3", cwd), user("00000001", None, "hi", role={"x": 1})],
        "a0000000000000a4": [
            header("a0000000000000a4", -1, timestamp={"when": 1}),
            user("00000001", None, "header of wrong types"),
        ],
    }


def write_sessions(workspace: Path) -> dict[str, Path]:
    folder = project_sessions_dir(workspace)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for session_id, lines in hostile_files(workspace).items():
        path = folder / f"2026-02-16T10-20-30-000Z_{session_id}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        paths[session_id] = path
    return paths


def on_a_pty(argv: list[str], cwd: Path) -> tuple[int, bytes]:
    """``navtui ARGS`` as its own process with stdout and stderr on a new pty; what it wrote there."""
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "navtui", *argv], cwd=cwd, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every writer closed the pty
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return child.wait(), b"".join(chunks)


def test_navtui_sessions_lists_files_whose_fields_have_the_wrong_types(workspace: Path) -> None:
    paths = write_sessions(workspace)
    before = {path: path.read_bytes() for path in paths.values()}
    for argv in (["sessions"], ["sessions", "--all"]):
        code, shown = on_a_pty(argv, workspace)
        assert code == 0 and b"Traceback" not in shown, shown.decode(errors="replace")
        assert foreign_sequences(shown) == []
        for session_id in paths:
            assert session_id[:8].encode() in shown, (session_id, shown.decode(errors="replace"))
    assert b"first" in shown and b"header of wrong types" in shown
    assert {path: path.read_bytes() for path in paths.values()} == before


@pytest.mark.parametrize("session_id", ["a0000000000000a1", "a0000000000000a2", "a0000000000000a3", "a0000000000000a4"])
def test_export_undo_and_resume_read_what_they_can_of_such_a_file(
    fake_server: FakeServer, workspace: Path, tmp_path: Path, session_id: str
) -> None:
    paths = write_sessions(workspace)
    before = paths[session_id].read_bytes()
    for out in ("page.html", "page.md"):
        run = run_main("export", session_id, "-o", str(tmp_path / out), cwd=workspace)
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
        assert (tmp_path / out).stat().st_size > 0
    run = run_main("undo", "--session", session_id, "--yes", cwd=workspace)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert "Nothing to undo" in run.stdout + run.stderr
    fake_server.script(Text("resumed"))
    run = run_main(
        "-p",
        "ollama",
        "-b",
        fake_server.url,
        "-m",
        "qwen2.5-coder:7b",
        "--print",
        "-r",
        session_id,
        "go",
        cwd=workspace,
    )
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert run.stdout.strip() == "resumed"
    assert paths[session_id].read_bytes()[: len(before)] == before  # appended to at most, never rewritten
