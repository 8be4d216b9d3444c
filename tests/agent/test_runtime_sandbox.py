"""The runtime's part in the sandbox: the mode from flags and settings, the warning when it degrades, and the
housekeeping at start (earlier runs' leftovers, old shell output)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.errors import NavtuiError
from navtui.tools.sandbox.exec import kernel_abi

MODEL = "qwen2.5-coder:7b"
needs_landlock = pytest.mark.skipif(kernel_abi()[0] < 1, reason="the kernel has no Landlock")


def make_runtime(workspace: Path, **kwargs: object) -> Runtime:
    options = LaunchOptions(cwd=workspace, provider="ollama", base_url="http://127.0.0.1:9", model=MODEL, **kwargs)  # type: ignore[arg-type]
    return Runtime.create(options)


@needs_landlock
def test_the_flag_sets_the_mode_and_the_status_shows_it(workspace: Path) -> None:
    rt = make_runtime(workspace, sandbox="read-only", ephemeral=True)
    assert rt.ctx.sandbox.mode == "read-only" and rt.status(with_git=False).sandbox == "read-only"
    shown = rt.set_sandbox("workspace-write")
    assert "Sandbox: workspace-write" in shown and rt.status(with_git=False).sandbox == "workspace-write"
    assert rt.ctx.sandbox.network_blocked
    with pytest.raises(NavtuiError, match="Unknown sandbox mode 'loose'"):
        rt.set_sandbox("loose")


def test_a_missing_landlock_is_said_once_at_start(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVTUI_LANDLOCK_ABI", "0")
    rt = make_runtime(workspace, ephemeral=True)
    said = [w for w in rt.warnings if "sandbox is not available" in w]
    assert len(said) == 1 and "unconfined" in said[0]
    assert rt.ctx.sandbox.mode == "off" and rt.status(with_git=False).sandbox == "off!"
    quiet = make_runtime(workspace, sandbox="off", ephemeral=True)  # asked for off: nothing to warn about
    assert not any("sandbox" in w for w in quiet.warnings) and quiet.status(with_git=False).sandbox == "off"


def test_old_shell_output_is_pruned_at_start(workspace: Path, navtui_home: Path) -> None:
    folder = navtui_home / "artifacts"
    folder.mkdir()
    old = folder / "shell-20250101-120000-999999999.1-abcd1234-j1.log"
    old.write_text("old output")
    month_ago = time.time() - 30 * 86400
    os.utime(old, (month_ago, month_ago))
    fresh = folder / "shell-20260101-120000-999999999.1-abcd1234-j2.log"
    fresh.write_text("new output")
    make_runtime(workspace, ephemeral=True)
    assert not old.exists() and fresh.exists()
