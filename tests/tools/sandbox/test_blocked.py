"""A command the sandbox made fail: the result says so, and in ask/write mode the user may let it run unconfined."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.tools.approval import ApprovalPolicy, ApprovalRequest, ApprovalResponse, DenyingApprover
from navtui.tools.sandbox.blocked import UNSANDBOXED, diagnose_text
from navtui.tools.shell.shell import ShellTool
from tests.tools.conftest import call
from tests.tools.sandbox.support import needs_landlock, policy, sandboxed_context

shell = ShellTool()


class Answers:
    """An approver that answers from a list and keeps every request it got."""

    def __init__(self, *answers: ApprovalResponse) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalResponse:
        self.requests.append(request)
        return self.answers.pop(0)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def context(ws: Path, tmp_path: Path, approver, mode: str = "ask"):
    ctx = sandboxed_context(ws, tmp_path, policy("workspace-write", ws, tmp_path))
    ctx.approval = ApprovalPolicy(mode=mode)  # type: ignore[arg-type]
    ctx.approver = approver
    return ctx


# ---------------------------------------------------------------- diagnosis
@pytest.mark.parametrize(
    "line",
    [
        "touch: cannot touch '{out}/x': Permission denied",
        "PermissionError: [Errno 13] Permission denied: '{out}/x'",
        "mkdir: cannot create directory ‘{out}/x’: Permission denied",
        "error: could not lock config file {out}/x/config: Permission denied",
    ],
)
@needs_landlock
def test_a_denied_write_outside_is_blamed_on_the_sandbox(ws: Path, tmp_path: Path, outside: Path, line: str) -> None:
    why = diagnose_text("building...\n" + line.format(out=outside) + "\n", ws, policy("workspace-write", ws, tmp_path))
    assert why is not None and str(outside / "x") in why and "workspace-write" in why


@needs_landlock
def test_a_relative_path_from_bash_is_resolved_against_the_cwd(ws: Path, tmp_path: Path) -> None:
    why = diagnose_text("/usr/bin/bash: line 1: notes.txt: Permission denied\n", ws, policy("read-only", ws, tmp_path))
    assert why is not None and str(ws / "notes.txt") in why and "/usr/bin/bash" not in why.split("(")[0]


@needs_landlock
def test_network_failures_are_blamed_only_while_the_network_is_blocked(ws: Path, tmp_path: Path) -> None:
    curl = "curl: (7) Failed to connect to example.org port 443 after 0 ms: Couldn't connect to server\n"
    python = "  File 'x.py', line 3, in connect\n    sock.connect(sa)\nPermissionError: [Errno 13] Permission denied\n"
    blocked = policy("workspace-write", ws, tmp_path)
    if not blocked.network_blocked:
        pytest.skip("the kernel cannot block TCP")
    assert "network is blocked" in (diagnose_text(curl, ws, blocked) or "")
    assert "sandbox.network" in (diagnose_text(python, ws, blocked) or "")
    assert diagnose_text(curl, ws, policy("workspace-write", ws, tmp_path, network=True)) is None


@needs_landlock
def test_denials_the_sandbox_did_not_cause_are_not_blamed_on_it(ws: Path, tmp_path: Path) -> None:
    sandbox = policy("workspace-write", ws, tmp_path)
    inside = f"touch: cannot touch '{ws}/x': Permission denied\n"  # the sandbox allows the workspace
    assert diagnose_text(inside, ws, sandbox) is None
    assert diagnose_text("Segmentation fault\n", ws, sandbox) is None
    assert (
        diagnose_text(f"touch: cannot touch '{tmp_path}/o': Permission denied", ws, policy("off", ws, tmp_path)) is None
    )


# ---------------------------------------------------------------- running it again without the sandbox
@needs_landlock
async def test_approved_it_runs_again_without_the_sandbox(ws: Path, tmp_path: Path, outside: Path) -> None:
    approver = Answers(ApprovalResponse(approved=True))
    ctx = context(ws, tmp_path, approver)
    result = await call(shell, ctx, command=f"echo hi > {outside}/o && echo wrote")
    [request] = approver.requests
    assert request.unsandboxed and request.title == "Run without the sandbox?" and request.tool == "shell"
    assert str(outside / "o") in request.reason and "already ran once" in request.reason
    assert (outside / "o").read_text() == "hi\n"
    assert not result.is_error and result.text.startswith("[second run without the sandbox")
    assert result.details["unsandboxed_retry"] and result.details["sandbox"] == "off"
    ctx.jobs.kill_all_sync(grace=0.5)


@needs_landlock
async def test_always_lets_later_blocked_commands_run_unconfined_without_asking(
    ws: Path, tmp_path: Path, outside: Path
) -> None:
    approver = Answers(ApprovalResponse(approved=True, always=True))
    ctx = context(ws, tmp_path, approver, mode="write")
    await call(shell, ctx, command=f"echo 1 > {outside}/one")
    second = await call(shell, ctx, command=f"echo 2 > {outside}/two")
    assert len(approver.requests) == 1 and UNSANDBOXED in ctx.approval.session_allow
    assert (outside / "two").read_text() == "2\n" and "second run without the sandbox" in second.text
    ctx.jobs.kill_all_sync(grace=0.5)


@needs_landlock
async def test_a_refusal_keeps_the_sandboxed_result_and_tells_the_model(
    ws: Path, tmp_path: Path, outside: Path
) -> None:
    approver = Answers(ApprovalResponse(approved=False, reason="keep it in the repo"))
    ctx = context(ws, tmp_path, approver)
    result = await call(shell, ctx, command=f"echo hi > {outside}/o")
    assert not (outside / "o").exists() and result.is_error
    assert "declined to run it without the sandbox" in result.text and "keep it in the repo" in result.text


@needs_landlock
async def test_yolo_never_lifts_the_sandbox(ws: Path, tmp_path: Path, outside: Path) -> None:
    approver = Answers()
    ctx = context(ws, tmp_path, approver, mode="yolo")
    result = await call(shell, ctx, command=f"echo hi > {outside}/o")
    assert approver.requests == [] and not (outside / "o").exists()
    assert "/sandbox off" in result.text and "--sandbox off" in result.text


@needs_landlock
async def test_headless_refuses_and_names_the_flag(ws: Path, tmp_path: Path, outside: Path) -> None:
    ctx = context(ws, tmp_path, DenyingApprover())
    result = await call(shell, ctx, command=f"echo hi > {outside}/o")
    assert not (outside / "o").exists()
    assert "[not run again without the sandbox:" in result.text and "--sandbox off" in result.text
