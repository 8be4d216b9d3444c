"""A final answer that claims a change no tool made is questioned, once per request.

Measured in the eval: under the text protocol and native tools, Qwen2.5-Coder 0.5B/1.5B answered "I've updated
calc.py, the test passes now" without one call, and the run ended as if the work was done. Here, when the final
answer says files were changed (created, updated, fixed, deleted, ...) and no tool that can change anything
(a ``write``/``exec`` tier tool: write, edit, shell) succeeded since the user's request, the model is told so
and asked once to make the change or to correct its answer. Whatever it answers then ends the run. So is a
plain "the task is done" after changes were tried and every one of them failed (a block that was refused).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from navtui.agent.hooks import AgentHooks, Nudge
from navtui.agent.targets import change_targets
from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage, ask_to_write, is_nudge

if TYPE_CHECKING:
    from navtui.agent.loop import Agent

CLAIM_OPENING = (
    "Your answer says a file was changed, but nothing changed anything for this request: no file was written and no "
    "command succeeded."
)
MAX_REQUEST = 400  # characters of the request said again in the nudge; a longer one is not repeated
CLAIM_MESSAGE = (
    f"{CLAIM_OPENING} If a change is needed, make it now. If none is needed, answer again without claiming one."
)


def claim_message(target: str | None, request: str = "") -> str:
    """The nudge; under the edits protocol, with the one file the request asks to change, that file by name.

    Seen in the eval (from_docstring): asked to implement word_counts in textstats.py, the 1.5B answered that it had;
    told only to "make it now", it wrote ``return text.split().count(' ')``. Asked for the file by name, with the
    request said again just before and nothing after, it wrote the function when the request was replayed, and in
    one of the two eval runs that followed (llama.cpp at temperature 0 is not repeatable across its prompt cache);
    the reply starts with the file's block (the protocol's continuation)."""
    if target is None:
        return CLAIM_MESSAGE
    said = f" Do what the request asks: {request}" if request and len(request) <= MAX_REQUEST else ""
    return f"{CLAIM_OPENING}{said} {ask_to_write(target)}."


def request_words(prompt: str) -> str:
    """The request's own words on one line: no attached files, no lines of ``@path`` mentions only."""
    lines = prompt.split("<attached_file", 1)[0].splitlines()
    kept = [line.strip() for line in lines if line.strip() and not all(w.startswith("@") for w in line.split())]
    return " ".join(kept)


_CODE = re.compile(r"```.*?(```|$)", re.DOTALL)
_VERB_WORDS = (
    "created", "updated", "modified", "changed", "fixed", "added", "appended", "wrote", "written", "edited", "renamed",
    "replaced", "removed", "deleted", "corrected", "inserted", "saved", "set", "rewritten", "rewrote", "refactored",
    "implemented", "moved", "made",
)  # fmt: skip
_VERBS = "(?:" + "|".join(_VERB_WORDS) + ")"
_NOW_VERBS = "|".join(
    f"{verb}s?"
    for verb in (
        "include", "has", "have", "pass", "passe", "use", "return", "accept", "take", "print", "end", "handle", "read",
        "call", "contain", "support", "import", "define", "work", "raise", "give", "check", "add", "write", "show",
    )
)  # fmt: skip
# "I've updated", "I have now fixed", "I created", "has been added", "was renamed", "Done: updated ...".
_CLAIMS = (
    re.compile(r"\bI(?:'ve| have)?\s+(?:(?:now|just|also|successfully|already)\s+){0,2}" + _VERBS + r"\b", re.I),
    re.compile(r"\b(?:has|have|had|was|were)\s+(?:now\s+|also\s+|successfully\s+)?been\s+" + _VERBS + r"\b", re.I),
    re.compile(r"\b(?:was|were|got)\s+(?:now\s+|also\s+|successfully\s+)?" + _VERBS + r"\b", re.I),
    re.compile(r"\b(?:is|are)\s+now\s+(?:" + _VERBS + r"|fixed|in place|passing)\b", re.I),
    re.compile(r"(?:^|[.!]\s+|\n\s*[-*]?\s*)(?:Successfully\s+)?" + _VERBS + r":?\s+[`'\"]?[\w./-]+\.\w+", re.I),
    # "Renamed the function `compute_total` to ...": a report that opens with the verb ("Set" may be advice), or
    # heads it ("Fixed: the import in main.py", seen after both of a turn's tool calls had failed).
    re.compile(r"(?:^|[.!]\s+|\n\s*[-*]?\s*)" + _VERBS.replace("|set|", "|") + r":?\s+(?:the|a|an|all|every)\b", re.I),
)
# "The `format_greeting` function in `greeting.py` now includes an optional parameter ...", "main.py now passes
# excited=True": the present tense of a change made (the 1.5B, no block written; eval param_through). Not "you can
# now use", "to now return". A claim only under the edits protocol: a model with tools says "add now returns a + b"
# of code it read, answering a question about a change the user made.
_NOW_CLAIM = re.compile(
    r"(?<!\bcan )(?<!\bwill )(?<!\bshould )(?<!\bcould )(?<!\bmay )(?<!\bmust )(?<!\bto )(?<!\byou )"
    r"\bnow\s+(?:also\s+|correctly\s+|properly\s+)?(?:" + _NOW_VERBS + r")\b",
    re.I,
)
# "The task is done." after blocks that were all refused: nothing was done.
_DONE = re.compile(
    r"\b(?:task|it|that|this|everything|work)\s+(?:is|has been)\s+(?:now\s+)?(?:done|complete|completed|finished)\b",
    re.I,
)
# Every claim pattern holds one of these words (case-insensitively): an answer that has none claims nothing and is
# not scanned (six case-insensitive scans of a 20,000-token answer cost ~25 ms of the UI loop as its turn ended).
_WORDS = (*_VERB_WORDS, "in place", "passing")
_NEGATED = re.compile(r"(?:\b(?:not|never|no|nothing|none)\b|n't\b)[^.!?\n]{0,40}$", re.I)
CHANGE_TIERS = frozenset({"write", "exec"})


