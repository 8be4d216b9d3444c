"""Compaction (omp): the older part of the context becomes a summary written by the model; the newest part stays.

``plan_compaction`` picks the cut (never between a tool call and its result), ``write_summary`` asks the
provider for the summary in chunks that each fit the window (first summary, then updated summaries), with a
second summary for the start of a turn that was cut in two, and a ``<files>`` list of what was read and changed
(``file_list.py``). The model is asked through ``ask.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from navtui.agent.ask import ask_text
from navtui.agent.budget import ContextLimits, estimate_message_tokens
from navtui.agent.file_list import FileOps, strip_files, with_files
from navtui.core.errors import NavtuiError
from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from navtui.providers.base import Provider

TOOL_RESULT_CHARS = 2000  # a tool result is cut to this many characters in the summarizer's input
PROMPT_OVERHEAD = 700  # tokens for the summarizer's system prompt, instructions and framing
SPLIT_TURN_HEADER = "\n\n---\n\n**Turn context (split turn):**\n\n"


OVERFLOW_MARKERS = (
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "input is too long",
    "exceeds the context",
    "reduce the length",
    "request too large",
)


def is_overflow(message: str | None, kind: str | None = None) -> bool:
    """Whether a provider error means the prompt did not fit the model's context (compact, then retry)."""
    if kind == "overflow":
        return True
    text = (message or "").lower()
    return any(marker in text for marker in OVERFLOW_MARKERS)


@cache
def prompt(name: str) -> str:
    return resources.files("navtui.agent").joinpath(f"prompts/{name}.md").read_text(encoding="utf-8").strip()


# ---------------------------------------------------------------- the summary as the model sees it
def _session_framing() -> tuple[str, str]:
    # The session module rebuilds this message on resume; using its framing keeps live and resumed context equal.
    from navtui.session.context import COMPACTION_PREFIX, COMPACTION_SUFFIX

    return COMPACTION_PREFIX, COMPACTION_SUFFIX


def summary_message(summary: str) -> UserMessage:
    prefix, suffix = _session_framing()
    return UserMessage(content=prefix + summary + suffix)


def previous_summary(messages: Sequence[Any]) -> str | None:
    """The summary held by a context that starts with an earlier compaction's message."""
    if not messages or not isinstance(messages[0], UserMessage):
        return None
    prefix, suffix = _session_framing()
    text = messages[0].text
    if text.startswith(prefix) and text.endswith(suffix):
        return text[len(prefix) : len(text) - len(suffix)]
    return None


# ---------------------------------------------------------------- where to cut
def _turn_starts(message: Any) -> bool:
    return isinstance(message, UserMessage)


def _can_cut_at(message: Any) -> bool:
    return not isinstance(message, ToolResultMessage)  # a result must follow its call


@dataclass
class CompactionPlan:
    start: int  # 1 when the context opens with an earlier summary, else 0
    cut: int  # messages[cut:] are kept
    turn_start: int | None  # set when the cut splits a turn: messages[turn_start:cut] get their own summary
    previous: str | None

    def history(self, messages: Sequence[Any]) -> list[Any]:
        end = self.turn_start if self.turn_start is not None else self.cut
        return list(messages[self.start : end])

    def turn_prefix(self, messages: Sequence[Any]) -> list[Any]:
        return list(messages[self.turn_start : self.cut]) if self.turn_start is not None else []


def plan_compaction(messages: Sequence[Any], keep_tokens: int, *, can_keep: Any = None) -> CompactionPlan | None:
    """Where to cut so about ``keep_tokens`` of the newest messages stay; None when nothing would be summarized.

    The cut is the oldest valid cut point inside the newest ``keep_tokens`` (or the last valid one when even the
    newest turn is bigger). ``can_keep(index)`` may veto cut points (e.g. a message the session cannot name).
    """
    previous = previous_summary(messages)
    start = 1 if previous is not None else 0
    # Only the newest messages are looked at (the cut is among them), newest first: a context whose older
    # messages are still in the session's lines (ContextMessages) has none of those read.

    def valid(index: int) -> bool:
        return _can_cut_at(messages[index]) and (can_keep is None or can_keep(index))

    newest_first = range(len(messages) - 1, start, -1)
    cut = next((index for index in newest_first if valid(index)), None)  # the newest valid cut point
    if cut is None:
        return None
    kept = 0
    for index in newest_first:
        kept += estimate_message_tokens(messages[index])
        if kept > keep_tokens:
            break
        if valid(index):
            cut = index
    turn_start = None
    if not _turn_starts(messages[cut]):
        user = next((i for i in range(cut - 1, start - 1, -1) if _turn_starts(messages[i])), None)
        if user is not None and user > start:
            turn_start = user
    return CompactionPlan(start=start, cut=cut, turn_start=turn_start, previous=previous)


