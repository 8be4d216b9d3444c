"""A user's prompt made ready for the agent (the system prompt is ``agent/prompt.py``'s): ``Runtime.run``'s first step.

In order: the files the prompt attaches or names (``agent/attachments.py``), the MCP resources it names as
``@server:uri`` (``mcp/resources.py``), the model recorded in the session, the repository index's note before a
session's first prompt (``agent/repo_index.py``), and the checkpoint before the run (``agent/checkpointing.py``).
What was attached, the note added, and what could not be, are said as notices.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from navtui.agent.attachments import attach_files
from navtui.core.events import ContextInjected, Notice
from navtui.core.messages import UserMessage

if TYPE_CHECKING:
    from navtui.agent.checkpointing import TurnCheckpoints
    from navtui.agent.loop import Agent
    from navtui.agent.resume import ModelChoice
    from navtui.agent.session_control import SessionControl
    from navtui.config.settings import Settings
    from navtui.mcp.manager import McpManager
    from navtui.providers.base import Provider
    from navtui.session.manager import SessionManager
    from navtui.tools.base import ToolContext


class Preparing(Protocol):
    """What preparing a prompt reads of the runtime (``agent/runtime.py``'s ``Runtime`` is one)."""

    @property
    def cwd(self) -> Path: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def agent(self) -> Agent: ...

    @property
    def ctx(self) -> ToolContext: ...

    @property
    def mcp(self) -> McpManager | None: ...

    @property
    def provider(self) -> Provider: ...

    @property
    def model_choice(self) -> ModelChoice: ...

    @property
    def thinking_level(self) -> str: ...

    @property
    def sessions(self) -> SessionControl: ...

    @property
    def session(self) -> SessionManager | None: ...

    @property
    def checkpoints(self) -> TurnCheckpoints | None: ...


class PreparedPrompt:
    """One prompt made ready: iterate :meth:`steps` for what they say; then :attr:`text` is what the agent gets."""

    def __init__(self, runtime: Preparing, prompt: str | None) -> None:
        self.runtime = runtime
        self.words = prompt  # what the user wrote: the index is asked about it, not about the files attached
        self.text = prompt  # the words with what they attach (None: the agent continues)

    async def steps(self) -> AsyncGenerator[Notice | ContextInjected, None]:
        if self.text is not None:
            async for notice in self._attach_files(self.text):
                yield notice
            mcp = self.runtime.mcp
            if mcp is not None:
                async for notice in self._attach_resources(self.text, mcp):
                    yield notice
        if self.text:  # a session is never named here: its title is its first prompt until /name
            self._record_model()
        if self.text and not any(isinstance(m, UserMessage) for m in self.runtime.agent.messages):
            injected = await self._note_first_prompt(self.text)
            if injected is not None:
                yield injected
        checkpoints, session = self.runtime.checkpoints, self.runtime.session
        if checkpoints is not None and session is not None:
            await checkpoints.record_before_run(session)

    async def _attach_files(self, text: str) -> AsyncGenerator[Notice, None]:
        """``@path`` files and the files the prompt names go with it (``agent/attachments.py``)."""
        runtime = self.runtime
        attached = await asyncio.to_thread(
            attach_files,
            text,
            runtime.cwd,
            window=runtime.agent.budget.window,
            named=runtime.settings.tools.auto_attach,
            seen=lambda path, data: runtime.ctx.file_state.record(path, data, whole=data is not None),
        )
        for notice in attached.notices():
            yield notice
        self.text = attached.text

    async def _attach_resources(self, text: str, mcp: McpManager) -> AsyncGenerator[Notice, None]:
        """``@server:uri``: an MCP server's resource goes with the prompt."""
        from navtui.mcp.resources import attach_resources

        resources = await attach_resources(text, mcp)
        for problem in resources.problems:
            yield Notice(text=problem, level="warning")
        if resources.attached:
            yield Notice(text=f"Attached {', '.join('@' + name for name in resources.attached)}.", level="info")
        self.text = resources.text

    def _record_model(self) -> None:
        runtime = self.runtime
        provider, choice = runtime.provider, runtime.model_choice
        runtime.sessions.record_model(
            (provider.name, provider.model),
            runtime.thinking_level,
            choice.recorded,
            base_url=getattr(provider, "base_url", None) or None,
            recorded_base_url=choice.recorded_base_url,
        )

    async def _note_first_prompt(self, text: str) -> ContextInjected | Notice | None:
        """Before a session's first prompt: the repository index's note (``agent/repo_index.py``)."""
        from navtui.agent.repo_index import note_first_prompt

        runtime = self.runtime
        return await note_first_prompt(
            runtime.agent, runtime.session, self.words or text, runtime.settings.index.inject
        )
