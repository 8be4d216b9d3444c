"""When a command fails because of the sandbox: say so plainly, and offer to run it once without it.

``diagnose(job)`` reads the end of a failed sandboxed job's output for what Landlock denials look like:
``Permission denied``/``Operation not permitted`` on a path the policy does not let it write (but navtui
itself could), a TCP connection while the network is blocked, a signal to a process outside the sandbox.
It errs on the side of silence: a denial navtui could not get past either is not blamed on the sandbox.

``approve_unsandboxed`` asks, like any approval (``a`` allows it for the rest of the session); ``yolo`` never
lifts the sandbox (``/sandbox off`` does), and the headless approver refuses with the flag to use.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.tools.approval import ApprovalRequest, ApprovalResponse
from navtui.tools.sandbox.policy import SCOPE_ABI
from navtui.tools.shell.output import read_tail

if TYPE_CHECKING:
    from navtui.tools.base import ToolContext
    from navtui.tools.sandbox.policy import SandboxPolicy
    from navtui.tools.shell.jobs import Job

UNSANDBOXED = "shell (without the sandbox)"  # the session-allow key an `a` answer adds
_DENIED = re.compile(
    r"permission denied|operation not permitted|read-only file system|\bEACCES\b|\bEPERM\b|\bEROFS\b|errno 13\b"
    r"|errno 1\b|errno 30\b",
    re.I,
)
_NETWORK_FAILED = re.compile(
    r"failed to connect|couldn't connect to server|connection refused|ECONNREFUSED|urlopen error|"
    r"network is unreachable|could not connect",
    re.I,
)
_NETWORK_WORDS = re.compile(r"connect|socket|\bbind\b|\bport\b|https?://|urlopen|network|listen|\bhttp", re.I)
_SIGNAL = re.compile(r"\bkill: \(?\d+\)?|\bos\.kill|\bkillpg\b|\bkill\b.*not permitted", re.I)
_QUOTED = re.compile(r"""['"`‘“]([^'"`’”\n]+)['"’”]""")
_BARE = re.compile(r"(?:^|[\s(=])(~?[\w.@+-]*/[^\s:'\",;()]*)")


def _candidates(line: str) -> list[str]:
    """Paths a denial line may name; not its first ``prog:`` field (``/usr/bin/bash: line 1: ...``)."""
    fields = line.split(": ")
    program = fields[0].strip() if len(fields) > 1 else ""
    found = [m.group(1) for m in _QUOTED.finditer(line)]
    found += [m.group(1) for m in _BARE.finditer(line)]
    if len(fields) >= 3:  # "bash: line 1: out/b: Permission denied" names a relative path
        found.append(fields[-2].strip())
    return [c for c in found if c and c != program and not c.startswith(("http://", "https://")) and "\0" not in c]


def _writable_unconfined(path: Path) -> bool:
    """Could navtui itself write ``path`` (or create it in its nearest existing parent)?"""
    probe = path
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK)


def _guarded_path(line: str, cwd: Path, policy: SandboxPolicy) -> Path | None:
    """A path the namespaces keep read-only (git's config and hooks, .navtui/, ...) that ``line`` names."""
    if not policy.namespaces:
        return None
    guarded = policy.guarded().read_only
    for text in _candidates(line):
        try:
            path = Path(os.path.expanduser(text))
            path = (path if path.is_absolute() else cwd / path).resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if any(path == g or path.is_relative_to(g) for g in guarded):
            return path
    return None


def _blocked_path(line: str, cwd: Path, policy: SandboxPolicy) -> Path | None:
    for text in _candidates(line):
        try:
            path = Path(os.path.expanduser(text))
            path = (path if path.is_absolute() else cwd / path).resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if not policy.can_write(path) and _writable_unconfined(path):
            return path
    return None


def diagnose_text(text: str, cwd: Path, policy: SandboxPolicy) -> str | None:
    """Why ``policy`` probably made the command whose output ends with ``text`` fail; None when unlikely."""
    if not policy.active:
        return None
    lines = text.splitlines()[-200:]
    for index, line in enumerate(lines):
        window = " ".join(lines[max(0, index - 4) : index + 1])
        if policy.network_blocked and (
            _NETWORK_FAILED.search(line) or (_DENIED.search(line) and _NETWORK_WORDS.search(window))
        ):
            return (
                f"the network is blocked for sandboxed commands ({line.strip()[:160]}); "
                "set sandbox.network to true to allow TCP"
            )
        if not _DENIED.search(line):
            continue
        if policy.abi >= SCOPE_ABI and _SIGNAL.search(window):
            return (
                "a sandboxed command cannot signal processes outside its own sandbox "
                f"({line.strip()[:160]}); stop a background job with shell_status kill"
            )
        guarded = _guarded_path(line, cwd, policy)
        if guarded is not None:
            return (
                f"{guarded} is read-only to sandboxed commands: git or navtui run programs from it "
                f"({line.strip()[:160]}); make such a change yourself, or approve it without the sandbox"
            )
        path = _blocked_path(line, cwd, policy)
        if path is not None:
            return (
                f"{path} is outside what {policy.mode} lets a command write ({line.strip()[:160]}); "
                "if commands should write there, add its folder to sandbox.writable_roots in the user settings"
            )
    return None


def diagnose(job: Job) -> str | None:
    """For a finished job: the sandbox's likely part in its failure, or None."""
    if job.sandbox is None or job.status != "exited" or not job.exit_code:
        return None
    return diagnose_text(read_tail(job.output_path, 32 * 1024, 200), job.cwd, job.sandbox)


async def approve_unsandboxed(ctx: ToolContext, command: str, why: str, cwd: Path) -> ApprovalResponse | None:
    """Ask to run ``command`` (in ``cwd``) once more without the sandbox. None when nobody may be asked (no
    approver, or yolo). A destructive command asks every time, even after an ``a``."""
    from navtui.tools.danger.rules import destructive_reason

    policy, approver = ctx.approval, ctx.approver
    if approver is None or policy is None or policy.mode == "yolo":
        return None
    destructive = destructive_reason(command, cwd=cwd)
    danger = f"destructive command: {destructive}" if destructive else None
    if UNSANDBOXED in policy.session_allow and danger is None:
        return ApprovalResponse(approved=True, always=True)
    mode = ctx.sandbox.mode if ctx.sandbox is not None else "sandbox"
    request = ApprovalRequest(
        tool="shell",
        tier="exec",
        summary=command,
        reason=(
            f"The {mode} sandbox likely blocked this command: {why}. Run it once more without the sandbox? "
            "It already ran once, so it may repeat what it did." + (f" Also: {danger}." if danger else "")
        ),
        preview=f"$ {command}",
        danger=danger is not None,
        title="Run without the sandbox?",
        unsandboxed=True,
    )
    response = await approver.request(request)
    if response.approved and response.always:
        policy.session_allow.add(UNSANDBOXED)
    return response
