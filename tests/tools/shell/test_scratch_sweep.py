"""Scratch dirs (the jobs' TMPDIR) of a navtui killed with kill -9 are swept at the next start of any navtui home.

The sweep removed only the dirs of runs that shared the starting navtui's home: a run under a home that is never
used again (a test's or a script's ``NAVTUI_HOME``) left ``navtui-scratch-*`` in /tmp for good, one per run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from navtui.tools.shell import procs
from navtui.tools.shell.env import JOB_MARKER
from navtui.tools.shell.lifetime import SCRATCH_PREFIX, sweep_leftovers
from tests.fakes import Stall, ToolCall
from tests.tools.shell.test_lifetime import HANG, eventually, marker_of

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="markers are read from /proc")


def test_a_killed_runs_scratch_dir_goes_at_the_next_start_of_another_home(
    fake_server, workspace: Path, tmp_path: Path, private_temp: Path
) -> None:
    marker_file = workspace / "marker"
    fake_server.script(ToolCall("shell", {"command": f"echo $NAVTUI_JOB_ID > {marker_file}; sleep 300", "wait_ms": 0}))
    fake_server.script(Stall(120))  # navtui waits on the model while the job runs
    other_home = tmp_path / "a-home-used-once"
    first = subprocess.Popen(
        [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", "qwen2.5-coder:7b"]
        + ["--approval", "yolo", "--print", "start"],
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "NAVTUI_HOME": str(other_home)},
    )
    try:
        assert eventually(lambda: marker_file.exists() and marker_file.read_text().strip() != "")
        token = marker_file.read_text().strip()
        first.send_signal(signal.SIGKILL)
        first.wait(HANG)
    finally:
        first.kill()
    assert eventually(lambda: procs.find_processes(marker=token) == [])  # its job died with it
    scratch = private_temp / f"{SCRATCH_PREFIX}{token.rsplit('-', 1)[0]}"
    assert scratch.is_dir()  # kill -9: nothing of navtui ran to remove it
    assert os.environ["NAVTUI_HOME"] != str(other_home)
    sweep_leftovers(0.2)  # this process's start, under the test's own home
    assert not scratch.exists()


def test_another_homes_scratch_dir_stays_while_a_process_of_its_run_lives(private_temp: Path) -> None:
    dead = "999999999.1"  # no process has this pid
    token = f"{dead}-0ther0.{os.getpid():x}"  # another home's run, unique to this test run
    scratch = private_temp / f"{SCRATCH_PREFIX}{token}"
    scratch.mkdir()
    left = subprocess.Popen(["sleep", "300"], env={**os.environ, JOB_MARKER: f"{token}-j1", "TMPDIR": str(scratch)})
    try:
        assert eventually(lambda: marker_of(left.pid).startswith(token))
        sweep_leftovers(0.2)
        assert left.poll() is None and scratch.is_dir()  # that home's next start stops it, then its dir goes
    finally:
        left.kill()
        left.wait()
    sweep_leftovers(0.2)
    assert not scratch.exists()
