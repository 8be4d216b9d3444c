"""The advisor: a second model that reviews each primary turn and steers it (omp 16 advisor + WATCHDOG.md).

It has its own agent, context, usage and read-only tools (``read``, ``grep``, ``find``) with a file-state of
its own, plus ``advise(note, severity)``. ``nit`` notes wait for the next step boundary and join the primary's
context as one batch; ``concern`` and ``blocker`` steer the primary at once (remaining tools are skipped).
Failures never stall the primary: a failed update is retried after a second, and after three failures in a
row the backlog is dropped with a warning.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from navtui.agent.advice import ADVISOR_PREFIX
from navtui.config.watchdog import load_watchdog_blocks
from navtui.core.events import AdvisorNote, Notice, RunFinished
from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from navtui.tools.base import Tool, ToolContext, ToolRegistry, ToolResult

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.providers.base import Provider

ADVISOR_TOOLS = ("read", "grep", "find")
MAX_FAILURES = 3
RETRY_DELAY = 1.0
SYNC_WAIT_CAP = 30.0
RESULT_CHARS = 2000
Severity = Literal["nit", "concern", "blocker"]


class AdviseArgs(BaseModel):
    note: str = Field(description="One concrete, terse piece of advice addressed to the agent")
    severity: Severity = Field("nit", description="nit (default), concern or blocker")


class AdviseTool(Tool[AdviseArgs]):
    name = "advise"
    description = (
        "Send one concrete, terse piece of advice to the agent you are watching. Use sparingly; stay silent "
        'when nothing matters. Example: {"note": "You edited utils.py but the failing test imports helpers.py.", '
        '"severity": "concern"}'
    )
    Args = AdviseArgs

    async def run(self, args: AdviseArgs, ctx: ToolContext) -> ToolResult:
        ctx.extra["advise"](args.note.strip(), args.severity)
        return ToolResult(text="Recorded.")


@dataclass
class Advice:
    note: str
    severity: Severity


def is_advisor_message(message: Any) -> bool:
    return isinstance(message, UserMessage) and message.text.startswith(ADVISOR_PREFIX)


def format_advice(notes: list[Advice]) -> str:
    lines = [f"- [{a.severity}] {a.note}" if a.severity != "nit" else f"- {a.note}" for a in notes]
    return ADVISOR_PREFIX + "\n" + "\n".join(lines)


def _clip(text: str, limit: int = RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    head = int(limit * 0.6)
    return f"{text[:head]}\n[… {len(text) - limit} characters elided …]\n{text[-(limit - head) :]}"


def render_delta(messages: list[Any]) -> str:
    """The primary's new messages as Markdown, thinking included, advisor notes left out."""
    parts: list[str] = []
    for message in messages:
        if is_advisor_message(message):
            continue
        if isinstance(message, UserMessage):
            parts.append(f"## User\n{message.text}")
        elif isinstance(message, AssistantMessage):
            lines = ["## Agent"]
            if message.thinking.strip():
                lines.append(f"Thinking: {message.thinking.strip()}")
            if message.text.strip():
                lines.append(message.text.strip())
            for call in message.tool_calls:
                lines.append(f"Tool call `{call.name}`: {json.dumps(call.arguments, ensure_ascii=False)[:1000]}")
            if message.stop_reason in ("error", "aborted"):
                lines.append(f"(turn ended: {message.stop_reason})")
            parts.append("\n".join(lines))
        elif isinstance(message, ToolResultMessage):
            status = "error" if message.is_error else "result"
            parts.append(f"### Tool {status} `{message.tool_name}`\n{_clip(message.text)}")
    return "\n\n".join(parts)


