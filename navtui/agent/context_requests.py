"""What ``/compact`` and ``/handover`` call: run the action now, or schedule it when a run is going."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Protocol

from navtui.core.errors import NavtuiError
from navtui.core.events import AgentEvent, Handover, Notice

if TYPE_CHECKING:
    from navtui.agent.context_manager import ContextHooks
    from navtui.agent.loop import Agent
    from navtui.session.manager import SessionManager


class RuntimeView(Protocol):
    """What these requests use of the runtime (``agent/runtime.py``'s ``Runtime`` is one)."""

    @property
    def agent(self) -> Agent: ...

    @property
    def session(self) -> SessionManager | None: ...

    async def check_provider(self) -> object: ...

    def run(self, prompt: str | None) -> AsyncGenerator[AgentEvent, None]: ...


def context_hooks(runtime: RuntimeView) -> ContextHooks:
    """The runtime's ``ContextHooks`` (alone, or inside the advisor's ``CompositeHooks``)."""
    from navtui.agent.context_manager import ContextHooks
    from navtui.agent.hooks import CompositeHooks

    hooks = runtime.agent.hooks
    if isinstance(hooks, ContextHooks):
        return hooks
    found = hooks.find(ContextHooks) if isinstance(hooks, CompositeHooks) else None
    if not isinstance(found, ContextHooks):
        raise NavtuiError("Context management is not active in this session")
    return found


async def compact_now(runtime: RuntimeView, instructions: str | None = None) -> AsyncGenerator[AgentEvent, None]:
    """``/compact [instructions]``: compact now (or before the next request when a run is going)."""
    hooks = context_hooks(runtime)
    if runtime.agent.running:
        hooks.schedule("compact", instructions)
        yield Notice(text="Compaction will run before the next model request.")
        return
    await _learn_window(runtime)
    async for event in hooks.compact(runtime.agent, reason="manual", instructions=instructions):
        yield event
    _sync(runtime)


async def request_handover(
    runtime: RuntimeView, instructions: str | None = None, *, continue_task: bool = True
) -> AsyncGenerator[AgentEvent, None]:
    """``/handover [instructions]``: the model writes notes, the context restarts, and (by default) work goes on."""
    hooks = context_hooks(runtime)
    if runtime.agent.running:
        hooks.schedule("handover", instructions)
        yield Notice(text="Handover will happen before the next model request.")
        return
    await _learn_window(runtime)
    handed_over = False
    async for event in hooks.hand_over_on_request(runtime.agent, instructions=instructions):
        handed_over = handed_over or isinstance(event, Handover)
        yield event
    _sync(runtime)
    if handed_over and continue_task:
        async for event in runtime.run(None):
            yield event


async def _learn_window(runtime: RuntimeView) -> None:
    if runtime.agent.budget.window is None:
        await runtime.check_provider()


def _sync(runtime: RuntimeView) -> None:
    session = runtime.session
    if session is not None:
        try:
            session.sync()
        except NavtuiError:
            pass  # the session reports unsaved entries itself
