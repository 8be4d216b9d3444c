"""Context management for the agent loop: the budget guard, pruning, compaction, handover, unexpected stops.

``ContextHooks`` plugs into the loop (see ``hooks.py``). Before every model request it makes sure the request
fits the window: old tool outputs are pruned first, then the context is handed over (handover enabled) or
compacted; as a last resort big texts are trimmed. ``compact_now`` and ``request_handover``
(``context_requests.py``) serve ``/compact`` and ``/handover``. Numbers and formats: docs/context.md.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from navtui.agent.budget import ContextLimits, estimate_message_tokens, estimate_text_tokens
from navtui.agent.compaction import SummaryBudget, is_overflow, plan_compaction, summary_message, write_summary
from navtui.agent.handover import ACCEPTED, HandoverNotes, HandoverTool, mode_prompt, notes_from_call, write_notes
from navtui.agent.hooks import AgentHooks, Nudge
from navtui.agent.pruning import Pruned, prune_tool_outputs, trim_to_fit, unseen_from
from navtui.agent.unexpected_stop import StopWatch
from navtui.agent.window import check_fixed_fits
from navtui.core.context_messages import ContextMessages, messages_tokens
from navtui.core.errors import NavtuiError
from navtui.core.events import (
    AgentEvent,
    CompactionFinished,
    CompactionReason,
    CompactionStarted,
    ContextPruned,
    Handover,
    Notice,
    UserMessageEvent,
)
from navtui.core.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from navtui.session.tree import Branch

if TYPE_CHECKING:
    from navtui.agent.loop import Agent

T = TypeVar("T")
DEFAULT_WINDOW = 32768  # for /compact before the provider told us its window
# Of the compaction threshold: from here on the server's tokenizer counts, where it can. bytes/4 can be far off
# (a 300-line file of numbers: ~2,600 estimated, 6,600 real tokens with Qwen's one token per digit).
TIGHT = 0.5
TEMPLATE_TOKENS = 6  # a chat template's role markers around each message
PARSE_ERROR_KEY = "__parse_error__"


class ContextHooks(AgentHooks):
    """One session's context manager; ``runtime`` supplies ``settings``, ``session``, ``tools``, ``handover_count``."""

    def __init__(self, runtime: Any, *, handover_notes: str | None = None) -> None:
        self.runtime = runtime
        self.notes = handover_notes
        self.stopwatch = StopWatch(runtime.settings.compaction.unexpected_stop)
        self._pending_handover: HandoverNotes | None = None
        self._scheduled: list[tuple[str, str | None]] = []
        self._overflow = False  # a recovery compaction is due before the next request
        self._overflow_tried = False  # one retry per overflow: reset by a successful turn or a new prompt
        self._retry_anchor: Any = None
        self._copies: dict[int, tuple[Any, Any]] = {}  # id(copy) -> (copy, the message the session holds)
        self._futile = False  # the last compaction did not shrink the context: no automatic retry
        self._counted_at = -1  # messages in the context when the server last counted its tokens
        tools = getattr(runtime, "tools", None)
        if tools is not None:
            if self.tool_enabled:
                tools.add(HandoverTool())
            else:
                tools.remove(HandoverTool.name)
        session = getattr(runtime, "session", None)
        if session is not None:  # the handovers on the current path (after a resume, /clear or /new too)
            path = session.get_branch()
            # A session's Branch parses only the entries of the type asked for: a 20,000-entry resume spent
            # 0.8-1.4 s here parsing every entry to count none (docs/speed.md, "a long resume").
            entries = path.newest_first(_HANDOVER_TYPES) if isinstance(path, Branch) else path
            runtime.handover_count = sum(_is_handover(e) for e in entries)

    # ------------------------------------------------------------------ settings
    @property
    def settings(self) -> Any:
        return self.runtime.settings

    @property
    def tool_enabled(self) -> bool:
        return bool(self.settings.handover.enabled)

    @property
    def auto_handover(self) -> bool:
        return self.tool_enabled or self.settings.compaction.strategy == "handover"

    def limits(self, agent: Agent, default: int | None = None) -> ContextLimits | None:
        window = agent.budget.window or default
        if not window:
            return None
        compaction = self.settings.compaction
        return ContextLimits.for_window(
            window, reserve_tokens=compaction.reserve_tokens, keep_recent_tokens=compaction.keep_recent_tokens
        )

    # ------------------------------------------------------------------ hooks
    def system_prompt(self, agent: Agent) -> str:
        from navtui.agent.prompt import with_handover_notes

        base = agent.system_prompt
        if self.tool_enabled:
            base = f"{base}\n\n{mode_prompt()}"
        return with_handover_notes(base, self.notes)

    async def before_request(self, agent: Agent) -> AsyncGenerator[AgentEvent, None]:
        last = agent.messages[-1] if agent.messages else None
        if isinstance(last, UserMessage) and last is not self._retry_anchor:
            self._overflow_tried = False  # a new prompt: it may be rescued from an overflow once again
            self._futile = False
        if self._pending_handover is not None:
            notes, self._pending_handover = self._pending_handover, None
            async for event in self._apply_handover(agent, notes, automatic=False):
                yield event
        while self._scheduled:
            kind, instructions = self._scheduled.pop(0)
            if kind == "compact":
                actions = self.compact(agent, reason="manual", instructions=instructions)
            else:
                actions = self.hand_over_on_request(agent, instructions=instructions)
            async for event in actions:
                yield event
        if self._overflow:
            self._overflow = False
            async for event in self.compact(agent, reason="overflow"):
                yield event
            if self._futile:  # sending the same context again would only overflow again
                raise NavtuiError(
                    "The conversation no longer fits the model's window and compaction could not shrink it",
                    hint="start afresh with /new, or give the model a larger window",
                )
        limits = self.limits(agent)
        if limits is None or _interrupted(agent):
            return
        await self._count_when_tight(agent, limits)
        check_fixed_fits(self._fixed_tokens(agent), limits.window, limits.hard_limit)
        async for event in self._maintain(agent, limits):
            yield event
        if _interrupted(agent):
            return  # the request will not be sent: nothing to make fit
        async for event in self._guard(agent, limits):
            yield event

    async def after_final_answer(self, agent: Agent, message: AssistantMessage) -> Nudge | None:
        self._overflow_tried = False
        classifier, owned = self._classifier(agent)
        try:
            return await self.stopwatch.check(message, classifier)
        finally:
            if owned and classifier is not None:
                await classifier.aclose()

    async def intercept_tool(self, agent: Agent, call: ToolCall) -> ToolResultMessage | None:
        if call.name != HandoverTool.name or not self.tool_enabled or PARSE_ERROR_KEY in call.arguments:
            return None
        notes = notes_from_call(call)
        if isinstance(notes, str):
            return ToolResultMessage.of(call, notes, is_error=True)
        self._pending_handover = notes  # applied before the next request, once every call of the turn has run
        return ToolResultMessage.of(call, ACCEPTED)

    async def after_tool(
        self, agent: Agent, call: ToolCall, result: ToolResultMessage
    ) -> AsyncGenerator[AgentEvent, None]:
        self.stopwatch.reset()  # progress
        self._overflow_tried = False
        return
        yield  # pragma: no cover

    async def retry_after_error(self, agent: Agent, message: AssistantMessage) -> bool:
        error = getattr(agent, "last_error", None)
        if not is_overflow(message.error_message, getattr(error, "kind", None)):
            return False
        if self._overflow_tried or self._futile or self.settings.compaction.strategy == "off":
            return False
        self._overflow_tried = True
        if message in agent.messages:  # the failed answer (and results the loop added for it) leave the context
            del agent.messages[agent.messages.index(message) :]
        self._retry_anchor = agent.messages[-1] if agent.messages else None
        budget = agent.budget
        estimate = int(budget.ratio * budget.raw_estimate(agent, agent.messages))
        if budget.window and 0 < estimate < budget.window:
            # The server counted more than we did: learn from it, or the retry overflows again.
            budget.ratio = min(budget.ratio * budget.window * 1.1 / estimate, 3.0)
        budget.reset()
        self._overflow = True
        return True

    # ------------------------------------------------------------------ scheduling (while a run is going)
    def schedule(self, kind: str, instructions: str | None = None) -> None:
        """Run ``compact`` or ``handover`` before the next model request of the running turn."""
        self._scheduled.append((kind, instructions))

    # ------------------------------------------------------------------ budget maintenance
    async def _count_when_tight(self, agent: Agent, limits: ContextLimits) -> None:
        """Near the limit, bytes/4 is too rough: ask the server's tokenizer (llama.cpp /tokenize) when it has one."""
        if agent.budget.estimate(agent) < limits.threshold * TIGHT or self._counted_at == len(agent.messages):
            return
        self._counted_at = len(agent.messages)
        if not agent.provider.counts_tokens:
            return  # (no tokenizer to ask: the text, every message read, would count nothing)
        text = self.system_prompt(agent) + _tools_json(agent) + "".join(map(_message_text, agent.messages))
        tokens = await agent.provider.count_tokens(text)
        if tokens:
            agent.budget.calibrate(tokens + TEMPLATE_TOKENS * len(agent.messages), agent)

    async def _maintain(self, agent: Agent, limits: ContextLimits) -> AsyncGenerator[AgentEvent, None]:
        window = limits.window
        trigger = limits.threshold
        if self.auto_handover:
            trigger = min(int(window * self.settings.handover.threshold), limits.hard_limit)
        if agent.budget.estimate(agent) <= trigger:
            return
        pruned = self._replace(
            agent,
            prune_tool_outputs(
                agent.messages, protect_tokens=limits.prune_protect, min_savings=limits.prune_min_savings
            ),
        )
        if pruned.results:
            yield ContextPruned(results=pruned.results, tokens_saved=int(pruned.tokens_saved * agent.budget.ratio))
        estimate = agent.budget.estimate(agent)
        if estimate <= trigger:
            return
        if self._fixed_tokens(agent) + window // 10 > trigger:
            return  # the system prompt and tools fill the window: summaries would only loop (the guard warns)
        fresh = agent.messages[unseen_from(agent.messages) :]
        if estimate - int(agent.budget.ratio * sum(estimate_message_tokens(m) for m in fresh)) <= trigger:
            return  # only results the model has not seen overflow: a summary of the rest frees nothing (the guard cuts)
        handed_over = False
        if self.auto_handover and _has_progress(agent.messages):
            async for event in self.hand_over_on_request(agent, automatic=True):
                handed_over = handed_over or isinstance(event, Handover)
                yield event
        compacting = not handed_over and not self._futile and self.settings.compaction.strategy != "off"
        if compacting and agent.budget.estimate(agent) > limits.threshold:
            async for event in self.compact(agent, reason="threshold"):
                yield event

    async def _guard(self, agent: Agent, limits: ContextLimits) -> AsyncGenerator[AgentEvent, None]:
        """The last line: nothing bigger than ``hard_limit`` is sent, whatever failed before.

        Tool outputs the model has seen are blanked first, then the biggest texts are cut (a result it has not
        seen yet is cut to what fits, never blanked); a request that still does not fit is not sent: the run stops
        with an error (a server refuses it anyway, or silently drops the start of the conversation).
        """
        excess = agent.budget.estimate(agent) - limits.hard_limit
        if excess <= 0:
            return
        pruned = self._replace(agent, prune_tool_outputs(agent.messages, protect_tokens=0, min_savings=0))
        if pruned.results:
            yield ContextPruned(results=pruned.results, tokens_saved=int(pruned.tokens_saved * agent.budget.ratio))
        excess = agent.budget.estimate(agent) - limits.hard_limit
        if excess > 0:
            trimmed = self._replace(agent, trim_to_fit(agent.messages, int(excess / agent.budget.ratio) + 1))
            if trimmed.results:
                _partly_seen(agent, trimmed)
                yield Notice(
                    text=f"Trimmed {trimmed.results} long messages to fit the context window.", level="warning"
                )
        estimate = agent.budget.estimate(agent)
        if estimate > limits.hard_limit:
            raise NavtuiError(
                f"The next request (~{estimate} tokens) does not fit the model's window of {limits.window} tokens, "
                f"even with old tool outputs pruned and long messages trimmed (the system prompt and tools take "
                f"~{self._fixed_tokens(agent)})",
                hint="start afresh with /new, or give the model a larger window (llama.cpp -c, providers.num_ctx_cap)",
            )

    def _fixed_tokens(self, agent: Agent) -> int:
        """The system prompt and tool specs: what no pruning or summary can shrink."""
        return int(agent.budget.ratio * estimate_text_tokens(self.system_prompt(agent) + _tools_json(agent)))

    def _replace(self, agent: Agent, result: Pruned) -> Pruned:
        if result.replaced:
            for original, copy in result.replaced:
                root = self._copies.get(id(original), (original, original))[1]
                self._copies[id(copy)] = (copy, root)
            agent.messages[:] = result.messages
            agent.budget.reset()
        return result

    # ------------------------------------------------------------------ compaction
    async def compact(
        self, agent: Agent, *, reason: CompactionReason = "manual", instructions: str | None = None
    ) -> AsyncGenerator[AgentEvent, None]:
        """Summarize the older part of the context; the session gets a ``compaction`` entry."""
        limits = self.limits(agent, DEFAULT_WINDOW)
        assert limits is not None
        budget = agent.budget
        tokens_before = budget.estimate(agent)
        fixed = self._fixed_tokens(agent)
        keep = min(limits.keep_recent, max(int(limits.threshold - fixed - limits.summary_tokens) // 2, 0))
        if reason == "manual":
            keep = min(keep, int(budget.ratio * messages_tokens(agent.messages)) // 3)
        ids = self._entry_ids()
        messages = agent.messages
        can_keep = None if ids is None else (lambda index: self._entry_id(messages, index, ids) is not None)
        plan = plan_compaction(messages, int(keep / budget.ratio), can_keep=can_keep)
        if plan is None:
            yield Notice(text="Nothing to compact yet: the context holds only the latest turn.", level="info")
            return
        yield CompactionStarted(reason=reason, tokens_before=tokens_before)
        try:
            summary, files = await _abortable(
                agent,
                write_summary(
                    agent.provider, agent.messages, plan, SummaryBudget(limits, budget.ratio), instructions=instructions
                ),
            )
        except NavtuiError as exc:
            label = {"overflow": "Context overflow recovery", "threshold": "Auto-compaction"}.get(reason, "Compaction")
            yield Notice(text=f"{label} failed: {exc}", level="error")
            return
        kept = agent.messages[plan.cut :]
        after = [summary_message(summary), *kept]
        tokens_after = fixed + int(budget.ratio * sum(estimate_message_tokens(m) for m in after))
        if tokens_after >= tokens_before:
            # A summary as long as what it replaces: applying it (or trying again) only burns requests.
            self._futile = True
            yield Notice(
                text=f"Compaction did not make the context smaller (~{tokens_before} -> ~{tokens_after} tokens); "
                "kept the context as it was.",
                level="warning",
            )
            return
        session = self.runtime.session
        if session is not None:
            first_kept = self._entry_id(messages, plan.cut, ids or {}) if kept else None
            try:
                session.append_compaction(summary, first_kept, tokens_before, {**files.details(), "reason": reason})
            except NavtuiError as exc:
                yield Notice(text=f"The compaction could not be saved: {exc}", level="warning")
        agent.messages[:] = after
        budget.reset()
        yield CompactionFinished(summary=summary, tokens_before=tokens_before, tokens_after=budget.estimate(agent))

    def _entry_ids(self) -> dict[int, str] | None:
        """id(message) -> session entry id for the messages on the session's current path that are held (the
        agent's): the session gives them without reading a line. (A message not held cannot be the agent's.)"""
        from navtui.session.tree import Branch

        session = self.runtime.session
        if session is None:
            return None
        branch = session.get_branch()
        if isinstance(branch, Branch):
            return {id(message): entry_id for entry_id, message in branch.held_messages()}
        ids: dict[int, str] = {}
        for entry in branch:
            message = getattr(entry, "message", None)
            if message is not None and entry.id:
                ids[id(message)] = entry.id
        return ids

    def _entry_id(self, messages: Sequence[Any], index: int, ids: dict[int, str]) -> str | None:
        """The session entry ``messages[index]`` is (its own message, or a pruned copy of it), if any."""
        lazy = messages.lazy_at(index) if isinstance(messages, ContextMessages) else None
        if lazy is not None:  # not read yet: the context noted whose own message it is
            return lazy.entry_id
        message = messages[index]
        copy = self._copies.get(id(message))
        if copy is not None and copy[0] is message:
            message = copy[1]
        return ids.get(id(message))

    # ------------------------------------------------------------------ handover
    async def hand_over_on_request(
        self, agent: Agent, *, instructions: str | None = None, automatic: bool = False
    ) -> AsyncGenerator[AgentEvent, None]:
        """The model writes its notes (the summarizer does if it cannot), then the context restarts from them."""
        if not _has_progress(agent.messages):
            yield Notice(text="Nothing to hand over yet.", level="info")
            return
        history, pending = _split_pending(agent.messages)
        limits = self.limits(agent, DEFAULT_WINDOW)
        assert limits is not None
        try:
            notes, warning = await _abortable(
                agent,
                write_notes(agent, history, system=self.system_prompt(agent), limits=limits, instructions=instructions),
            )
        except NavtuiError as exc:
            yield Notice(text=f"Handover failed: {exc}", level="error")
            return
        if warning:
            yield Notice(text=warning, level="warning")
        text = "\n\n".join(m.text for m in pending) if pending else None
        async for event in self._apply_handover(
            agent, notes, automatic=automatic, instructions=instructions, pending=text
        ):
            yield event

    async def _apply_handover(
        self,
        agent: Agent,
        notes: HandoverNotes,
        *,
        automatic: bool,
        instructions: str | None = None,
        pending: str | None = None,
    ) -> AsyncGenerator[AgentEvent, None]:
        runtime = self.runtime
        runtime.handover_count = getattr(runtime, "handover_count", 0) + 1
        count = runtime.handover_count
        if runtime.session is not None:
            try:
                runtime.session.append_custom_message(
                    "handover", notes.text, details=notes.details(count=count, automatic=automatic)
                )
            except NavtuiError as exc:
                yield Notice(text=f"The handover could not be saved: {exc}", level="warning")
        self.notes = notes.text
        agent.messages.clear()
        self._copies.clear()
        agent.budget.reset()
        self.stopwatch.reset()
        message = UserMessage(content=notes.continue_message(instructions=instructions, pending=pending))
        agent.add_message(message)
        self._retry_anchor = message
        yield Handover(notes=notes.text, count=count, automatic=automatic)
        yield UserMessageEvent(text=message.text, kind="context")

    def _classifier(self, agent: Agent) -> tuple[Any, bool]:
        """The provider that judges unexpected stops: ``model_roles.classifier`` if set, else the agent's own."""
        if self.stopwatch.mode != "model":
            return None, False
        role = self.settings.model_roles.get("classifier")
        build = getattr(self.runtime, "_build_provider", None)
        if role and build is not None:
            try:
                return build(role, None, None), True
            except NavtuiError:
                pass
        return agent.provider, False


# ---------------------------------------------------------------- helpers
def _partly_seen(agent: Agent, trimmed: Pruned) -> None:
    """A ``read`` result cut to fit: the model has not seen that file whole (``write`` must not replace it)."""
    from pathlib import Path

    state = getattr(getattr(agent, "ctx", None), "file_state", None)
    for _original, copy in trimmed.replaced:
        path = (getattr(copy, "details", None) or {}).get("path")
        if state is not None and isinstance(copy, ToolResultMessage) and copy.tool_name == "read" and path:
            state.mark_partial(Path(path))


def _interrupted(agent: Agent) -> bool:
    event = getattr(agent, "_abort", None)
    return bool(agent.running and event is not None and event.is_set())


async def _abortable(agent: Agent, work: Coroutine[Any, Any, T]) -> T:
    """Await ``work`` unless the user interrupts the running agent first (Esc): then ``NavtuiError``."""
    event = getattr(agent, "_abort", None)  # set by Agent.abort(); the loop only looks at it between steps
    if event is None or not agent.running:
        return await work
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    if task.cancelled():
        raise NavtuiError("interrupted by the user")
    return task.result()


def _has_progress(messages: Sequence[Any]) -> bool:
    return any(isinstance(m, AssistantMessage) for m in messages)


def _split_pending(messages: Sequence[Any]) -> tuple[list[Any], list[UserMessage]]:
    """The history, and the user messages after the last answer (a prompt the notes should not swallow)."""
    index = len(messages)
    while index > 0 and isinstance(messages[index - 1], UserMessage):
        index -= 1
    if index == 0:
        return list(messages), []
    return list(messages[:index]), list(messages[index:])


def _message_text(message: Any) -> str:
    import json

    calls = getattr(message, "tool_calls", None) or []
    return message.text + "".join(json.dumps(call.arguments, ensure_ascii=False) for call in calls)


def _tools_json(agent: Agent) -> str:
    import json

    return json.dumps([t.model_dump() for t in agent.tools.specs()])


_HANDOVER_TYPES = frozenset({"custom_message"})


def _is_handover(entry: Any) -> bool:
    return getattr(entry, "type", None) == "custom_message" and getattr(entry, "custom_type", None) == "handover"
