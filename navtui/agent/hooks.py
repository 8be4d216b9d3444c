"""Extension points of the agent loop.

Context management (pruning, compaction, handover), the unexpected-stop check and the advisor plug in here,
so the loop itself stays one readable page.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from navtui.core.messages import AssistantMessage, ToolCall, ToolResultMessage

if TYPE_CHECKING:
    from navtui.core.events import AgentEvent
    from navtui.providers.base import FileInPlay


class PromptedAgent(Protocol):
    """What the default hooks read of the agent that calls them (``loop.Agent``; hooks that need more name it)."""

    @property
    def system_prompt(self) -> str: ...


# The agent a hook set is called with: ``loop.Agent`` (the loop passes itself), so this module need not import it.
AgentT = TypeVar("AgentT", bound=PromptedAgent)


@dataclass
class Nudge:
    """A user-role message that makes the model continue, and the notice the user sees."""

    message: str
    notice: str


async def _nothing() -> AsyncGenerator[Any, None]:
    return
    yield  # pragma: no cover


class AgentHooks(Generic[AgentT]):
    """Default behaviour: no context management, no nudges, no intercepted tools."""

    def system_prompt(self, agent: AgentT) -> str:
        return agent.system_prompt

    def before_request(self, agent: AgentT) -> AsyncGenerator[AgentEvent, None]:
        return _nothing()

    def files_in_play(self, agent: AgentT) -> list[FileInPlay]:
        """The files the next request shows whole (for a provider that ``wants_files``)."""
        return []

    def start_run(self, agent: AgentT, prompt: str | None) -> None:
        """A run begins with ``prompt`` (None: it continues from the history)."""

    def verify(self, agent: AgentT, message: AssistantMessage) -> AsyncGenerator[AgentEvent | Nudge, None]:
        """After a final answer no nudge asked to go on: events while checking the work, then a Nudge if it failed."""
        return _nothing()

    async def after_final_answer(self, agent: AgentT, message: AssistantMessage) -> Nudge | None:
        return None

    async def intercept_tool(self, agent: AgentT, call: ToolCall) -> ToolResultMessage | None:
        return None

    def after_tool(self, agent: AgentT, call: ToolCall, result: ToolResultMessage) -> AsyncGenerator[AgentEvent, None]:
        return _nothing()

    async def retry_after_error(self, agent: AgentT, message: AssistantMessage) -> bool:
        """After a failed request: True makes the loop try again (e.g. after compacting an overflowing context)."""
        return False


class CompositeHooks(AgentHooks[AgentT]):
    """Several hook sets in order. The first one shapes the system prompt; nudges and intercepts: first wins."""

    def __init__(self, hooks: list[AgentHooks[AgentT]]) -> None:
        self.parts = hooks

    def system_prompt(self, agent: AgentT) -> str:
        return self.parts[0].system_prompt(agent) if self.parts else agent.system_prompt

    async def before_request(self, agent: AgentT) -> AsyncGenerator[AgentEvent, None]:
        for part in self.parts:
            async for event in part.before_request(agent):
                yield event

    def files_in_play(self, agent: AgentT) -> list[FileInPlay]:
        return [file for part in self.parts for file in part.files_in_play(agent)]

    def start_run(self, agent: AgentT, prompt: str | None) -> None:
        for part in self.parts:
            part.start_run(agent, prompt)

    async def verify(self, agent: AgentT, message: AssistantMessage) -> AsyncGenerator[AgentEvent | Nudge, None]:
        for part in self.parts:
            nudged = False
            async for item in part.verify(agent, message):
                nudged = nudged or isinstance(item, Nudge)
                yield item
            if nudged:
                return

    async def after_final_answer(self, agent: AgentT, message: AssistantMessage) -> Nudge | None:
        for part in self.parts:
            nudge = await part.after_final_answer(agent, message)
            if nudge is not None:
                return nudge
        return None

    async def intercept_tool(self, agent: AgentT, call: ToolCall) -> ToolResultMessage | None:
        for part in self.parts:
            result = await part.intercept_tool(agent, call)
            if result is not None:
                return result
        return None

    async def after_tool(
        self, agent: AgentT, call: ToolCall, result: ToolResultMessage
    ) -> AsyncGenerator[AgentEvent, None]:
        for part in self.parts:
            async for event in part.after_tool(agent, call, result):
                yield event

    async def retry_after_error(self, agent: AgentT, message: AssistantMessage) -> bool:
        for part in self.parts:
            if await part.retry_after_error(agent, message):
                return True
        return False

    def find(self, kind: type) -> Any:
        return next((part for part in self.parts if isinstance(part, kind)), None)
