"""Handover (nav plan, Feature 2): the model finishes a step, writes notes, and carries on in a fresh context.

The ``handover`` tool is offered when handover is enabled; the agent intercepts it (it never runs as a tool).
Notes can also be asked for (``/handover``, or automatically near the window's limit). After a handover the
model sees the unchanged system prompt with ``<handover_notes>`` appended, then one "Continue the task..."
message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from navtui.agent.ask import ask_model
from navtui.agent.budget import ContextLimits
from navtui.agent.compaction import SummaryBudget, plan_everything, prompt, write_summary
from navtui.agent.pruning import prune_tool_outputs, trim_to_fit
from navtui.core.errors import NavtuiError
from navtui.core.messages import ToolCall, ToolSpec, UserMessage
from navtui.providers.base import Provider
from navtui.tools.base import Tool, ToolContext, ToolResult

CONTINUE_PREFIX = "Continue the task. Here's what was done and what's next:\n\n"
ACCEPTED = "Handover accepted: the context restarts with your notes."
_SECTION = re.compile(
    r"^[\s>*#-]*\**(?P<name>completed|previous step summary|summary|next steps?|context)\**\s*:\**\s*",
    re.IGNORECASE | re.MULTILINE,
)


class HandoverArgs(BaseModel):
    summary: str = Field(description="Brief summary of what was accomplished in this step")
    next_steps: str = Field(
        description="What should be done next — be specific about files, functions, and remaining work"
    )
    context: str | None = Field(
        None,
        description="Any important context the next step needs (file paths modified, decisions made, errors encountered)",
    )


class HandoverTool(Tool[HandoverArgs]):
    name = "handover"
    description = (
        "Signal that you have completed a self-contained step and want to hand over to a fresh context.\n"
        "Use this when:\n"
        "- You've completed a logical unit of work (e.g., implemented a function, fixed a bug, set up a file)\n"
        "- The context is getting long and you want a clean slate for the next step\n"
        "- You want to leave notes for the next step about what was done and what comes next\n\n"
        "The current conversation will be cleared and a new one will start with your notes."
    )
    Args = HandoverArgs
    tier = "read"

    async def run(self, args: HandoverArgs, ctx: ToolContext) -> ToolResult:
        # Only reached when no ContextHooks intercepts the call (a bare Agent): say so instead of pretending.
        return ToolResult("handover is not available in this run; continue the task in this context", is_error=True)


def mode_prompt() -> str:
    """The system prompt addition that explains handover mode (only when the tool is offered)."""
    return prompt("handover-system")


@dataclass
class HandoverNotes:
    """What the next context starts from: the tool's three fields, or notes the model wrote as text."""

    summary: str
    next_steps: str = ""
    context: str = ""
    free_text: str | None = None  # notes that did not follow the three-part form

    @classmethod
    def from_args(cls, args: HandoverArgs) -> HandoverNotes:
        return cls(args.summary.strip(), args.next_steps.strip(), (args.context or "").strip())

    @classmethod
    def from_text(cls, text: str) -> HandoverNotes:
        """Parse "Completed: / Next steps: / Context:" notes; anything else is kept whole."""
        text = text.strip()
        parts: dict[str, str] = {}
        matches = list(_SECTION.finditer(text))
        for index, match in enumerate(matches):
            end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
            name = match["name"].lower()
            key = "next" if name.startswith("next") else "context" if name == "context" else "summary"
            parts.setdefault(key, text[match.end() : end].strip())
        if parts.get("summary") and parts.get("next") and (not matches or not text[: matches[0].start()].strip()):
            return cls(parts["summary"], parts["next"], parts.get("context", ""))
        return cls(summary=text, free_text=text)

    @property
    def text(self) -> str:
        """The notes as they go inside ``<handover_notes>`` (and into the session entry)."""
        if self.free_text is not None:
            return self.free_text
        lines = [f"Previous step summary: {self.summary}", f"Next steps: {self.next_steps}"]
        if self.context:
            lines.append(f"Context: {self.context}")
        return "\n".join(lines)

    def continue_message(self, *, instructions: str | None = None, pending: str | None = None) -> str:
        """The user message the fresh context starts with (the nav plan's wording)."""
        if self.free_text is not None:
            body = self.free_text
        else:
            body = f"Completed: {self.summary}\nNext steps: {self.next_steps}"
            if self.context:
                body += f"\nContext: {self.context}"
        message = CONTINUE_PREFIX + body
        if instructions:
            message += f"\n\nInstructions from the user: {instructions.strip()}"
        if pending:
            message += f"\n\nThe user's latest message (answer it now):\n{pending}"
        return message

    def details(self, *, count: int, automatic: bool) -> dict[str, Any]:
        data: dict[str, Any] = {"count": count, "automatic": automatic, "summary": self.summary}
        if self.free_text is None:
            data["nextSteps"] = self.next_steps
            if self.context:
                data["context"] = self.context
        return data


