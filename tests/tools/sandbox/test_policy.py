"""The shell sandbox with real commands under real Landlock: what each mode lets a command write and reach."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from navtui.tools.files.workspace import Workspace
from navtui.tools.sandbox.policy import build_policy, policy_from_settings
from navtui.tools.shell.lifetime import launcher_argv
from navtui.tools.shell.shell import ShellTool
from tests.tools.conftest import call
from tests.tools.sandbox.support import (
    PY,
    needs_landlock,
    needs_network_rules,
    needs_scoping,
    policy,
    sandboxed_context,
)

shell = ShellTool()
pytestmark = needs_landlock


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


async def run(ws: Path, tmp_path: Path, sandbox, command: str, **kwargs):
    ctx = sandboxed_context(ws, tmp_path, sandbox, kwargs.pop("settings", None))
    try:
        return await call(shell, ctx, command=command, **kwargs)
    finally:
        ctx.jobs.kill_all_sync(grace=0.5)


async def test_workspace_write_allows_the_workspace_and_temp_dirs_and_nothing_else(
    ws: Path, tmp_path: Path, outside: Path
) -> None:
    sandbox = policy("workspace-write", ws, tmp_path)
    command = (
        'echo in > inside.txt && echo scratch > "$TMPDIR/s" && cat "$TMPDIR/s" '
        f"&& echo sys > {tmp_path}/systmp/t && echo out > {outside}/o.txt"
    )
    result = await run(ws, tmp_path, sandbox, command)
    assert (ws / "inside.txt").read_text() == "in\n" and (tmp_path / "systmp" / "t").read_text() == "sys\n"
    assert "scratch" in result.text
    assert not (outside / "o.txt").exists()
    assert result.is_error and "Permission denied" in result.text
    assert str(outside / "o.txt") in result.details["sandbox_blocked"]
    assert "[the workspace-write sandbox likely caused this:" in result.text
    assert "sandbox.writable_roots" in result.text and result.details["sandbox"] == "workspace-write"


async def test_read_only_writes_only_the_temp_dirs(ws: Path, tmp_path: Path) -> None:
    (ws / "kept.txt").write_text("original\n")
    sandbox = policy("read-only", ws, tmp_path)
    result = await run(ws, tmp_path, sandbox, 'echo t > "$TMPDIR/t" && cat "$TMPDIR/t" kept.txt && echo x > kept.txt')
    assert "t\noriginal" in result.text
    assert (ws / "kept.txt").read_text() == "original\n"
    assert result.is_error and "kept.txt" in result.details["sandbox_blocked"]
    assert "read-only" in result.details["sandbox_blocked"]


async def test_off_runs_unconfined(ws: Path, tmp_path: Path, outside: Path) -> None:
    result = await run(ws, tmp_path, build_policy("off"), f"echo out > {outside}/o.txt")
    assert not result.is_error and (outside / "o.txt").read_text() == "out\n"
    assert result.details["sandbox"] == "off" and "sandbox" not in result.text


async def test_extra_roots_and_writable_roots_are_writable(ws: Path, tmp_path: Path, outside: Path) -> None:
    extra, cache = tmp_path / "extra", tmp_path / "cache"
    extra.mkdir()
    cache.mkdir()
    sandbox = policy("workspace-write", ws, tmp_path, roots=[extra], writable_roots=[cache])
    await run(ws, tmp_path, sandbox, f"echo e > {extra}/e && echo c > {cache}/c && echo o > {outside}/o")
    assert (extra / "e").exists() and (cache / "c").exists() and not (outside / "o").exists()
    assert sandbox.can_write(extra / "e") and sandbox.can_write(cache) and not sandbox.can_write(outside)


async def test_everyday_workflows_work_in_workspace_write(ws: Path, tmp_path: Path) -> None:
    sandbox = policy("workspace-write", ws, tmp_path)
    steps = [
        "git init -q . && echo hi > f && git add f && git -c user.name=t -c user.email=t@t commit -qm first",
        "git log --oneline | wc -l",
        f"{PY} -m venv --without-pip .venv && .venv/bin/python -c 'import sys; print(sys.prefix)'",
        "echo quiet > /dev/null && echo to-stderr >> /dev/stderr",
        f"{PY} -c 'import multiprocessing as m; m.Lock(); print(\"semaphore ok\")'",
        f"{PY} -c 'import tempfile; print(tempfile.mkdtemp())'",
    ]
    if shutil.which("cc"):
        steps.append("echo 'int main(void){return 0;}' > m.c && cc m.c -o m && ./m && echo compiled")
    result = await run(ws, tmp_path, sandbox, " && ".join(steps), wait_ms=120_000)
    assert not result.is_error, result.text
    assert result.text.startswith("1\n") and str(ws / ".venv") in result.text
    assert "/navtui-scratch-" in result.text  # TMPDIR is the session's scratch dir
    assert "to-stderr" in result.text and "semaphore ok" in result.text
    assert (ws / ".git" / "HEAD").exists()
    if shutil.which("cc"):
        assert "compiled" in result.text


def _worktree(tmp_path: Path) -> tuple[Path, Path]:
    """A repository and a linked worktree of it; returns (repository, worktree/sub)."""
    main, tree = tmp_path / "main", tmp_path / "tree"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "root"], check=True)
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(tree)], check=True)
    (tree / "sub").mkdir()
    return main, tree / "sub"


async def test_git_works_from_a_worktree_subfolder(tmp_path: Path) -> None:
    main, sub = _worktree(tmp_path)
    sandbox = policy("workspace-write", sub, tmp_path)
    assert main / ".git" in sandbox.writable  # the common dir: objects and refs live there
    result = await run(
        sub,
        tmp_path,
        sandbox,
        "echo x > x && git add x && git -c user.name=t -c user.email=t@t commit -qm x && git log --oneline | wc -l",
    )
    assert not result.is_error, result.text
    assert "2" in result.text.splitlines()[0]


@needs_network_rules
async def test_tcp_connect_to_a_loopback_canary_is_blocked_unless_network_is_on(
    ws: Path, tmp_path: Path, canary
) -> None:
    blocked = await run(ws, tmp_path, policy("workspace-write", ws, tmp_path), canary.connect_command())
    assert blocked.is_error and "PermissionError" in blocked.text and canary.connections == 0
    assert "network is blocked" in blocked.details["sandbox_blocked"]
    allowed = await run(ws, tmp_path, policy("workspace-write", ws, tmp_path, network=True), canary.connect_command())
    assert not allowed.is_error, allowed.text
    assert canary.reached.wait(5) and canary.connections == 1


@needs_network_rules
async def test_tcp_bind_is_blocked_and_udp_is_not_covered(ws: Path, tmp_path: Path) -> None:
    import socket

    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(5)
    port = receiver.getsockname()[1]
    try:
        bind = f"{PY} -c 'import socket; socket.create_server((\"127.0.0.1\", 0))'"
        udp = f'{PY} -c \'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"hi", ("127.0.0.1", {port}))\''
        sandbox = policy("read-only", ws, tmp_path)
        bound = await run(ws, tmp_path, sandbox, bind)
        assert bound.is_error and "PermissionError" in bound.text
        sent = await run(ws, tmp_path, sandbox, udp)
        assert not sent.is_error  # Landlock's network rules are TCP-only: the documented limit
        assert receiver.recv(16) == b"hi"
    finally:
        receiver.close()


@needs_scoping
@pytest.mark.parametrize("namespaces", ["1", "0"])
async def test_a_sandboxed_command_cannot_signal_navtui(
    ws: Path, tmp_path: Path, namespaces: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NAVTUI_SANDBOX_NAMESPACES", namespaces)
    sandbox = policy("workspace-write", ws, tmp_path)
    if namespaces == "1" and not sandbox.namespaces:
        pytest.skip(f"no namespaces here: {sandbox.no_namespaces}")
    result = await run(ws, tmp_path, sandbox, f"kill -0 {os.getpid()}")
    if sandbox.namespaces:  # its own PID namespace: navtui's pid names nothing there
        assert result.is_error and "No such process" in result.text
    else:
        assert result.is_error and "Operation not permitted" in result.text
        assert "cannot signal processes outside" in result.details["sandbox_blocked"]
    own = await run(ws, tmp_path, policy("workspace-write", ws, tmp_path), "sleep 5 & kill $!; wait $!; echo $?")
    assert "143" in own.text  # its own children it may signal


async def test_without_landlock_the_mode_degrades_to_off_and_says_so(
    ws: Path, tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NAVTUI_LANDLOCK_ABI", "0")
    sandbox = policy_from_settings(None, [ws])
    assert sandbox.mode == "off" and sandbox.requested == "workspace-write" and sandbox.label == "off!"
    assert "NAVTUI_LANDLOCK_ABI=0" in sandbox.warning and "unconfined" in sandbox.warning
    result = await run(ws, tmp_path, sandbox, f"echo out > {outside}/o")
    assert not result.is_error and (outside / "o").exists()  # honestly unconfined
    assert "Warning:" in sandbox.describe()


@needs_network_rules
async def test_below_abi_4_files_stay_confined_but_tcp_is_not(
    ws: Path, tmp_path: Path, outside: Path, canary, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NAVTUI_LANDLOCK_ABI", "3")
    sandbox = policy("workspace-write", ws, tmp_path)
    assert sandbox.abi == 3 and sandbox.label == "workspace-write+net"
    assert "ABI 3" in sandbox.warning and "network" in sandbox.warning
    await run(ws, tmp_path, sandbox, f"{canary.connect_command()} && echo out > {outside}/o")
    assert canary.reached.wait(5) and not (outside / "o").exists()


@pytest.mark.parametrize("bad", ["abi=seven", "writable=/", "deathsig="])
def test_the_launcher_fails_closed(tmp_path: Path, bad: str) -> None:
    marker = tmp_path / "ran"
    argv = launcher_argv(["touch", str(marker)], {"parent": os.getpid(), "deathsig": 9})
    argv.insert(argv.index("--"), bad)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert done.returncode == 126 and "nothing was run" in done.stderr
    assert not marker.exists()


def _home_probe(tmp_path: Path) -> Path:
    home = Path.home().resolve()
    if any(home.is_relative_to(t) for t in (Path("/tmp").resolve(), tmp_path)) or not os.access(home, os.W_OK):
        pytest.skip("the home folder is a temp dir here, or not writable anyway")
    return home / f".navtui-sandbox-probe-{os.getpid()}"


async def test_the_default_policy_keeps_the_home_folder_read_only(ws: Path, tmp_path: Path) -> None:
    probe = _home_probe(tmp_path)
    sandbox = policy_from_settings(None, Workspace(ws).roots)  # the real temp dirs
    try:
        result = await run(ws, tmp_path, sandbox, f"touch {probe}")
        assert result.is_error and not probe.exists()
    finally:
        probe.unlink(missing_ok=True)
