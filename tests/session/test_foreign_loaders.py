"""pi's and omp's own session loaders open a file navtui wrote (fixtures/check/*).

Needs node and ``@mariozechner/pi-coding-agent`` (NAVTUI_PI_DIR: a directory where it is installed), or Bun and
``@oh-my-pi/pi-coding-agent`` (NAVTUI_OMP_DIR); skipped otherwise. See fixtures/README.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCall, ToolResultMessage, Usage
from navtui.session.manager import SessionManager
from tests.session.helpers import user

CHECKS = Path(__file__).parent / "fixtures" / "check"


def navtui_session(directory: Path) -> Path:
    """A session as navtui writes one: model and thinking recorded, a tool call, a label, a name, a switch."""
    session = SessionManager.create(directory, root=directory / "sessions")
    session.append_model_change("ollama", "qwen3:4b")
    session.append_thinking_level_change("high")
    first = session.append_message(user("What is in a.py?"))
    call = ToolCall(id="call_1", name="read", arguments={"path": "a.py"})
    thinking = ThinkingBlock(thinking="Read the file.")
    session.append_message(AssistantMessage(content=[thinking, call], provider="ollama", model="qwen3:4b"))
    session.append_message(ToolResultMessage.of(call, "x = 1"))
    answer = [TextBlock(text="a.py sets x to 1.")]
    session.append_message(AssistantMessage(content=answer, provider="ollama", model="qwen3:4b", usage=Usage(input=50)))
    session.append_custom_message("index_context", "a.py: x = 1")
    session.append_label(first, "start")
    session.set_name("Reading a.py")
    session.append_model_change("anthropic", "claude-sonnet-4-5")
    session.sync()
    return session.path


def run_check(tool_dir: str, script: str, command: list[str], session: Path, tmp_path: Path) -> dict[str, Any]:
    """Run ``script`` from a directory that sees ``tool_dir``'s node_modules, on a copy of ``session``."""
    work = tmp_path / "check"
    work.mkdir()
    (work / "node_modules").symlink_to(Path(tool_dir) / "node_modules")
    shutil.copyfile(CHECKS / script, work / script)
    copy = work / "sessions" / session.name
    copy.parent.mkdir()
    shutil.copyfile(session, copy)
    out = subprocess.run(
        [*command, script, str(copy)], cwd=work, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not os.environ.get("NAVTUI_PI_DIR") or not shutil.which("node"), reason="pi not installed")
def test_pi_opens_a_navtui_session(tmp_path: Path) -> None:
    seen = run_check(os.environ["NAVTUI_PI_DIR"], "pi_check.mjs", ["node"], navtui_session(tmp_path), tmp_path)
    assert seen["problems"] == [] and seen["entries"] == 10
    assert seen["roles"] == ["user", "assistant", "toolResult", "assistant", "custom"]
    assert seen["llmRoles"] == ["user", "assistant", "toolResult", "assistant", "user"]
    assert seen["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert seen["thinkingLevel"] == "high" and seen["name"] == "Reading a.py" and seen["listedName"] == "Reading a.py"
    assert seen["cost"] == 0 and seen["tokens"] == 50


@pytest.mark.skipif(not os.environ.get("NAVTUI_OMP_DIR") or not shutil.which("bun"), reason="omp not installed")
def test_omp_opens_a_navtui_session(tmp_path: Path) -> None:
    seen = run_check(os.environ["NAVTUI_OMP_DIR"], "omp_check.ts", ["bun"], navtui_session(tmp_path), tmp_path)
    assert seen["problems"] == [] and seen["entries"] == 10
    assert seen["roles"] == ["user", "assistant", "toolResult", "assistant", "custom"]
    assert seen["models"] == {"default": "anthropic/claude-sonnet-4-5"}
    assert seen["thinkingLevel"] == "high" and seen["cost"] == 0 and seen["totalTokens"] == 50


def session_with_checkpoints(directory: Path) -> Path:
    """A navtui session whose turns changed files: checkpoint entries, and /undo's note to the model."""
    from navtui.checkpoints.service import Checkpointer

    workspace = directory / "work"
    workspace.mkdir()
    (workspace / "a.py").write_text("x = 1\n")
    session = SessionManager.create(workspace, root=directory / "sessions")
    checkpoints = Checkpointer(workspace)
    session.append_message(user("Change a.py"))
    checkpoints.record_base(session)
    call = ToolCall(id="call_1", name="write", arguments={"path": "a.py", "content": "x = 2\n"})
    session.append_message(AssistantMessage(content=[call], provider="ollama", model="qwen3:4b"))
    (workspace / "a.py").write_text("x = 2\n")
    session.append_message(ToolResultMessage.of(call, "wrote a.py"))
    checkpoints.record_turn(session)
    answer = [TextBlock(text="a.py sets x to 2.")]
    session.append_message(AssistantMessage(content=answer, provider="ollama", model="qwen3:4b"))
    proposal = checkpoints.propose_undo(session.get_branch())
    assert proposal is not None
    checkpoints.apply(session, proposal)  # an undo entry and a note for the model
    checkpoints.close()
    session.sync()
    return session.path


@pytest.mark.skipif(not os.environ.get("NAVTUI_PI_DIR") or not shutil.which("node"), reason="pi not installed")
def test_pi_opens_a_session_with_checkpoints(tmp_path: Path) -> None:
    seen = run_check(
        os.environ["NAVTUI_PI_DIR"], "pi_check.mjs", ["node"], session_with_checkpoints(tmp_path), tmp_path
    )
    assert seen["problems"] == [] and seen["entries"] == 8  # 4 messages, 3 checkpoints, 1 note
    assert seen["roles"] == ["user", "assistant", "toolResult", "assistant", "custom"]  # checkpoints: not there
    assert seen["llmRoles"] == ["user", "assistant", "toolResult", "assistant", "user"]


@pytest.mark.skipif(not os.environ.get("NAVTUI_OMP_DIR") or not shutil.which("bun"), reason="omp not installed")
def test_omp_opens_a_session_with_checkpoints(tmp_path: Path) -> None:
    seen = run_check(
        os.environ["NAVTUI_OMP_DIR"], "omp_check.ts", ["bun"], session_with_checkpoints(tmp_path), tmp_path
    )
    assert seen["problems"] == [] and seen["entries"] == 8
    assert seen["roles"] == ["user", "assistant", "toolResult", "assistant", "custom"]
