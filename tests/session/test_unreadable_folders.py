"""A session folder that exists but cannot be listed is named, with the fix, not taken for "no sessions".

``navtui sessions`` said "No sessions for this directory", and ``-c`` "No earlier session", when the folder was
unreadable (made by another user, a mode changed by hand) or a link to nowhere: the user's sessions looked lost.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navtui.session.listing import project_sessions_dir
from tests.fakes import Text
from tests.fakes.server import FakeServer
from tests.run_main import run_main


def test_a_session_folder_that_is_a_loop_of_links_is_named(workspace: Path, fake_server: FakeServer) -> None:
    folder = project_sessions_dir(workspace)
    folder.parent.mkdir(parents=True)
    folder.symlink_to(folder)  # a loop: ELOOP for every reader, root too
    for argv in (["sessions"], ["sessions", "--all"]):
        run = run_main(*argv, cwd=workspace)
        assert run.returncode == 0, run.stderr
        assert f"Cannot read the session folder {folder} (Too many levels of symbolic links)" in run.stderr, run.stderr
        assert "remove it or point it at a folder" in run.stderr
    fake_server.script(Text("ok"))
    run = run_main(
        "-p", "ollama", "-b", fake_server.url, "-m", "qwen2.5-coder:7b", "--print", "-c", "go", cwd=workspace
    )
    assert f"Cannot read the session folder {folder}" in run.stderr, run.stderr
    undo = run_main("undo", cwd=workspace)
    assert undo.returncode == 1 and f"Cannot read the session folder {folder}" in undo.stderr, undo.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists any folder: run as a user (docs/trust.md)")
def test_an_unreadable_session_folder_is_named_with_the_fix(workspace: Path) -> None:
    folder = project_sessions_dir(workspace)
    folder.mkdir(parents=True)
    (folder / "2026-02-16T10-20-30-000Z_aaaa000000000001.jsonl").write_text('{"type":"session","id":"a"}\n')
    folder.chmod(0)
    try:
        run = run_main("sessions", cwd=workspace)
    finally:
        folder.chmod(0o700)
    assert run.returncode == 0
    assert f"Cannot read the session folder {folder} (Permission denied)" in run.stderr, run.stderr
    assert f"`chmod u+rwx {folder}` (as its owner) gives them back" in run.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root enters any folder: run as a user (docs/trust.md)")
def test_a_navtui_home_behind_a_folder_the_user_cannot_enter_is_named(workspace: Path, tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    (closed / "home").mkdir(parents=True)
    closed.chmod(0o600)  # readable, not enterable: every stat below it fails (is_dir raised PermissionError)
    try:
        run = run_main("sessions", cwd=workspace, env={"NAVTUI_HOME": str(closed / "home")})
    finally:
        closed.chmod(0o700)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert f"{closed} cannot be entered (Permission denied)" in run.stderr, run.stderr
    assert f"`chmod u+rwx {closed}` (as its owner) gives them back" in run.stderr
