"""Unexpected stop (omp 16): a turn that ends announcing work it never started gets nudged to continue.

A final answer is a candidate when it has no tool call and either was cut off (stop reason ``length``), is
empty, or ends by announcing an action ("I'll now edit...", "Let me run the tests:"). Questions for the user,
offers and reports of finished work are real answers. The heuristic decides; with
``compaction.unexpected_stop: model`` a small model is asked about the texts the heuristic lets through.
At most three nudges in a row ("Continue now. Attempt n/3"); progress (a tool call) resets the count. An answer
cut off at the limit while saying one sentence over and over is a loop: it is not asked to go on.
"""

from __future__ import annotations

import asyncio
import re
from typing import Literal

from navtui.agent.ask import ask_text
from navtui.agent.hooks import Nudge
from navtui.core.messages import AssistantMessage
from navtui.providers.base import Provider

MAX_NUDGES = 3
LOOP_REPEATS = 4  # the same sentence this often in one answer cut off at the limit: a loop, not asked to go on
CLASSIFY_TIMEOUT = 4.0
StopKind = Literal["announced", "truncated", "empty"]

CLASSIFIER_PROMPT = (
    "You check whether a coding assistant stopped in the middle of its work. You see the end of its last message. "
    "Answer YES if it says it is about to do something (run a command, edit or read a file, run the tests) but no "
    'action followed, e.g. "Let me run the tests next." or "I\'ll fix that now.". Answer NO if it is a finished '
    'answer, a report of completed work or a question for the user, e.g. "I\'ve completed the task." or '
    '"Should I also update the docs?". Answer with one word: YES or NO.'
)

