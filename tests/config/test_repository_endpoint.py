"""A repository's settings cannot move a run to another provider or endpoint without the user's say."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from navtui.config.project_rules import HeldModel
from tests.fakes import Text


def _repository(workspace: Path, settings: dict[str, Any]) -> Path:
    (workspace / ".git").mkdir()
    (workspace / ".navtui").mkdir()
    (workspace / ".navtui" / "settings.json").write_text(json.dumps(settings))
    return workspace


def _run(workspace: Path, server: Any, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OLLAMA_HOST": server.url}  # the user's endpoint: a local Ollama (the fake)
    return subprocess.run(
        [sys.executable, "-m", "navtui", "--print", "hi", *args],
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_headless_refuses_a_repository_model_on_a_cloud_endpoint(fake_server: Any, workspace: Path) -> None:
    repo = _repository(workspace, {"model": "claude-sonnet-4-5"})
    result = _run(repo, fake_server)
    assert result.returncode == 2, result.stderr
    assert "sets model to 'claude-sonnet-4-5', which would send your prompts and code to anthropic" in result.stderr
    assert "run with -m claude-sonnet-4-5" in result.stderr and "run with -m qwen2.5-coder:7b" in result.stderr
    assert fake_server.chat_requests == []
    fake_server.script(Text("local answer"))
    chosen = _run(repo, fake_server, "-m", "qwen2.5-coder:7b")  # the flag decides
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.strip() == "local answer"


async def test_the_app_asks_once_and_remembers(tmp_path: Path) -> None:
    from navtui.app.screens.repo_model import RepoModelScreen
    from navtui.config.repo_approvals import RepoApprovals
    from tests.app.conftest import wait_for
    from tests.app.scripted_runtime import ScriptedRuntime
    from tests.app.test_snapshots import app_with

    held = HeldModel(
        "model",
        "claude-sonnet-4-5",
        ("anthropic", "https://api.anthropic.com"),
        ("ollama", "http://127.0.0.1:11434"),
        str(tmp_path / ".navtui" / "settings.json"),
    )
    runtime: Any = ScriptedRuntime()
    runtime.held_models = [held]
    runtime.repository = tmp_path
    app = app_with(runtime)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, RepoModelScreen))
        text = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "claude-sonnet-4-5 on anthropic at https://api.anthropic.com" in text
        await pilot.pause(RepoModelScreen.GRACE + 0.05)  # keys are ignored until then, as in every approval
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, RepoModelScreen))
    assert RepoApprovals().decision(tmp_path, held) == "deny"
    assert runtime.held_models == []