def plan_everything(messages: Sequence[Any]) -> CompactionPlan | None:
    """A plan that summarizes the whole context (handover notes written by the summarizer)."""
    previous = previous_summary(messages)
    start = 1 if previous is not None else 0
    if len(messages) <= start:
        return None
    return CompactionPlan(start=start, cut=len(messages), turn_start=None, previous=previous)


# ---------------------------------------------------------------- the summarizer's input
def serialize(messages: Iterable[Any], max_chars: int) -> list[str]:
    """One text per message, as the summarizer reads it; tool results cut to ``TOOL_RESULT_CHARS``."""
    out: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            out.append(_clip(f"[User]: {message.text}", max_chars))
        elif isinstance(message, AssistantMessage):
            parts = []
            if message.text.strip():
                parts.append(f"[Assistant]: {message.text.strip()}")
            calls = [f"{c.name}({json.dumps(c.arguments, ensure_ascii=False)})" for c in message.tool_calls]
            if calls:
                parts.append(_clip("[Assistant tool calls]: " + "; ".join(calls), max_chars // 2))
            if parts:
                out.append(_clip("\n".join(parts), max_chars))
        elif isinstance(message, ToolResultMessage):
            label = "[Tool error]" if message.is_error else "[Tool result]"
            out.append(_clip(f"{label} {message.tool_name}: {message.text}", min(TOOL_RESULT_CHARS, max_chars)))
    return out


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    head = max(max_chars * 3 // 4, 1)
    tail = max(max_chars - head - 40, 0)
    return text[:head] + f"\n[... {len(text) - head - tail} characters left out ...]\n" + (text[-tail:] if tail else "")


def chunk(texts: list[str], max_chars: int) -> list[str]:
    """Consecutive texts joined into pieces of at most ``max_chars``."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for text in texts:
        if current and size + len(text) + 2 > max_chars:
            pieces.append("\n\n".join(current))
            current, size = [], 0
        current.append(text)
        size += len(text) + 2
    if current:
        pieces.append("\n\n".join(current))
    return pieces


# ---------------------------------------------------------------- asking the model
@dataclass
class SummaryBudget:
    """How big each summarizer request may be, in characters of conversation."""

    limits: ContextLimits
    ratio: float = 1.0  # real tokens per estimated token

    @property
    def chunk_chars(self) -> int:
        tokens = self.limits.window - 2 * self.limits.summary_tokens - PROMPT_OVERHEAD - self.limits.window // 20
        return max(int(max(tokens, 256) * 4 / max(self.ratio, 1.0)), 1024)


async def write_summary(
    provider: Provider,
    messages: Sequence[Any],
    plan: CompactionPlan,
    budget: SummaryBudget,
    *,
    instructions: str | None = None,
) -> tuple[str, FileOps]:
    """The summary for ``plan``: history (chunk by chunk), the split turn's start, then ``<files>``."""
    files = FileOps()
    if plan.previous:
        files.add_listed(plan.previous)
    texts: list[str] = []
    end = plan.turn_start if plan.turn_start is not None else plan.cut
    for index in range(plan.start, end):  # one at a time: a resumed context's older messages are read from lines
        message = messages[index]
        files.add_calls((message,))
        texts += serialize((message,), budget.chunk_chars)
    prefix = plan.turn_prefix(messages)
    files.add_calls(prefix)
    summary = strip_files(plan.previous) if plan.previous else None
    max_tokens = budget.limits.summary_tokens
    focus = f"\n\nAdditional instructions from the user: {instructions.strip()}" if instructions else ""
    for piece in chunk(texts, budget.chunk_chars):
        text = f"<conversation>\n{piece}\n</conversation>\n\n"
        if summary is None:
            text += prompt("compaction-summary") + focus
        else:
            text += (
                f"<previous-summary>\n{summary}\n</previous-summary>\n\n" + prompt("compaction-update-summary") + focus
            )
        summary = await ask_text(provider, prompt("compaction-system"), text, max_tokens=max_tokens)
        if not summary:
            raise NavtuiError("The model returned an empty summary")
    if prefix:
        pieces = chunk(serialize(prefix, budget.chunk_chars), budget.chunk_chars)
        # The start of one turn: when it is too long for one request, its beginning matters most.
        text = f"<conversation>\n{pieces[0]}\n</conversation>\n\n" + prompt("compaction-turn-prefix") + focus
        turn = await ask_text(provider, prompt("compaction-system"), text, max_tokens=max(max_tokens // 2, 128))
        summary = f"{summary}{SPLIT_TURN_HEADER}{turn}" if summary else turn
    if not summary:
        raise NavtuiError("Nothing to summarize")
    return with_files(summary, files), files
