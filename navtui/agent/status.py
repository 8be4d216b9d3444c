"""What the status line and ``/context`` show: a session's state and its context usage, in numbers.

Plain functions of the parts they read (the agent, its provider, the tool context, the session ...), so the UI's
words for them (``widgets/status_line.py``, ``app/commands/builtin.py``) can be tested without a runtime.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.mcp.manager import McpManager
    from navtui.providers.base import Provider
    from navtui.session.manager import SessionManager
    from navtui.tools.approval import ApprovalPolicy
    from navtui.tools.base import ToolContext, ToolRegistry

Role = Literal["user", "assistant", "toolResult"]
ROLES: tuple[Role, ...] = ("user", "assistant", "toolResult")


@dataclass
class ContextUsage:
    """What the context holds: the numbers behind ``/context``."""

    model: str
    window: int | None
    used: int
    system_tokens: int
    tools: list[str]
    context_files: list[str]
    messages: dict[Role, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    message_tokens: dict[Role, int] = field(default_factory=lambda: dict.fromkeys(ROLES, 0))
    mcp_tokens: dict[str, int] = field(default_factory=dict)  # each MCP server's tool schemas, in every request


@dataclass
class StatusInfo:
    cwd: str
    git_branch: str | None
    git_dirty: bool
    provider: str
    model: str
    context_tokens: int
    context_window: int | None
    tokens_in: int
    tokens_out: int
    cost: float | None
    approval: str
    handover_count: int
    advisor_on: bool
    session_name: str | None = None
    mcp: str | None = None  # MCP servers starting, failed or waiting for approval
    sandbox: str = ""  # the sandbox label: workspace-write, read-only(+net), off (off! when it degraded)
    git_staged: int = 0
    git_unstaged: int = 0
    git_untracked: int = 0
    background_jobs: int = 0
    tokens_cached: int = 0  # of tokens_in, those the server read from its prompt cache


def status_info(
    cwd: Path,
    agent: Agent,
    provider: Provider,
    ctx: ToolContext,
    policy: ApprovalPolicy,
    *,
    session: SessionManager | None,
    mcp: McpManager | None,
    handover_count: int,
    advisor_on: bool,
    with_git: bool = True,
) -> StatusInfo:
    """The status line's facts; ``with_git=False`` skips asking git (the branch and counts stay empty)."""
    from navtui.agent.git_status import GitStatus, git_status

    git = git_status(cwd) if with_git else GitStatus()
    total = agent.usage_total
    return StatusInfo(
        cwd=str(cwd),
        git_branch=git.branch,
        git_dirty=git.dirty,
        git_staged=git.staged,
        git_unstaged=git.unstaged,
        git_untracked=git.untracked,
        background_jobs=len(ctx.jobs.running()),
        provider=provider.name,
        model=provider.model,
        context_tokens=agent.budget.estimate(agent),
        context_window=agent.budget.window,
        tokens_in=total.input + total.cache_read + total.cache_write,
        tokens_out=total.output,
        tokens_cached=total.cache_read,
        cost=total.cost.total if total.cost else None,
        approval=policy.mode,
        handover_count=handover_count,
        advisor_on=advisor_on,
        session_name=session.name if session is not None else None,
        mcp=mcp.summary() if mcp is not None else None,
        sandbox=ctx.sandbox.label if ctx.sandbox is not None else "",
    )


def context_usage(
    cwd: Path, agent: Agent, provider: Provider, tools: ToolRegistry, *, mcp: McpManager | None
) -> ContextUsage:
    """What the context holds, in numbers (``/context`` words them). Reads context files: call it off the loop."""
    from navtui.agent.budget import estimate_message_tokens, estimate_text_tokens
    from navtui.config.context_files import discover_context_files

    usage = ContextUsage(
        model=provider.label,
        window=agent.budget.window,
        used=agent.budget.estimate(agent),
        system_tokens=estimate_text_tokens(agent.request_system_prompt()),
        tools=tools.names(),
        context_files=[str(found.path) for found in discover_context_files(cwd)],
        mcp_tokens=mcp.tool_tokens() if mcp is not None else {},
    )
    for message in agent.messages:
        usage.messages[message.role] += 1
        usage.message_tokens[message.role] += estimate_message_tokens(message)
    return usage