class Advisor:
    """One advisor attached to a primary runtime."""

    def __init__(
        self,
        provider: Provider,
        *,
        cwd: Path,
        tools: ToolRegistry,
        ctx: ToolContext,
        steer: Callable[[str], None],
        emit: Callable[[Any], None],
        context_window: int | None = None,
    ) -> None:
        from navtui.agent.loop import Agent
        from navtui.tools.approval import ApprovalPolicy

        self.provider = provider
        self.cwd = cwd
        self._steer = steer
        self._emit = emit
        ctx.extra["advise"] = self._advise
        registry = ToolRegistry([t for t in tools if t.name in ADVISOR_TOOLS])
        registry.add(AdviseTool())
        self.system_prompt = self._system_prompt()
        self.agent: Agent = Agent(
            provider,
            registry,
            ctx,
            system_prompt=self.system_prompt,
            policy=ApprovalPolicy(mode="yolo"),  # read-only tools; nothing to approve
            max_turns=6,
            context_window=context_window,
        )
        self.cursor = 0
        self.pending: list[str] = []
        self.backlog = 0
        self.nits: list[Advice] = []
        self.updates = 0
        self._drain_task: asyncio.Task[None] | None = None
        self._caught_up = asyncio.Event()
        self._caught_up.set()

    def _system_prompt(self) -> str:
        base = resources.files("navtui.agent").joinpath("prompts/advisor.md").read_text(encoding="utf-8").strip()
        return "\n\n".join([base, *load_watchdog_blocks(self.cwd)])

    # ------------------------------------------------------------------ feeding
    def seed(self, primary_messages: Sequence[Any]) -> None:
        """Enabled mid-session: start from now, do not replay the old conversation."""
        self.cursor = len(primary_messages)

    def on_turn_end(self, primary_messages: Sequence[Any]) -> None:
        if len(primary_messages) < self.cursor:  # history was rewritten under us
            self.cursor = 0
        delta = render_delta(list(primary_messages[self.cursor :]))
        self.cursor = len(primary_messages)
        if not delta.strip():
            return
        self.pending.append(delta)
        self.backlog += 1
        self._caught_up.clear()
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = asyncio.create_task(self._drain())

    async def _drain(self) -> None:
        while self.pending:
            batch, self.pending = self.pending, []
            failures = 0
            while True:
                if await self._update("\n\n---\n\n".join(batch)):
                    break
                failures += 1
                if failures >= MAX_FAILURES:
                    self._emit(
                        Notice(
                            text=f"Advisor failed {MAX_FAILURES} times in a row; dropped its backlog.",
                            level="warning",
                        )
                    )
                    self.pending.clear()
                    break
                await asyncio.sleep(RETRY_DELAY)
            self.backlog = max(0, self.backlog - len(batch))
            if failures >= MAX_FAILURES:
                self.backlog = 0
        self._caught_up.set()

    async def _update(self, delta: str) -> bool:
        """One advisor prompt. False when the model request failed."""
        self._maintain_context(delta)
        self.updates += 1
        stop_reason = "error"
        try:
            async for event in self.agent.run(f"New activity from the agent:\n\n{delta}"):
                if isinstance(event, RunFinished):
                    stop_reason = event.stop_reason
        except Exception:  # the advisor must never take the primary down
            return False
        if stop_reason == "error":
            # Drop the failed exchange so a retry does not stack duplicate prompts.
            while self.agent.messages and not isinstance(self.agent.messages[-1], UserMessage):
                self.agent.messages.pop()
            if self.agent.messages:
                self.agent.messages.pop()
            return False
        return True

    def _maintain_context(self, incoming: str) -> None:
        """Re-prime when the advisor's own context would pass 80% of its window."""
        window = self.agent.budget.window
        if not window:
            return
        if self.agent.budget.estimate(self.agent) + len(incoming) // 4 > window * 0.8:
            self.agent.messages.clear()
            self.agent.budget.reset()

    def _advise(self, note: str, severity: Severity) -> None:
        if not note:
            return
        advice = Advice(note, severity)
        if severity == "nit":
            self.nits.append(advice)
            return
        self._steer(format_advice([advice]))
        self._emit(AdvisorNote(note=note, severity=severity))

    # ------------------------------------------------------------------ primary side
    def take_nits(self) -> list[Advice]:
        taken, self.nits = self.nits, []
        return taken

    async def wait_for_catch_up(self, threshold: int, cap: float = SYNC_WAIT_CAP) -> None:
        """sync_backlog: wait (at most ``cap`` seconds) while the backlog is at or above ``threshold``."""
        deadline = asyncio.get_running_loop().time() + cap
        while self.backlog >= threshold:
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wait_change(), timeout=remaining)

    async def _wait_change(self) -> None:
        if self._drain_task is not None and not self._drain_task.done():
            await asyncio.wait({self._drain_task}, timeout=0.1)
        else:
            await self._caught_up.wait()

    def reset(self) -> None:
        """The primary history was rewritten (compaction, handover, tree navigation, resume)."""
        if self._drain_task is not None and not self._drain_task.done():
            self.agent.abort()
            self._drain_task.cancel()
        self._drain_task = None
        self.agent.messages.clear()
        self.agent.budget.reset()
        self.pending.clear()
        self.nits.clear()
        self.backlog = 0
        self.cursor = 0
        self._caught_up.set()

    async def aclose(self) -> None:
        self.reset()
        await self.provider.aclose()

    # ------------------------------------------------------------------ reporting
    def status_text(self) -> str:
        usage = self.agent.usage_total
        users = sum(isinstance(m, UserMessage) for m in self.agent.messages)
        assistants = sum(isinstance(m, AssistantMessage) for m in self.agent.messages)
        window = self.agent.budget.window
        used = self.agent.budget.estimate(self.agent)
        context = f"{used} / {window} tokens ({used * 100 // window}%)" if window else f"{used} tokens"
        cost = f"${usage.cost.total:.4f}" if usage.cost else "n/a"
        return "\n".join(
            [
                f"Advisor is enabled ({self.provider.name}/{self.provider.model}).",
                f"Messages: user {users}, assistant {assistants}, total {len(self.agent.messages)}",
                f"Context: {context}",
                f"Spend: input {usage.input}, output {usage.output}, cache read {usage.cache_read}, "
                f"cache write {usage.cache_write}, cost {cost}",
                f"Updates: {self.updates}, backlog: {self.backlog}",
            ]
        )

    def dump(self, raw: bool = False) -> str:
        if not self.agent.messages:
            return "Advisor has no history yet."
        parts = []
        if raw:
            parts.append("# System prompt\n" + self.system_prompt)
            parts.append("# Tools\n" + "\n".join(f"- {s.name}: {s.description}" for s in self.agent.tools.specs()))
        for message in self.agent.messages:
            if isinstance(message, UserMessage):
                parts.append("## Update\n" + message.text)
            elif isinstance(message, AssistantMessage):
                lines = ["## Advisor"]
                if raw and message.thinking:
                    lines.append("Thinking: " + message.thinking)
                if message.text:
                    lines.append(message.text)
                lines += [f"→ {c.name} {json.dumps(c.arguments, ensure_ascii=False)}" for c in message.tool_calls]
                parts.append("\n".join(lines))
            elif isinstance(message, ToolResultMessage) and raw:
                parts.append(f"### {message.tool_name}\n{_clip(message.text, 500)}")
        return "\n\n".join(parts)
