"""Authorizing one tool call: the approval policy applied to a tool, its validated arguments and its context.

The agent calls ``authorize(tool, args, ctx, policy, approver, call)`` once per tool call, after the arguments
validated and before ``tool.run``: ``None`` means run it, an ``ApprovalResponse`` means the user (or the
policy) answered; when ``approved`` is false, ``approval.denial_message`` is the tool error the model gets back.
"""

from __future__ import annotations

import asyncio
from typing import Any

from navtui.core.errors import ToolError
from navtui.tools.approval import ApprovalPolicy, ApprovalRequest, ApprovalResponse, Approver, command_rule
from navtui.tools.base import Tool, ToolContext
from navtui.tools.files.protected import protected_reason


def forced_reason(tool: Tool[Any], args: Any, ctx: ToolContext) -> str | None:
    """Why a call must ask outside yolo whatever the settings say, or None.

    A ``command`` argument that the destructive-command check flags, or a path the call would change
    (``tool.changes``) that resolves to a protected location.
    """
    command = getattr(args, "command", None)
    if isinstance(command, str):
        from navtui.tools.danger.rules import destructive_reason

        where = getattr(args, "cwd", None)
        try:
            cwd = ctx.workspace.resolve(where) if isinstance(where, str) and where else ctx.cwd
        except ToolError:
            cwd = ctx.cwd
        reason = destructive_reason(command, cwd=cwd)
        if reason:
            return f"destructive command: {reason}"
    for raw in tool.changes(args, ctx):
        try:
            resolved = ctx.workspace.resolve(raw)
        except ToolError:
            continue  # the tool itself reports a path it cannot use
        reason = protected_reason(resolved)
        if reason:
            return f"protected path: {reason}"
    return None


async def authorize(
    tool: Tool[Any],
    args: Any,
    ctx: ToolContext,
    policy: ApprovalPolicy,
    approver: Approver,
    call: Any = None,
) -> ApprovalResponse | None:
    """Decide one call: ``None`` to run it without asking, else the answer (approved or not).

    ``args`` are the validated arguments; ``call`` (a ``ToolCall``) only lends its id to the request.
    An approval with ``always`` adds the tool to ``policy.session_allow`` (forced prompts still ask).
    """
    tier = tool.tier_for(args, ctx)
    danger = forced_reason(tool, args, ctx)
    note = tool.approval_reason(args, ctx)
    command = getattr(args, "command", None) if tier == "exec" else None
    command = command if isinstance(command, str) else None
    decision = policy.decide(tool.name, tier, danger, note, command)
    if decision.verdict == "allow":
        return None
    if decision.verdict == "deny":
        return ApprovalResponse(approved=False, reason=decision.reason, by_policy=True)
    try:
        # In a thread: a preview reads the file and diffs it (a write over a 1 MB file: seconds), the loop draws.
        preview = await asyncio.to_thread(tool.preview, args, ctx)
    except Exception:  # a preview is a courtesy; the prompt goes ahead without one
        preview = None
    request = ApprovalRequest(
        tool=tool.name,
        tier=tier,
        summary=tool.summary(args),
        reason=decision.reason,
        preview=preview,
        call_id=getattr(call, "id", "") or "",
        danger=danger is not None,
        rule=command_rule(tool.name, command) if command is not None and danger is None else None,
    )
    response = await approver.request(request)
    if response.approved and response.always:
        policy.session_allow.add(tool.name)
    if response.approved and response.rule and response.rule == request.rule:
        policy.session_allow.add(response.rule)
    return response
