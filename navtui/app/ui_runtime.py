"""The runtime as the UI sees it: what screens and slash commands may use of ``navtui.agent.runtime.Runtime``.

A ``Protocol``, so the scripted runtime of the snapshot tests satisfies it too, and so the type checker tells
when a screen reaches for something the runtime does not promise. Nothing here is imported at run time:
the names below are for annotations only (the first frame imports no runtime module).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from navtui.agent.advisor import Advisor
    from navtui.agent.checkpointing import TurnCheckpoints
    from navtui.agent.loop import Agent
    from navtui.agent.model_control import ProviderStatus
    from navtui.agent.status import ContextUsage, StatusInfo
    from navtui.config.launch import LaunchOptions
    from navtui.config.settings import Settings
    from navtui.core.events import AgentEvent, Notice
    from navtui.mcp.manager import McpManager
    from navtui.providers.base import ListedModel, ModelInfo, PullProgress
    from navtui.session.entries import Entry
    from navtui.session.manager import SessionManager
    from navtui.tools.approval import ApprovalMode, ApprovalPolicy
    from navtui.tools.base import ToolContext, ToolRegistry


class ProviderView(Protocol):
    """The provider's identity, as the status line and pickers show it."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def base_url(self) -> str | None: ...


class UiRuntime(Protocol):
    cwd: Path
    options: LaunchOptions
    settings: Settings
    warnings: list[str]
    background_listener: Callable[[AgentEvent], None] | None
    mcp: McpManager | None  # None when no MCP server is configured
    checkpoints: TurnCheckpoints | None  # None without a session file or with checkpoints.enabled off

    @property
    def session(self) -> SessionManager | None: ...

    @property
    def advisor(self) -> Advisor | None: ...

    @property
    def model_info(self) -> ModelInfo | None: ...

    @property
    def provider(self) -> ProviderView: ...

    @property
    def tools(self) -> ToolRegistry: ...

    @property
    def policy(self) -> ApprovalPolicy: ...

    @property
    def agent(self) -> Agent: ...

    @property
    def ctx(self) -> ToolContext:
        """What the tools run in (its ``sandbox`` is the session's policy)."""
        ...

    @property
    def running(self) -> bool: ...

    @property
    def advisor_on(self) -> bool: ...

    @property
    def thinking_level(self) -> str: ...

    def set_thinking_level(self, level: str) -> None: ...

    # running the agent
    def run(self, prompt: str | None) -> AsyncIterator[AgentEvent]: ...

    def abort(self) -> None: ...

    def compact(self, instructions: str | None = None) -> AsyncIterator[AgentEvent]: ...

    def hand_over(self, instructions: str | None = None) -> AsyncIterator[AgentEvent]: ...

    # the provider
    async def check_provider(self) -> ProviderStatus: ...

    async def list_models(self) -> list[str]: ...

    async def describe_models(self) -> list[ListedModel]: ...

    def pull_model(self, name: str) -> AsyncIterator[PullProgress]: ...

    async def switch_model(self, model: str, provider: str | None = None) -> None: ...

    # the session
    def new_session(self) -> None: ...

    def clear(self) -> None: ...

    def reload_from_session(self) -> None: ...

    def switch_session(self, session: SessionManager) -> None: ...

    async def adopt_session_model(self) -> Notice | None: ...

    async def summarize_branch(self, entries: list[Entry], *, instructions: str | None = None) -> str: ...

    def set_session_name(self, name: str) -> None: ...

    def path_entries(self) -> Sequence[Entry]: ...

    # the advisor
    def start_advisor(self, model: str | None = None, *, seed: bool = True) -> Advisor: ...

    async def stop_advisor(self) -> None: ...

    # reporting
    def set_approval(self, mode: ApprovalMode) -> None: ...

    def set_sandbox(self, mode: str) -> str: ...

    def last_answer(self) -> str: ...

    def status(self, *, with_git: bool = True) -> StatusInfo: ...

    def context_usage(self) -> ContextUsage: ...

    async def aclose(self) -> None: ...
