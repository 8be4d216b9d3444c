"""Commands die with navtui, even on kill -9: the parent-death signal, the forking thread, the sweep at next start."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from navtui.tools.shell import procs
from navtui.tools.shell.env import JOB_MARKER
from navtui.tools.shell.lifetime import (
    SCRATCH_PREFIX,
    launcher_argv,
    new_token,
    owner_alive,
    owner_token,
    sweep_leftovers,
)
from tests.fakes import Stall, Text, ToolCall
from tests.run_main import run_main

MODEL = "qwen2.5-coder:7b"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")


# Every wait here ends when what it waits for happens; HANG only bounds a hang (a passing run never reaches it:
# a navtui process took over 15 s to start at load 10, and 15 s deadlines failed the kill -9 tests).
HANG = 300.0


def eventually(check: Callable[[], bool], seconds: float = HANG) -> bool:
    """Poll ``check`` until it holds (a wait helper: it orders nothing, it only waits for the kernel)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return check()


def read_pid(path: Path) -> int:
    assert eventually(lambda: path.exists() and path.read_text().strip().isdigit()), f"no pid in {path}"
    return int(path.read_text())


def gone(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)  # reparented to us (a subreaper) and dead: reap it
    return not procs.is_alive(pid)


def marker_of(pid: int) -> str:
    """The process's job marker; "" until it has one (between fork and exec it still has its parent's environment).

    Between fork and exec the child of a process made non-dumpable (navtui's hardening, which an in-process
    ``navtui`` run of an earlier test applies to pytest itself) is unreadable to a user without CAP_SYS_PTRACE:
    that is "" too (the sweep test failed so for uid 65534 in a full run, never as root)."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except PermissionError:
        return ""
    return next((v.split(b"=", 1)[1].decode() for v in environ if v.startswith(JOB_MARKER.encode() + b"=")), "")


def test_a_child_forked_by_a_thread_that_ends_is_killed_with_it() -> None:
    """Why every spawn happens on one long-lived thread: the signal follows the forking thread, not the process."""
    children: list[subprocess.Popen[bytes]] = []
    policy = {"parent": os.getpid(), "deathsig": int(signal.SIGKILL)}

    def fork_and_end() -> None:
        child = subprocess.Popen(launcher_argv(["sh", "-c", "echo armed; sleep 30"], policy), stdout=subprocess.PIPE)
        children.append(child)
        assert child.stdout is not None and child.stdout.readline() == b"armed\n"  # past the launcher's prctl

    thread = threading.Thread(target=fork_and_end)
    thread.start()
    thread.join()
    assert children[0].wait(HANG) == -signal.SIGKILL
    children[0].stdout.close()


async def test_a_job_started_from_a_short_lived_thread_outlives_it(ws: Path, ctx) -> None:
    jobs = []

    def start() -> None:
        jobs.append(
            ctx.jobs.start(
                "sleep 0.3; echo done", cwd=ws, env=dict(os.environ), output_dir=ctx.artifacts_dir, timeout=30
            )
        )

    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
    [job] = jobs
    assert await job.wait(HANG)
    assert job.exit_code == 0 and job.output_path.read_text() == "done\n"


async def test_the_sweep_leaves_the_jobs_of_a_running_navtui_alone(ws: Path, ctx) -> None:
    job = ctx.jobs.start("sleep 30", cwd=ws, env=dict(os.environ), output_dir=ctx.artifacts_dir, timeout=60)
    assert owner_alive(owner_token()) and eventually(lambda: marker_of(job.pid).startswith(owner_token() + "-"))
    await asyncio.to_thread(sweep_leftovers, 0.2)
    assert job.running and procs.is_alive(job.pid)
    scratch = ctx.jobs.scratch()
    here = new_token().split("-")[1].split(".")[0]
    stale = Path(tempfile.gettempdir()) / f"{SCRATCH_PREFIX}999999999.1-{here}.{os.getpid()}"  # unique per run
    stale.mkdir(exist_ok=True)
    await asyncio.to_thread(sweep_leftovers, 0.2)
    assert scratch.is_dir() and not stale.exists()  # a dead owner's scratch dir goes, ours stays


def test_the_sweep_stops_a_dead_owners_processes_of_this_home_only() -> None:
    dead = "999999999.1"  # no process has this pid
    here = new_token().split("-")[1].split(".")[0]
    ours = subprocess.Popen(["sleep", "30"], env={**os.environ, JOB_MARKER: f"{dead}-{here}.ab12-j1"})
    theirs = subprocess.Popen(["sleep", "30"], env={**os.environ, JOB_MARKER: f"{dead}-0ther0.ab12-j1"})
    try:
        assert eventually(lambda: marker_of(ours.pid).startswith(dead) and marker_of(theirs.pid).startswith(dead))
        assert sweep_leftovers(0.5) >= 1
        assert ours.wait(HANG) == -signal.SIGTERM
        assert theirs.poll() is None  # another navtui home's leftover: that home's next start stops it
    finally:
        for child in (ours, theirs):
            child.kill()
            child.wait()


@pytest.mark.parametrize(
    ("sandbox", "namespaces"), [("workspace-write", "1"), ("workspace-write", "0"), ("off", "1")], ids=str
)
def test_kill_9_of_navtui_stops_everything_its_command_started(
    fake_server, workspace: Path, private_temp: Path, sandbox: str, namespaces: str
) -> None:
    """With namespaces the kernel stops the command's PID namespace; without, the launcher (a subreaper that
    catches navtui's death) kills its tree. Either way nothing waits for the next start."""
    marker_file = workspace / "marker"
    command = (
        f"setsid sleep 300 & nohup sleep 300 >/dev/null & sleep 300 & echo $NAVTUI_JOB_ID > {marker_file}; sleep 300"
    )
    fake_server.script(ToolCall("shell", {"command": command, "wait_ms": 0}))
    fake_server.script(Stall(120))  # navtui waits on the model while the job runs in the background
    argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL, "--approval", "yolo"]
    first = subprocess.Popen(
        [*argv, "--sandbox", sandbox, "--print", "start a server"],
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "NAVTUI_SANDBOX_NAMESPACES": namespaces},
    )
    try:
        assert eventually(lambda: marker_file.exists() and marker_file.read_text().strip() != "")
        token = marker_file.read_text().strip()
        assert eventually(lambda: len(procs.find_processes(marker=token)) >= 5)  # launcher, shell, 3 sleeps
        assert eventually(lambda: len(fake_server.chat_requests) == 2)
        first.send_signal(signal.SIGKILL)
        first.wait(HANG)
    finally:
        first.kill()
    assert eventually(lambda: procs.find_processes(marker=token) == []), procs.find_processes(marker=token)
    # Its jobs' scratch dir (their TMPDIR) is left to the next start in this home, which removes it.
    scratch = private_temp / f"{SCRATCH_PREFIX}{token.rsplit('-', 1)[0]}"
    assert scratch.is_dir()
    sweep_leftovers(0.2)
    assert not scratch.exists()


def test_the_next_start_stops_what_an_earlier_run_left(fake_server, workspace: Path) -> None:
    """The last line of defence (a process that escaped every other mechanism): the sweep at start."""
    here = new_token().split("-")[1].split(".")[0]
    left = subprocess.Popen(["sleep", "300"], env={**os.environ, JOB_MARKER: f"999999999.1-{here}.ab12-j1"})
    try:
        assert eventually(lambda: marker_of(left.pid).startswith("999999999.1"))
        fake_server.script(Text("hi"))
        # navtui's start called in this process (tests/run_main.py): the sweep is the same, a new interpreter is not
        second = run_main("-p", "ollama", "-b", fake_server.url, "-m", MODEL, "--print", "hi", cwd=workspace)
        assert second.returncode == 0, second.stderr
        assert re.search(r"Stopped \d+ process(es)? left by an earlier run", second.stderr), second.stderr
        assert left.wait(HANG) in (-signal.SIGTERM, -signal.SIGKILL)
    finally:
        left.kill()
        left.wait()