def claims_change(text: str, *, present_tense: bool = True) -> bool:
    """True when ``text`` (code blocks left out) reports a change to files as done; with ``present_tense``, also
    when it tells one as the code's state ("greeting.py now includes ...")."""
    prose = _CODE.sub(" ", text.replace("\u2019", "'"))
    # casefold, and the dotless i that re.IGNORECASE takes for an i: every match of a pattern holds a word folded so
    folded = prose.casefold().replace("\u0131", "i")
    words = (*_WORDS, "now") if present_tense else _WORDS
    if not any(word in folded for word in words):
        return False
    for pattern in (*_CLAIMS, _NOW_CLAIM) if present_tense else _CLAIMS:
        for match in pattern.finditer(prose):
            before = prose[max(0, match.start() - 60) : match.end()]
            if not _NEGATED.search(before[: len(before) - len(match.group(0).split()[-1])]):
                return True
    return False


class ClaimCheck(AgentHooks):
    """Questions a final answer claiming a change when nothing that changes files ran since the request."""

    def __init__(self) -> None:
        self._target: str | None = None
        self._request = ""

    def start_run(self, agent: Agent, prompt: str | None) -> None:
        if prompt is None:
            return  # a continued run keeps what its request asked for
        targets = change_targets(prompt.split("<attached_file", 1)[0])
        self._target = targets[0] if len(targets) == 1 and _is_file(agent, targets[0]) else None
        self._request = request_words(prompt)

    async def after_final_answer(self, agent: Agent, message: AssistantMessage) -> Nudge | None:
        if message.tool_calls or message.stop_reason != "stop":
            return None
        since = _since_request(agent.messages)
        if any(isinstance(m, UserMessage) and m.text.startswith(CLAIM_OPENING) for m in since):
            return None  # asked once already
        changes = [item for item in since if isinstance(item, ToolResultMessage) and _changes(agent, item.tool_name)]
        if any(not item.is_error for item in changes):
            return None
        present_tense = getattr(agent.provider, "offers_tools", True) is False  # the edits protocol
        if not claims_change(message.text, present_tense=present_tense) and not (
            changes and _DONE.search(message.text)
        ):
            return None  # no claim; or "done" said where nothing was even tried (an answer to a question)
        return Nudge(
            message=claim_message(self._target if present_tense else None, self._request),
            notice="The answer claims a change no tool made; asking the model once to make it or correct the answer.",
        )


def _is_file(agent: Agent, shown: str) -> bool:
    try:
        return agent.ctx.workspace.resolve(shown).is_file()
    except Exception:
        return False


def changed_since_request(agent: Agent) -> bool:
    """Whether a tool that can change files succeeded since the user's request."""
    return any(
        isinstance(item, ToolResultMessage) and not item.is_error and _changes(agent, item.tool_name)
        for item in _since_request(agent.messages)
    )


def _changes(agent: Agent, name: str) -> bool:
    tool = agent.tools.get(name)
    return tool is None or tool.tier in CHANGE_TIERS  # a tool no longer offered: give it the benefit of the doubt


def _since_request(messages: Sequence[object]) -> list[object]:
    """The messages after the user's request (nudges, ours or the other hooks', do not count as a request)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, UserMessage) and not is_nudge(message.text):
            return list(messages[index + 1 :])
    return list(messages)
