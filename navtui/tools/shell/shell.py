"""shell and shell_status: run a command; after ``wait_ms`` it keeps going as a background job the model polls."""

from __future__ import annotations

import asyncio
import codecs
import difflib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from navtui.core.crash import crash_point
from navtui.core.errors import ToolError
from navtui.tools.approval import ApprovalRequest, ApprovalResponse
from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.shell.env import scrubbed_env
from navtui.tools.shell.jobs import GRACE_SECONDS, Job, exit_text
from navtui.tools.shell.output import disk_full_note, excerpt_file, human_size, read_tail, sanitize

if TYPE_CHECKING:
    from navtui.tools.sandbox.guard import GuardChange
    from navtui.tools.sandbox.policy import SandboxPolicy

POLL_SECONDS = 0.1
STREAM_CHUNK = 16 * 1024  # at most this much partial output per poll reaches the UI
DEFAULT_WAIT_MS = 30_000
DEFAULT_TIMEOUT = 600.0


class _Follower:
    """Reads what a job appended to its output file since the last call, skipping ahead on a flood."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")

    def read_new(self, limit: int = STREAM_CHUNK) -> str:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return ""
        if size <= self.offset:
            return ""
        skipped = 0
        if size - self.offset > limit:
            skipped = size - limit - self.offset
            self.offset = size - limit
            self._decoder.reset()
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read(size - self.offset)
        self.offset += len(data)
        text = sanitize(self._decoder.decode(data))
        return f"[... {human_size(skipped)} skipped ...]\n{text}" if skipped else text


def _setting(ctx: ToolContext, name: str, default: Any) -> Any:
    return getattr(getattr(ctx.settings, "tools", None), name, default)


def _job_footer(job: Job, polling: bool = True) -> str:
    if job.status == "timed_out":
        line = f"[timed out after {job.timeout:g} s: the command and everything it started were stopped]"
    elif job.status == "killed":
        line = f"[killed after {job.duration:.1f} s]"
    elif job.status == "output_limit":
        line = (
            f"[stopped after {job.duration:.1f} s: its output passed {job.max_output >> 20} MB. Send a long output to a "
            "file and read parts of it, or cut it with head, tail or grep]"
        )
    else:
        line = f"[{exit_text(job.exit_code)} · {job.duration:.1f} s]"
    if job.guard_changes:
        shown = "; ".join(str(c) for c in job.guard_changes[:6]) + ("; ..." if len(job.guard_changes) > 6 else "")
        if job.guard_kept:
            line += (
                f"\n[the command changed files git or navtui run programs from: {shown}. navtui undid it, and the "
                "user chose to keep the change: it is back as the command left it]"
            )
        else:
            line += (
                f"\n[navtui undid what the command did to files git or navtui run programs from: {shown}. Commands "
                "may not change git's config or hooks, .navtui/, .mcp.json or .env*, nor leave hooks or program "
                "settings in a git dir they create; ask the user to make such a change]"
            )
        if job.guard_note:
            line += f"\n[{job.guard_note}]"
    if job.leftovers and polling:
        line += (
            f"\n[stopped {job.leftovers} background process(es) the command left running; start a long-lived "
            "server as its own shell call with a small wait_ms and check it with shell_status]"
        )
    elif job.leftovers:
        line += f"\n[stopped {job.leftovers} background process(es) the command left running]"
    return line


def _change_preview(changes: list[GuardChange]) -> str | None:
    """What the command had written, as a diff against what navtui put back (small text files only)."""
    parts: list[str] = []
    for change in changes[:6]:
        after = {path: entry for path, entry in (change.left or []) if entry.kind == "file"}
        entry = after.get(change.path)
        if entry is None or entry.data is None or len(entry.data) > 64 * 1024:
            continue
        try:
            now = change.path.read_bytes().decode("utf-8", "surrogateescape") if change.path.is_file() else ""
        except OSError:
            now = ""
        new = entry.data.decode("utf-8", "surrogateescape")
        name = str(change.path)
        parts += difflib.unified_diff(now.splitlines(), new.splitlines(), name, name, lineterm="")
    return "\n".join(parts) or None


async def settle_guard_changes(job: Job, ctx: ToolContext) -> None:
    """What the guard undid after ``job`` stays undone, unless the user (asked once, in ``ask``/``write``) keeps
    it; headless and ``yolo`` runs keep it undone and say so. Without namespaces the model hears once per
    session why navtui checks after each command instead of keeping the files read-only."""
    if not job.guard_changes or job.guard_kept is not None:
        return
    job.guard_kept = False
    notes: list[str] = []
    sandbox = job.sandbox
    if sandbox is not None and sandbox.no_namespaces and not ctx.jobs.said_fallback:
        ctx.jobs.said_fallback = True
        notes.append(
            f"the stronger sandbox is not available ({sandbox.no_namespaces}), so these files are checked after each "
            "command instead of being read-only to it"
        )
    policy, approver = ctx.approval, ctx.approver
    if approver is None or policy is None or policy.mode == "yolo":
        notes.append("not offered to the user in yolo mode" if policy is not None and policy.mode == "yolo" else "")
    else:
        shown = "\n".join(f"- {change}" for change in job.guard_changes[:12])
        request = ApprovalRequest(
            tool="shell",
            tier="exec",
            summary=job.command,
            reason=(
                "The command changed files git or navtui run programs from, and navtui undid it:\n"
                f"{shown}\nKeep the change as the command left it? Only if you know what it does."
            ),
            preview=_change_preview(job.guard_changes),
            danger=True,
            title="Keep the command's change?",
            keep_change=True,
        )
        response = await approver.request(request)
        if response.approved:
            from navtui.tools.sandbox.guard import keep

            failed = await asyncio.to_thread(keep, job.guard_changes)
            job.guard_kept = not failed
            if failed:
                notes.append("the user chose to keep it, but these could not be put back: " + "; ".join(failed))
        elif response.by_policy:
            notes.append(response.reason or "")
        else:
            said = f" Their reason: {response.reason}" if response.reason else ""
            notes.append(f"the user chose to leave it undone.{said}")
    job.guard_note = "; ".join(n for n in notes if n) or None


def _job_details(job: Job, truncated: bool = False) -> dict[str, Any]:
    return {
        "job": job.id,
        "status": job.status,
        "exit_code": job.exit_code,
        "duration": round(job.duration, 3),
        "output_path": str(job.output_path),
        "truncated": truncated,
        "cwd": str(job.cwd),
        "sandbox": job.sandbox.mode if job.sandbox is not None else "off",
    }


def finished_result(job: Job, polling: bool = True) -> ToolResult:
    """The result of a finished job; ``polling``: shell_status is on offer (a hint may name it)."""
    excerpt = excerpt_file(job.output_path)
    body = excerpt.render(full_output=str(job.output_path)) if excerpt.total_bytes else "(no output)"
    text = f"{body.rstrip()}\n{_job_footer(job, polling)}"
    full = disk_full_note(job.output_path.parent)
    if full is not None:
        text += f"\n{full}"
    failed = job.status != "exited" or job.exit_code != 0 or full is not None
    details = _job_details(job, excerpt.truncated)
    from navtui.tools.sandbox.blocked import diagnose  # with the first command, as the guard (sandbox/policy.py)

    blocked = diagnose(job) if failed else None
    if blocked:
        text += f"\n[the {job.sandbox.mode if job.sandbox else ''} sandbox likely caused this: {blocked}]"
        details["sandbox_blocked"] = blocked
    return ToolResult(text, is_error=failed, details=details)


def _declined_note(response: ApprovalResponse) -> str:
    if response.by_policy:
        return f"[not run again without the sandbox: {response.reason}]"
    reason = f" Their reason: {response.reason}." if response.reason else ""
    return f"[the user declined to run it without the sandbox.{reason} Work within the sandbox or ask the user.]"


class ShellArgs(BaseModel):
    command: str = Field(min_length=1, description="The bash command line to run.")
    timeout: float | None = Field(
        None, gt=0, le=86_400, description="Seconds before the command and its children are killed (default 600)."
    )
    wait_ms: int | None = Field(
        None,
        ge=0,
        le=600_000,
        description="Milliseconds to wait for it to finish (default 30000); then it keeps running as a background job.",
    )
    cwd: str | None = Field(None, description="Directory to run in, inside the workspace (default: the workspace).")


class ShellTool(Tool[ShellArgs]):
    name = "shell"
    description = (
        "Run a bash command in the workspace and return its output and exit code. stdin is empty, so "
        "interactive prompts fail: pass flags like -y. Long output is cut to its beginning and end. "
        "A command still running after wait_ms (default 30 s) becomes a background job: poll it with shell_status. "
        "Do not end commands with &: processes left running are stopped when the command ends. "
        'Example: {"command": "python -m pytest -q tests/test_app.py"}'
    )
    Args = ShellArgs
    tier = "exec"

    def summary(self, args: ShellArgs) -> str:
        first = args.command.strip().splitlines()[0] if args.command.strip() else ""
        return first[:200] + (" …" if len(first) > 200 or "\n" in args.command.strip() else "")

    def preview(self, args: ShellArgs, ctx: ToolContext) -> str | None:
        where = f" (in {args.cwd})" if args.cwd else ""
        return f"$ {args.command}{where}"

    async def run(self, args: ShellArgs, ctx: ToolContext) -> ToolResult:
        cwd = ctx.workspace.confine(args.cwd or ".", action="run a command in")
        if not cwd.is_dir():
            raise ToolError(f"Cannot run in {ctx.workspace.display(cwd)}: not an existing directory")
        result = await self._run_job(args, ctx, cwd, ctx.sandbox)
        blocked = (result.details or {}).get("sandbox_blocked")
        if not blocked:
            return result
        from navtui.tools.sandbox.blocked import approve_unsandboxed

        response = await approve_unsandboxed(ctx, args.command, blocked, cwd)
        if response is None:
            result.text += (
                "\n[the sandbox stays on in this approval mode; the user can turn it off with /sandbox off "
                "or navtui --sandbox off]"
            )
            return result
        if not response.approved:
            result.text += "\n" + _declined_note(response)
            return result
        ctx.on_output("\n[running it again without the sandbox]\n")
        again = await self._run_job(args, ctx, cwd, None)
        again.text = (
            f"[second run without the sandbox, approved after the sandboxed run failed]\n{again.text}\n"
            f"[the sandbox had blocked the first run: {blocked}]"
        )
        again.details = {**(again.details or {}), "unsandboxed_retry": True}
        return again

    async def _run_job(self, args: ShellArgs, ctx: ToolContext, cwd: Path, sandbox: SandboxPolicy | None) -> ToolResult:
        timeout = args.timeout or _setting(ctx, "shell_timeout", DEFAULT_TIMEOUT)
        polling = ctx.offers(ShellStatusTool.name)
        if polling:
            wait_ms = args.wait_ms if args.wait_ms is not None else _setting(ctx, "shell_wait_ms", DEFAULT_WAIT_MS)
        else:  # no background job the model could never check on: wait_ms is ignored, the command runs to its end
            wait_ms = int(timeout * 1000) + 1000
        env = scrubbed_env(os.environ, _setting(ctx, "shell_env_passthrough", ()))
        job = ctx.jobs.start(
            args.command, cwd=cwd, env=env, output_dir=ctx.artifacts_dir, timeout=timeout, sandbox=sandbox
        )
        follower = _Follower(job.output_path)
        deadline = time.monotonic() + wait_ms / 1000
        crash_point("tool:after_spawn")
        try:
            while True:
                left = deadline - time.monotonic()
                finished = await job.wait(max(0.0, min(POLL_SECONDS, left)))
                chunk = follower.read_new()
                if chunk:
                    ctx.on_output(chunk)
                if finished:
                    await settle_guard_changes(job, ctx)
                    return finished_result(job, polling)
                if left <= 0:
                    return self._backgrounded(job, wait_ms)
        except asyncio.CancelledError:
            job.kill()  # Esc: the whole tree goes, not just the shell
            raise

    @staticmethod
    def _backgrounded(job: Job, wait_ms: int) -> ToolResult:
        tail = read_tail(job.output_path, 4096, 20).rstrip()
        text = (
            f"Still running after {wait_ms / 1000:g} s, so it continues as background job {job.id} "
            f"(killed after {job.timeout:g} s).\n"
            f'Check it with shell_status {{"job": "{job.id}"}} (add "wait_ms": 30000 to wait for it to finish), '
            f'see its output with "action": "tail", or stop it with "action": "kill".\n'
            + (f"Output so far (last lines):\n{tail}" if tail else "No output yet.")
        )
        return ToolResult(text, details=_job_details(job))


class ShellStatusArgs(BaseModel):
    job: str = Field(min_length=1, description='The job id that shell returned, e.g. "j1".')
    action: Literal["status", "output", "tail", "kill"] = Field(
        "status",
        description="status: state and last lines; output: the whole output (cut if long); tail: last 100 lines; "
        "kill: stop the job and everything it started.",
    )
    wait_ms: int = Field(0, ge=0, le=600_000, description="Milliseconds to wait for a running job to finish first.")


class ShellStatusTool(Tool[ShellStatusArgs]):
    name = "shell_status"
    description = (
        "Check or stop a background job started by shell. "
        'Example: {"job": "j1", "action": "status", "wait_ms": 20000} waits up to 20 s, then reports its state; '
        "actions: status, output, tail, kill."
    )
    Args = ShellStatusArgs
    tier = "read"

    def summary(self, args: ShellStatusArgs) -> str:
        return f"{args.job} {args.action}" + (f" (wait {args.wait_ms / 1000:g} s)" if args.wait_ms else "")

    async def run(self, args: ShellStatusArgs, ctx: ToolContext) -> ToolResult:
        job = ctx.jobs.require(args.job)
        if args.action == "kill":
            if job.running:
                job.kill()
                await job.wait(GRACE_SECONDS + 3)
            return ToolResult(f"{job.describe()}\n{_job_footer(job)}", details=_job_details(job))
        if args.wait_ms and job.running:
            await job.wait(args.wait_ms / 1000)
        if not job.running:
            await settle_guard_changes(job, ctx)
        if args.action == "output":
            if not job.running:
                result = finished_result(job)
                result.is_error = False  # the query worked; the text says how the job ended
                return result
            excerpt = excerpt_file(job.output_path)
            body = excerpt.render(full_output=str(job.output_path)) if excerpt.total_bytes else "(no output yet)"
            return ToolResult(f"{job.describe()}\n{body}", details=_job_details(job, excerpt.truncated))
        lines, size = (100, 16 * 1024) if args.action == "tail" else (20, 4096)
        tail = read_tail(job.output_path, size, lines).rstrip() or "(no output yet)"
        footer = "" if job.running else f"\n{_job_footer(job)}"
        return ToolResult(f"{job.describe()}\nLast output:\n{tail}{footer}", details=_job_details(job))
