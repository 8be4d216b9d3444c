"""Approval: which calls run at once, which ask the user, which are refused.

Modes (omp approval-mode): ``ask`` prompts for write and exec, ``write`` prompts for exec, ``yolo`` never
prompts. Per-tool lists in settings override the mode; a destructive command forces a prompt outside yolo.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from navtui.tools.base import Tier

ApprovalMode = Literal["ask", "write", "yolo"]
Verdict = Literal["allow", "deny", "ask"]


@dataclass
class ApprovalRequest:
    tool: str
    tier: Tier
    summary: str  # the command, the path, ...
    reason: str  # why it needs a prompt
    preview: str | None = None  # a diff or the full command
    call_id: str = ""


@dataclass
class ApprovalResponse:
    approved: bool
    always: bool = False  # allow this tool for the rest of the session
    reason: str | None = None  # the user's words on a denial, passed to the model


class Approver(Protocol):
    async def request(self, request: ApprovalRequest) -> ApprovalResponse: ...


@dataclass
class Decision:
    verdict: Verdict
    reason: str = ""


@dataclass
class ApprovalPolicy:
    mode: ApprovalMode = "ask"
    allow: set[str] = field(default_factory=set)
    deny: set[str] = field(default_factory=set)
    prompt: set[str] = field(default_factory=set)
    session_allow: set[str] = field(default_factory=set)

    @classmethod
    def from_settings(cls, settings: Any) -> ApprovalPolicy:
        tools = settings.tools
        return cls(mode=settings.approval, allow=set(tools.allow), deny=set(tools.deny), prompt=set(tools.prompt))

    def decide(self, tool: str, tier: Tier, danger: str | None = None) -> Decision:
        if tool in self.deny:
            return Decision("deny", f"{tool} is denied by the tools.deny setting")
        if danger and self.mode != "yolo":
            return Decision("ask", danger)
        if self.mode == "yolo":
            return Decision("allow")
        if tool in self.prompt:
            return Decision("ask", f"{tool} is listed in tools.prompt")
        if tool in self.allow or tool in self.session_allow:
            return Decision("allow")
        if tier == "exec":
            return Decision("ask", "runs a command")
        if tier == "write" and self.mode == "ask":
            return Decision("ask", "changes files")
        return Decision("allow")


class DenyingApprover:
    """For headless modes: a call that needs a prompt is refused with a message on how to allow it."""

    async def request(self, request: ApprovalRequest) -> ApprovalResponse:
        return ApprovalResponse(
            approved=False,
            reason=(
                f"{request.tool} needs approval ({request.reason}) and navtui is running without a prompt. "
                "Re-run with --approval write or --approval yolo, or add the tool to tools.allow in settings."
            ),
        )


def danger_reason(tool_name: str, args: object) -> str | None:
    """Why a call is destructive (forces a prompt outside yolo), or None."""
    try:
        from navtui.tools.danger import destructive_reason
    except ImportError:
        return None
    return destructive_reason(tool_name, args)
