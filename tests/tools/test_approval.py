"""Approval: modes by tier, per-tool settings, destructive commands, per-call reasons, denials the model can read."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from navtui.config.settings import Settings
from navtui.core.messages import ToolCall
from navtui.tools.approval import (
    ApprovalPolicy,
    ApprovalRequest,
    ApprovalResponse,
    DenyingApprover,
    denial_message,
)
from navtui.tools.authorize import authorize
from navtui.tools.files.edit import EditTool
from navtui.tools.files.read import ReadTool
from navtui.tools.files.write import WriteTool
from navtui.tools.shell.shell import ShellTool


@dataclass
class ScriptedApprover:
    answer: ApprovalResponse
    requests: list[ApprovalRequest] = field(default_factory=list)

    async def request(self, request: ApprovalRequest) -> ApprovalResponse:
        self.requests.append(request)
        return self.answer


@pytest.mark.parametrize(
    ("mode", "tier", "verdict"),
    [
        ("ask", "read", "allow"),
        ("ask", "write", "ask"),
        ("ask", "exec", "ask"),
        ("write", "read", "allow"),
        ("write", "write", "allow"),
        ("write", "exec", "ask"),
        ("yolo", "read", "allow"),
        ("yolo", "write", "allow"),
        ("yolo", "exec", "allow"),
    ],
)
def test_modes_by_tier(mode: str, tier: str, verdict: str) -> None:
    assert ApprovalPolicy(mode=mode).decide("t", tier).verdict == verdict  # type: ignore[arg-type]


def test_per_tool_settings() -> None:
    policy = ApprovalPolicy(mode="ask", allow={"shell"}, deny={"write"}, prompt={"read"})
    assert policy.decide("shell", "exec").verdict == "allow"
    assert policy.decide("write", "write").verdict == "deny"
    assert policy.decide("read", "read").verdict == "ask"
    assert ApprovalPolicy(mode="yolo", deny={"write"}).decide("write", "write").verdict == "deny"


def test_destructive_forces_a_prompt_outside_yolo_only() -> None:
    danger = "destructive command: recursively deletes your home directory (rm -r ~)"
    allowed = ApprovalPolicy(mode="write", allow={"shell"}, session_allow={"shell"})
    decision = allowed.decide("shell", "exec", danger)
    assert decision.verdict == "ask" and decision.reason == danger
    assert ApprovalPolicy(mode="yolo").decide("shell", "exec", danger).verdict == "allow"


def test_from_settings() -> None:
    settings = Settings.model_validate({"approval": "write", "tools": {"allow": ["shell"], "deny": ["write"]}})
    policy = ApprovalPolicy.from_settings(settings)
    assert policy.mode == "write" and policy.allow == {"shell"} and policy.deny == {"write"}


async def test_destructive_command_in_write_mode_asks_with_the_reason(ctx) -> None:
    shell = ShellTool()
    policy = ApprovalPolicy(mode="write", allow={"shell"})
    approver = ScriptedApprover(ApprovalResponse(approved=False, reason="never touch my home"))
    args = shell.parse_args({"command": "rm -rf ~"})
    response = await authorize(shell, args, ctx, policy, approver, ToolCall(id="call_7", name="shell"))
    assert response is not None and not response.approved
    request = approver.requests[0]
    assert request.danger and request.call_id == "call_7" and request.tier == "exec"
    assert request.reason == "destructive command: recursively deletes your home directory (rm -rf ~)"
    assert request.preview == "$ rm -rf ~"
    message = denial_message("shell", response)
    assert message.startswith("The user denied this shell call. Their reason: never touch my home")
    # An ordinary command under the same policy runs without asking.
    assert await authorize(shell, shell.parse_args({"command": "ls"}), ctx, policy, approver) is None


async def test_always_allows_the_tool_for_the_session_but_not_destruction(ctx) -> None:
    shell = ShellTool()
    policy = ApprovalPolicy(mode="ask")
    approver = ScriptedApprover(ApprovalResponse(approved=True, always=True))
    assert (await authorize(shell, shell.parse_args({"command": "make"}), ctx, policy, approver)).approved
    assert policy.session_allow == {"shell"}
    assert await authorize(shell, shell.parse_args({"command": "make test"}), ctx, policy, approver) is None
    await authorize(shell, shell.parse_args({"command": "git push -f origin main"}), ctx, policy, approver)
    assert len(approver.requests) == 2 and approver.requests[1].danger


async def test_edit_prompt_shows_the_diff(ws: Path, ctx) -> None:
    (ws / "a.py").write_text("x = 1\n")
    edit = EditTool()
    approver = ScriptedApprover(ApprovalResponse(approved=True))
    args = edit.parse_args({"path": "a.py", "old_text": "x = 1", "new_text": "x = 2"})
    await authorize(edit, args, ctx, ApprovalPolicy(mode="ask"), approver)
    request = approver.requests[0]
    assert request.reason == "changes files" and request.summary == "a.py"
    assert "-x = 1\n+x = 2" in (request.preview or "")


async def test_read_outside_the_workspace_asks_in_ask_mode_only(tmp_path: Path, ctx) -> None:
    outside = tmp_path / "notes.txt"
    outside.write_text("n\n")
    read = ReadTool()
    args = read.parse_args({"path": str(outside)})
    approver = ScriptedApprover(ApprovalResponse(approved=True))
    await authorize(read, args, ctx, ApprovalPolicy(mode="ask"), approver)
    assert approver.requests[0].reason == f"reads outside the workspace: {outside}"
    assert await authorize(read, args, ctx, ApprovalPolicy(mode="write"), approver) is None
    inside = read.parse_args({"path": "x.py"})
    assert await authorize(read, inside, ctx, ApprovalPolicy(mode="ask"), approver) is None


async def test_shell_output_files_are_readable_without_a_prompt(ctx) -> None:
    read = ReadTool()
    args = read.parse_args({"path": str(ctx.artifacts_dir / "shell-x.log")})
    assert read.tier_for(args, ctx) == "read"


async def test_policy_denial_is_not_blamed_on_the_user(ctx) -> None:
    write = WriteTool()
    response = await authorize(
        write,
        write.parse_args({"path": "a", "content": ""}),
        ctx,
        ApprovalPolicy(mode="yolo", deny={"write"}),
        DenyingApprover(),
    )
    assert response is not None and response.by_policy
    assert denial_message("write", response) == "Not run: write is denied by the tools.deny setting"


async def test_headless_denial_says_how_to_allow(ctx) -> None:
    shell = ShellTool()
    response = await authorize(
        shell, shell.parse_args({"command": "pytest"}), ctx, ApprovalPolicy(mode="write"), DenyingApprover()
    )
    assert response is not None and not response.approved
    text = denial_message("shell", response)
    assert "running without a prompt" in text and "--approval yolo" in text and "tools.allow" in text
    write = WriteTool()
    response = await authorize(
        write, write.parse_args({"path": "a", "content": ""}), ctx, ApprovalPolicy(), DenyingApprover()
    )
    assert "--approval write" in denial_message("write", response)


async def test_a_preview_is_made_off_the_loop(ctx) -> None:
    # A write's preview reads the file it replaces and diffs it (seconds for a 1 MB file): the screen must go on
    # drawing meanwhile. This preview only finishes if the loop runs while it is made.
    import asyncio
    import threading

    loop_ran = threading.Event()

    class SlowPreview(WriteTool):
        def preview(self, args, ctx):  # type: ignore[no-untyped-def]
            return "drawn meanwhile" if loop_ran.wait(5) else "the loop stood still"

    tool = SlowPreview()
    approver = ScriptedApprover(ApprovalResponse(approved=True))
    asyncio.get_running_loop().call_soon(loop_ran.set)
    await authorize(tool, tool.parse_args({"path": "a.txt", "content": "x"}), ctx, ApprovalPolicy(mode="ask"), approver)
    assert approver.requests[0].preview == "drawn meanwhile"
