"""The advisor as a session switches it on and off: which one runs, where its events go, and what it hears.

``AdvisorControl`` starts and stops the ``Advisor`` (``agent/advisor.py``), tells it what the primary did (each
finished turn, a history rewritten by compaction or a handover) and routes what it says: into the primary's event
stream while the primary runs, to ``background_listener`` (the UI) while it is idle.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from navtui.agent.hooks import AgentHooks
from navtui.core.errors import NavtuiError
from navtui.core.events import AdvisorNote, CompactionFinished, Handover, TurnFinished
from navtui.core.messages import UserMessage

if TYPE_CHECKING:
    from navtui.agent.advisor import Advisor
    from navtui.agent.loop import Agent
    from navtui.config.settings import Settings
    from navtui.core.events import AgentEvent
    from navtui.providers.base import Provider


class AdvisorControl:
    def __init__(
        self,
        settings: Settings,
        cwd: Path,
        *,
        build_provider: Callable[[str], Provider],
        steer: Callable[[str], None],
        primary_running: Callable[[], bool],
    ) -> None:
        """``build_provider(model)``: a provider for the advisor's model; ``steer(text)``: into the primary agent
        (always the current one); ``primary_running()``: whether the primary is working now."""
        self.settings = settings
        self.cwd = cwd
        self._build_provider = build_provider
        self._steer = steer
        self._primary_running = primary_running
        self.advisor: Advisor | None = None
        self._events: list[AgentEvent] = []
        # Called with advisor events that arrive while the agent is idle (the UI wakes the agent on a concern).
        self.background_listener: Callable[[AgentEvent], None] | None = None

    @property
    def on(self) -> bool:
        return self.advisor is not None

    def start(self, model: str | None, primary_messages: Sequence[Any] | None) -> Advisor:
        """Start the advisor on ``model`` (else the 'advisor' role's); ``primary_messages``: seed it from there
        (review from now on), ``None`` to review the whole history."""
        from navtui.agent.advisor import Advisor
        from navtui.config.paths import navtui_home
        from navtui.tools.registry import default_tools, make_context

        model = model or self.settings.model_roles.get("advisor")
        if not model:
            raise NavtuiError(
                "Advisor setting enabled, but no model is assigned to the 'advisor' role.",
                hint="use /advisor on MODEL, --advisor MODEL, or set model_roles.advisor in settings",
            )
        if self.advisor is not None:
            self.advisor.reset()
        self.advisor = Advisor(
            self._build_provider(model),
            cwd=self.cwd,
            tools=default_tools(self.settings),
            ctx=make_context(self.cwd, self.settings, navtui_home() / "artifacts"),
            steer=self._steer,
            emit=self._emit,
        )
        if primary_messages is not None:
            self.advisor.seed(primary_messages)
        return self.advisor

    async def stop(self) -> None:
        if self.advisor is not None:
            advisor, self.advisor = self.advisor, None
            await advisor.aclose()

    def reset(self) -> None:
        """The primary's history was replaced: the advisor starts over."""
        if self.advisor is not None:
            self.advisor.reset()

    async def observe(self, event: AgentEvent, primary_messages: Sequence[Any]) -> None:
        """What the primary just did, as the advisor needs to know it (a turn's end may wait for it to catch up)."""
        advisor = self.advisor
        if advisor is None:
            return
        match event:
            case CompactionFinished() | Handover():  # the history it reviewed is gone
                advisor.reset()
            case TurnFinished():
                advisor.on_turn_end(primary_messages)
                sync = self.settings.advisor.sync_backlog
                if sync != "off":
                    await advisor.wait_for_catch_up(int(sync))

    def take_events(self) -> list[AgentEvent]:
        """What the advisor said while the primary ran, in order (said by the primary's event stream)."""
        events, self._events = self._events, []
        return events

    def _emit(self, event: AgentEvent) -> None:
        if self._primary_running() or self.background_listener is None:
            self._events.append(event)
        else:
            self.background_listener(event)


class AdvisorHooks(AgentHooks):
    """At each step boundary of the primary: deliver batched nit notes as one advisor message.

    Here, not in ``advisor.py``: every session has these hooks, and the advisor's module (its pydantic tool
    arguments, the watchdog's rules) loads only when an advisor starts."""

    def __init__(self, get_advisor: Callable[[], Advisor | None]) -> None:
        self._get_advisor = get_advisor

    async def before_request(self, agent: Agent) -> AsyncGenerator[AgentEvent, None]:
        advisor = self._get_advisor()
        if advisor is None:
            return
        nits = advisor.take_nits()
        if not nits:
            return
        from navtui.agent.advisor import format_advice

        agent.add_message(UserMessage(content=format_advice(nits)))
        for advice in nits:
            yield AdvisorNote(note=advice.note, severity=advice.severity)
