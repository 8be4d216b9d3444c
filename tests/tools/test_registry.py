"""The standard tool set: names, schemas the model sees, the context, and a scripted agent run through them."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from navtui.agent.loop import Agent
from navtui.config.settings import Settings
from navtui.core.events import ToolCallFinished
from navtui.tools.approval import ApprovalPolicy, DenyingApprover
from navtui.tools.base import Tool
from navtui.tools.registry import default_tools, make_context
from tests.agent.scripted import ScriptedProvider, calls, text

CORE = ["read", "write", "edit", "shell", "shell_status", "ls", "find", "grep"]


def test_default_tools_in_order() -> None:
    names = default_tools(Settings()).names()
    assert names[:8] == CORE
    assert set(names[8:]) <= {"code_search", "symbols"}


def test_specs_come_from_the_argument_models() -> None:
    for spec in default_tools().specs():
        params = spec.parameters
        assert params["type"] == "object" and params["properties"], spec.name
        assert "title" not in params
        assert all("title" not in prop for prop in params["properties"].values())
        if spec.name in CORE:
            assert len(spec.description) < 500, spec.name
            # Small models copy example code verbatim: descriptions show argument shapes at most, never code.
            assert not re.search(r"def \w+\(|\\n ", spec.description), spec.name
    read = next(s for s in default_tools().specs() if s.name == "read")
    assert read.parameters["required"] == ["path"]


def test_a_tool_schema_is_made_once_and_each_spec_gets_its_own_copy() -> None:
    made: list[str] = []

    class ProbeArgs(BaseModel):
        path: str

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            made.append(cls.__name__)
            return super().model_json_schema(*args, **kwargs)

    class Probe(Tool[ProbeArgs]):
        name = "probe"
        description = "a tool of this test"
        Args = ProbeArgs

    tool = Probe()
    first = tool.spec()
    first.parameters["properties"]["path"]["type"] = "integer"  # a receiver changing its copy
    second = tool.spec()
    assert second.parameters["properties"]["path"] == {"type": "string"} and second.parameters["required"] == ["path"]
    assert made == ["ProbeArgs"]


def test_make_context_reads_settings(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    settings = Settings.model_validate({"approval": "write", "tools": {"extra_roots": ["../other"]}})
    ws = tmp_path / "ws"
    ws.mkdir()
    ctx = make_context(ws, settings, tmp_path / "art")
    assert ctx.workspace.roots == [ws, tmp_path / "other"]
    assert ctx.approval is not None and ctx.approval.mode == "write"
    assert ctx.artifacts_dir == tmp_path / "art"


def _results(events: list[object]) -> list[ToolCallFinished]:
    return [e for e in events if isinstance(e, ToolCallFinished)]


async def test_scripted_agent_reads_edits_and_runs(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    provider = ScriptedProvider(
        calls(("read", {"path": "calc.py"})),
        calls(("edit", {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"})),
        calls(("shell", {"command": f"{sys.executable} -c 'import calc; print(calc.add(2, 3))'"})),
        text("Fixed: add now adds."),
    )
    ctx = make_context(ws, None, tmp_path / "art")
    agent = Agent(provider, default_tools(), ctx, system_prompt="test", policy=ApprovalPolicy(mode="yolo"))
    events = [event async for event in agent.run("fix add")]
    results = _results(events)
    assert [r.call.name for r in results] == ["read", "edit", "shell"]
    assert not any(r.result.is_error for r in results)
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert results[1].result.details["diff"].count("+    return a + b") == 1
    assert results[2].result.content[0].text.startswith("5\n[exit code 0")
    await ctx.jobs.kill_all()


async def test_headless_denial_reaches_the_model(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    provider = ScriptedProvider(calls(("shell", {"command": "rm -rf ~"})), text("ok"))
    ctx = make_context(ws, None, tmp_path / "art")
    agent = Agent(
        provider,
        default_tools(),
        ctx,
        system_prompt="test",
        policy=ApprovalPolicy(mode="write", allow={"shell"}),
        approver=DenyingApprover(),
    )
    events = [event async for event in agent.run("clean up")]
    (finished,) = _results(events)
    assert finished.result.is_error
    assert "destructive command" in finished.result.content[0].text
    assert ctx.jobs.jobs == {}  # nothing ran


def test_schemas_are_plain_for_small_models() -> None:
    edit = next(s for s in default_tools().specs() if s.name == "edit").parameters
    assert "$defs" not in edit and "$ref" not in str(edit) and "anyOf" not in str(edit)
    assert edit["properties"]["old_text"] == {
        "description": "Exact text to find; it must occur exactly once.",
        "type": "string",
    }
    assert edit["properties"]["edits"]["items"]["required"] == ["old_text", "new_text"]
