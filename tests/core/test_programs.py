"""A repository that ships a program navtui starts by name (``git``, ``rg``, ``bash``, ``vi``, ``xclip``, an MCP
server's ``npx``) never has it run, whatever ``PATH`` holds: an empty entry or ``.`` is the workspace."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from navtui.core.programs import find_program, program

NAMES = ("git", "rg", "bash", "sh", "vi", "python3", "xclip", "wl-copy", "npx", "navtui-test-tool")


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace holding an executable of each name (each leaves ``ran-NAME`` when run), navtui's cwd, with the
    workspace first on PATH twice over: ``.`` and an empty entry."""
    ws = tmp_path / "ws"
    ws.mkdir()
    for name in NAMES:
        script = ws / name
        script.write_text(f"#!/bin/sh\ntouch '{ws}/ran-{name}'\n")
        script.chmod(0o755)
    monkeypatch.chdir(ws)
    monkeypatch.setenv("PATH", f".::{os.environ['PATH']}:")
    return ws


def ran(ws: Path) -> list[str]:
    return sorted(p.name for p in ws.glob("ran-*"))


def test_a_program_is_found_on_absolute_folders_only(planted: Path) -> None:
    for name in NAMES:
        found = find_program(name)
        assert found is None or (os.path.isabs(found) and not found.startswith(str(planted))), name
    assert find_program("navtui-test-tool") is None
    with pytest.raises(FileNotFoundError):
        program("navtui-test-tool")
    assert find_program("./navtui-test-tool") == "./navtui-test-tool"  # a path you write is yours


def test_navtuis_git_never_runs_the_workspaces_git(planted: Path) -> None:
    from navtui.core.gitsafe import run_git

    if find_program("git") is None:
        pytest.skip("no git")
    done = run_git(["init", "-q"], cwd=planted)
    assert done.returncode == 0
    run_git(["status", "--porcelain"], cwd=planted)
    assert ran(planted) == []


def test_the_editor_the_shell_and_user_commands_never_come_from_the_workspace(planted: Path) -> None:
    import asyncio

    from navtui.agent.user_commands import UserCommand, run_user_command
    from navtui.app.external_editor import _run
    from navtui.tools.shell.jobs import _shell

    problem = _run(["navtui-test-tool", str(planted / "draft.md")])  # $EDITOR that only the workspace has
    assert problem == "could not start navtui-test-tool: No such file or directory; set $VISUAL or $EDITOR"
    assert not _shell().startswith(str(planted))
    asyncio.run(run_user_command(UserCommand(kind="bash", code="true", excluded=False), planted))  # `!true`
    assert ran(planted) == []


def test_the_launcher_never_execs_the_workspaces_program(planted: Path) -> None:
    """MCP servers' and shell jobs' commands start through the launcher: a bare name is looked for on PATH's
    absolute folders only."""
    from navtui.tools.shell.lifetime import spawn

    done = spawn(["navtui-test-tool"], {"parent": os.getpid()}, cwd=planted, stderr=subprocess.PIPE)
    _, err = done.communicate(timeout=30)
    assert done.returncode == 127
    assert err.decode() == "navtui: cannot run navtui-test-tool: No such file or directory\n"
    done = spawn(["sh", "-c", "exit 3"], {"parent": os.getpid()}, cwd=planted)
    assert done.wait(30) == 3  # /bin/sh, not the workspace's (which would exit 0)
    assert ran(planted) == []


def test_the_launcher_skips_a_path_folder_it_may_not_enter(tmp_path: Path) -> None:
    """A program that is nowhere is "No such file", even with a folder on PATH this user may not search (an
    unprivileged user with /root/.local/bin on PATH got "Permission denied"); a file it may not run is that."""
    from navtui.tools.shell.lifetime import spawn

    closed = tmp_path / "closed"
    closed.mkdir(mode=0)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "navtui-not-executable").write_text("#!/bin/sh\n")
    path = f"{closed}:{plain}:{os.path.dirname(sys.executable)}:/usr/bin:/bin"
    env = {**os.environ, "PATH": path}
    try:
        for name, says, code in (
            ("navtui-missing", "No such file or directory", 127),
            ("navtui-not-executable", "Permission denied", 126),
        ):
            done = spawn([name], {"parent": os.getpid()}, env=env, stderr=subprocess.PIPE)
            _, err = done.communicate(timeout=30)
            assert (done.returncode, err.decode()) == (code, f"navtui: cannot run {name}: {says}\n")
    finally:
        closed.chmod(0o700)


def test_a_path_of_relative_entries_only_is_not_emptied_into_the_workspace(
    planted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``PATH=.`` left nothing once filtered, and an empty ``PATH`` is the current folder again for ``exec``: git
    gets the system's default folders instead."""
    from navtui.core.gitsafe import run_git, safe_git_env

    monkeypatch.setenv("PATH", ".")
    assert safe_git_env()["PATH"] == os.defpath
    if not any(os.path.exists(os.path.join(folder, "git")) for folder in os.defpath.split(os.pathsep)):
        pytest.skip("no git in the default folders")
    assert run_git(["init", "-q"], cwd=planted).returncode == 0
    assert ran(planted) == []
