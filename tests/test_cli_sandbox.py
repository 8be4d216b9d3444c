"""The command line's sandbox: --sandbox, the start-up warning when Landlock is missing, ``navtui sandbox``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from navtui.tools.sandbox.exec import kernel_abi
from tests.fakes import Text

MODEL = "qwen2.5-coder:7b"


def navtui(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "navtui", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_help_lists_the_flag_and_the_subcommand(workspace: Path) -> None:
    out = navtui("--help", cwd=workspace).stdout
    assert "--sandbox {workspace-write,read-only,off}" in out and "navtui sandbox" in out


def test_headless_warns_once_when_landlock_is_missing(fake_server, workspace: Path) -> None:
    fake_server.script(Text("ok"))
    done = navtui(
        "-p", "ollama", "-b", fake_server.url, "-m", MODEL, "--print", "hi", cwd=workspace, NAVTUI_LANDLOCK_ABI="0"
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok"
    assert done.stderr.count("sandbox is not available") == 1 and "NAVTUI_LANDLOCK_ABI=0" in done.stderr


@pytest.mark.skipif(kernel_abi()[0] < 4, reason="Landlock TCP rules need ABI 4")
def test_sandbox_status_and_run(workspace: Path) -> None:
    status = navtui("sandbox", cwd=workspace)
    assert status.returncode == 0 and "Sandbox: workspace-write" in status.stdout and str(workspace) in status.stdout
    listen = [sys.executable, "-c", "import socket; socket.create_server(('127.0.0.1', 0)); print('listening')"]
    blocked = navtui("sandbox", "run", "--", *listen, cwd=workspace)
    assert blocked.returncode == 1 and "PermissionError" in blocked.stderr
    allowed = navtui("sandbox", "--mode", "off", "run", "--", *listen, cwd=workspace)
    assert allowed.returncode == 0 and allowed.stdout == "listening\n"