def notes_from_call(call: ToolCall) -> HandoverNotes | str:
    """The notes of a ``handover`` call, or the error text the model gets back for bad arguments."""
    try:
        return HandoverNotes.from_args(HandoverTool().parse_args(call.arguments))
    except Exception as exc:  # ToolError, or a parse-error marker the provider left in the arguments
        return getattr(exc, "message", str(exc))


def request_text(instructions: str | None = None) -> str:
    text = prompt("handover-request")
    if instructions:
        text += f"\n\nThe user asks you to focus the notes on: {instructions.strip()}"
    return text


async def ask_for_notes(
    provider: Provider,
    *,
    system: str,
    messages: Sequence[Any],
    tools: Sequence[ToolSpec],
    max_tokens: int,
    think: bool | str | None,
    instructions: str | None = None,
) -> HandoverNotes | None:
    """Ask the model for its notes, resending the live prompt, tools and history so a local server's cache holds.

    A ``handover`` call in the reply is taken as the notes; other tool calls are ignored. None when the reply
    holds no notes.
    """
    found: list[HandoverNotes] = []

    def notes_call(call: ToolCall) -> bool:
        notes = notes_from_call(call) if call.name == HandoverTool.name else None
        if isinstance(notes, HandoverNotes):
            found.append(notes)
        return bool(found)

    reply = await ask_model(
        provider,
        system=system,
        messages=[*messages, UserMessage(content=request_text(instructions))],
        tools=tools,
        max_tokens=max_tokens,
        think=think,
        until=notes_call,
    )
    if found:
        return found[0]
    return HandoverNotes.from_text(reply.text) if reply.text else None


async def write_notes(
    agent: Any, history: list[Any], *, system: str, limits: ContextLimits, instructions: str | None = None
) -> tuple[HandoverNotes, str | None]:
    """Notes for a handover of ``history``, and a warning when the summarizer had to write them.

    The model is asked first with the live prompt, tools and history (its cache holds); when that would not
    fit the window, old tool outputs and then long texts are cut in what is sent. Raises ``NavtuiError`` when
    neither the model nor the summarizer produced notes.
    """
    notes_tokens = min(2048, limits.window // 8)
    ratio = agent.budget.ratio
    sent = history
    excess = agent.budget.estimate(agent) + 300 + notes_tokens - (limits.window - limits.window // 20)
    if excess > 0:
        pruned = prune_tool_outputs(history, protect_tokens=0, min_savings=0)
        sent, excess = list(pruned.messages), excess - int(pruned.tokens_saved * ratio)
        if excess > 0:
            sent = list(trim_to_fit(sent, int(excess / ratio) + 1).messages)
    warning = None
    try:
        notes = await ask_for_notes(
            agent.provider,
            system=system,
            messages=sent,
            tools=agent.tools.specs(),
            max_tokens=notes_tokens,
            think=agent.think,
            instructions=instructions,
        )
    except NavtuiError as exc:
        notes, warning = None, f"The model could not write handover notes ({exc}); the summarizer wrote them."
    if notes is not None:
        return notes, warning
    plan = plan_everything(history)
    if plan is None:
        raise NavtuiError("Nothing to hand over yet")
    summary, _ = await write_summary(agent.provider, history, plan, SummaryBudget(limits, ratio))
    return HandoverNotes.from_text(summary), warning
