"""Checkpoints around a run: the workspace before it (when it changed by hand), and after each turn with tools.

The runtime calls ``record_before_run`` (the walk of the workspace before the run; while the first walk of a large
repository is still going, the run does not wait for it), passes every ``TurnFinished`` through ``after_turn`` (a checkpoint entry in the
session when the workspace changed; the event gets its id) and calls ``after_run``. As an ``AgentHooks``,
it holds every tool call until the walk before the run is done: a tool never changes a file that walk has not
seen yet. What cannot be kept (a large file, a huge directory) comes back as notices, each said once.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.agent.hooks import AgentHooks
from navtui.checkpoints.service import Checkpointer
from navtui.config.settings import CheckpointSettings
from navtui.core.errors import NavtuiError
from navtui.core.events import Notice, TurnFinished
from navtui.session.manager import SessionManager

if TYPE_CHECKING:
    from collections.abc import Sequence

    from navtui.agent.loop import Agent
    from navtui.core.messages import ToolCall, ToolResultMessage
    from navtui.session.entries import Entry

PRUNE_EVERY = 24 * 3600.0


class TurnCheckpoints(AgentHooks):
    def __init__(self, cwd: Path, settings: CheckpointSettings) -> None:
        self.checkpointer = Checkpointer(cwd, max_file_bytes=settings.max_file_kb * 1024, max_files=settings.max_files)
        self._warm: threading.Thread | None = None
        self._base: asyncio.Task[None] | None = None

    def warm_up(self) -> None:
        """A first walk in the background, so the first prompt does not wait for it; a prune once a day."""
        self._warm = threading.Thread(target=self._warm_up, name="navtui-checkpoints", daemon=True)
        self._warm.start()

    @property
    def warming(self) -> bool:
        """The first walk of this process is still going: a run then starts without waiting for its own walk, and
        the checkpoint of the code before the prompt is recorded after the prompt."""
        return self._warm is not None and self._warm.is_alive()

    def _warm_up(self) -> None:
        try:
            self.checkpointer.prune(every_seconds=PRUNE_EVERY)
        except NavtuiError as exc:
            self.checkpointer.notices.append(exc.message)

    # ------------------------------------------------------------------ a run
    async def record_before_run(self, session: SessionManager) -> None:
        """The walk before the run: awaited (its entry then comes before the prompt, where the tree looks for
        the code "before" it), unless the first walk of this process is still going (a large repository):
        then the run starts at once, only tool calls wait, and the entry, recorded after the prompt, names the
        point it was taken for (the tree finds it there: ``checkpoints.history.code_at``)."""
        late = self.warming
        task = asyncio.create_task(self._record_base(session, session.get_branch(), late=late))
        if late:
            self._base = task
        else:
            await task

    async def _record_base(self, session: SessionManager, path: Sequence[Entry], *, late: bool) -> None:
        try:
            checkpoint = await asyncio.to_thread(self.checkpointer.base_checkpoint, path, late=late)
            self.checkpointer.record(session, checkpoint)  # the session is only written from its own thread
        except NavtuiError as exc:  # the session cannot be written: the run says so elsewhere
            self.checkpointer.notices.append(exc.message)

    async def _base_done(self) -> None:
        if self._base is not None:
            await asyncio.shield(self._base)  # an aborted tool call must not cancel the walk under it

    async def intercept_tool(self, agent: Agent, call: ToolCall) -> ToolResultMessage | None:
        await self._base_done()
        return None

    async def after_turn(self, session: SessionManager, event: TurnFinished) -> tuple[TurnFinished, list[Notice]]:
        """Tools ran in this turn: a checkpoint when they (or anything else) changed the workspace."""
        if not event.message.tool_calls:
            return event, []
        await self._base_done()
        checkpoint = await asyncio.to_thread(self.checkpointer.turn_checkpoint, session.get_branch())
        entry_id = self.checkpointer.record(session, checkpoint)
        if entry_id is not None:
            event = event.model_copy(update={"checkpoint": entry_id})
        return event, self._notices()

    async def after_run(self) -> list[Notice]:
        await self._base_done()
        self._base = None
        return self._notices()

    def _notices(self) -> list[Notice]:
        return [Notice(text=text, level="warning") for text in self.checkpointer.take_notices()]

    def close(self) -> None:
        if self.warming:
            return  # a first walk of a large tree still running: it ends with the process (SQLite stays whole)
        self.checkpointer.close()