_CODE = re.compile(r"```.*?(```|$)", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_ACTION = (
    r"(?:run|re-?run|check|edit|update|fix|read|look|open|create|write|add|implement|modify|change|start|continue|"
    r"proceed|search|inspect|examine|test|try|apply|make|remove|delete|install|investigate|verify|refactor|rename|"
    r"move|build|compile|execute|call|use|begin|review|analy[sz]e|debug|patch|replace|insert|set up|configure|"
    r"explore|list|grep|find|dig|work on|handle|address|tackle|go ahead|go through|do|finish|complete|clean up|"
    r"commit|restart|launch|generate|search for|fetch|download|double-check|confirm)"
)
_ANNOUNCE = re.compile(
    r"\b(?:i'?ll|i will|i'm going to|i am going to|i'm about to|i am about to|let me|let's|let us|"
    r"now i|next,? i|i need to|i should now|i'm now|i am now|time to|i'll now|i will now|first,? i)"
    r"(?:\s+\w+){0,3}?\s+" + _ACTION + r"\b",
    re.IGNORECASE,
)
_ACTION_NOW = re.compile(r"^(?:now|next|then|first),?\s+" + _ACTION + r"\b", re.IGNORECASE)
_FOR_THE_USER = re.compile(
    r"\b(?:let me know|would you like|do you want|should i|shall i|if you(?:'d| would)? (?:like|want|prefer)|"
    r"feel free|want me to|you can|you could|you may|you might|you should|you'll need to|you will need to|"
    r"once you|when you're ready|i'll wait|i will wait|awaiting)\b",
    re.IGNORECASE,
)


def _tail(text: str) -> str:
    """The last two sentences of the last paragraph, code blocks left out."""
    text = _CODE.sub(" ", text).strip()
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    if not paragraphs:
        return ""
    last = paragraphs[-1]
    lines = [line.strip() for line in last.splitlines() if line.strip()]
    if lines and lines[-1].endswith(":") and len(lines) == 1 and len(paragraphs) > 1:
        last = paragraphs[-2] + " " + last
    sentences = [s for s in _SENTENCE_END.split(last) if s.strip()]
    return " ".join(sentences[-2:]).strip()


def announces_work(text: str) -> bool:
    """True when the text ends by announcing an action instead of finishing or asking."""
    text = text.replace("\u2019", "'").strip()
    if text.endswith("```"):
        return False  # it ends with the code it promised
    tail = _tail(text)
    if not tail:
        return False
    if tail.rstrip().endswith("?") or _FOR_THE_USER.search(tail):
        return False
    if tail.rstrip().endswith(":") or tail.rstrip().endswith("..."):
        return bool(_ANNOUNCE.search(tail) or _ACTION_NOW.search(tail) or len(tail) < 200)
    last = [s for s in _SENTENCE_END.split(tail) if s.strip()][-1]
    return bool(_ANNOUNCE.search(last) or _ACTION_NOW.search(last))


def loops(text: str) -> bool:
    """True when the text says one sentence over and over: a small model in a loop, not an answer to continue.

    SmolLM2-135M, asked to explain a function, wrote "The function slugify function is only defined in the text.py
    file." until the output limit, and again each time it was asked to continue (the run timed out).
    """
    sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", _CODE.sub(" ", text)) if len(s.strip()) >= 20]
    counts: dict[str, int] = {}
    for sentence in sentences:
        counts[sentence] = counts.get(sentence, 0) + 1
    return bool(counts) and max(counts.values()) >= LOOP_REPEATS


def classify(message: AssistantMessage) -> StopKind | None:
    """Why this final answer looks unfinished, or None for a real answer."""
    if message.tool_calls or message.stop_reason in ("error", "aborted", "tool_use"):
        return None
    if message.stop_reason == "length":
        return None if loops(message.text) else "truncated"
    text = message.text.strip()
    if not text:
        return "empty"
    return "announced" if announces_work(text) else None


def nudge_for(kind: StopKind, attempt: int) -> Nudge:
    count = f"Attempt {attempt}/{MAX_NUDGES}"
    if kind == "truncated":
        return Nudge(
            message=f"Your answer was cut off by the output limit. Continue exactly where you stopped. {count}",
            notice=f"The answer was cut off; asking the model to continue ({attempt}/{MAX_NUDGES}).",
        )
    if kind == "empty":
        return Nudge(
            message=f"You stopped without completing the task. Continue now. {count}",
            notice=f"The model stopped without an answer; nudging it to continue ({attempt}/{MAX_NUDGES}).",
        )
    return Nudge(
        message=f"You said you would continue with a tool call or action but stopped. Continue now. {count}",
        notice=f"The model announced more work and stopped; nudging it to continue ({attempt}/{MAX_NUDGES}).",
    )


async def model_says_unfinished(provider: Provider, text: str, *, limit: float = CLASSIFY_TIMEOUT) -> bool | None:
    """Ask a (small) model YES/NO about the end of ``text``; None when it fails or answers neither."""
    try:
        reply = await asyncio.wait_for(ask_text(provider, CLASSIFIER_PROMPT, text[-1500:], max_tokens=16), limit)
    except Exception:  # a failed or slow classifier leaves the decision to the heuristic
        return None
    reply = reply.strip("*").lower()
    if reply.startswith("yes"):
        return True
    if reply.startswith("no"):
        return False
    return None


class StopWatch:
    """Counts nudges: at most ``MAX_NUDGES`` in a row, reset by progress."""

    def __init__(self, mode: str = "heuristic") -> None:
        self.mode = mode
        self.attempts = 0

    def reset(self) -> None:
        self.attempts = 0

    async def check(self, message: AssistantMessage, classifier: Provider | None = None) -> Nudge | None:
        if self.mode == "off":
            return None
        kind = classify(message)
        ask_model = kind is None and self.mode == "model" and classifier is not None and message.text.strip()
        if ask_model and await model_says_unfinished(classifier, message.text):  # type: ignore[arg-type]
            kind = "announced"
        if kind is None:
            self.reset()
            return None
        if self.attempts >= MAX_NUDGES:
            return None
        self.attempts += 1
        return nudge_for(kind, self.attempts)
