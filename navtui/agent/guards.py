"""When a run must stop although the model keeps going.

A small model can call a tool that does not exist, send arguments that do not validate, or repeat the same
call, forever: without a limit it burns the whole ``max_turns`` budget (and the user's patience). Measured with
Qwen2.5-Coder 1.5B: the same successful ``write`` six times until the turn limit, with the file long right.

- Three responses in a row whose calls all failed before running end the run with an error (headless: exit 1).
- The same call (or set of calls) as the response before is not run again when that one succeeded: the model
  gets a note that its result stands (a repeated ``echo x >> file`` would otherwise append twice).
- The third identical response in a row ends the run: with an error when the calls failed each time, with a
  note when they had succeeded (the work is done as far as the tools go; the run is not a failure).

``shell_status`` is exempt from the repeat rules: polling a background job with the same call is its purpose.

A reply that says and does exactly what an earlier reply of the run said and did gets the next request sent with
a higher temperature (``RESAMPLE_TEMPERATURE``, when the configured one is lower): at temperature 0 a small model
asked again after a failed check answered the same wrong plan three times, word for word; sampled, it sent the
fixed file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from navtui.core.events import AgentError, Notice
from navtui.core.messages import AssistantMessage, ToolCall, ToolResultMessage

MAX_FAILED_RESPONSES = 3
RESAMPLE_TEMPERATURE = 0.7
POLLING_TOOLS = frozenset({"shell_status"})
_HINT = "try a larger model, or set providers.tool_protocol to native/text"
REPEATED_RESULT = (
    "Not run again: this is the same call as your previous one, which succeeded (its result is above and still "
    "holds). If the task is done, give your final answer now; otherwise take the next, different step."
)


def _signature(calls: Sequence[ToolCall]) -> tuple[str, ...]:
    return tuple(sorted(json.dumps([c.name, c.arguments], sort_keys=True, default=str) for c in calls))


class RunawayGuard:
    """Counts consecutive invalid responses and repeats of one call across a run."""

    def __init__(self, limit: int = MAX_FAILED_RESPONSES) -> None:
        self.limit = limit
        self._invalid_streak = 0
        self._repeat_streak = 0
        self._last: tuple[str, ...] | None = None
        self._last_succeeded = False
        self._replies: set[str] = set()

    def said_before(self, message: AssistantMessage) -> bool:
        """Whether an earlier reply of the run had the same text and calls (recording this one)."""
        key = json.dumps([message.text.strip(), _signature(message.tool_calls)])
        seen = key in self._replies
        self._replies.add(key)
        return seen

    def repeated(self, calls: Sequence[ToolCall]) -> set[str]:
        """The ids of ``calls`` not to run: the same calls as the previous response, which all succeeded."""
        if not calls or not self._last_succeeded or any(c.name in POLLING_TOOLS for c in calls):
            return set()
        return {c.id for c in calls} if _signature(calls) == self._last else set()

    def after_tools(
        self, calls: Sequence[ToolCall], results: Mapping[str, ToolResultMessage], invalid: set[str]
    ) -> AgentError | Notice | None:
        """Record one response's calls and results; an error or a note when the run should stop here.

        ``invalid`` holds the ids of calls that could not run at all (malformed, unknown tool, bad arguments).
        """
        if not calls:
            return None
        self._invalid_streak = self._invalid_streak + 1 if all(c.id in invalid for c in calls) else 0
        failed = all(results.get(c.id) is not None and results[c.id].is_error for c in calls)
        signature = _signature(calls)
        polling = any(c.name in POLLING_TOOLS for c in calls)
        self._repeat_streak = self._repeat_streak + 1 if signature == self._last and not polling else 1
        if signature != self._last:
            self._last_succeeded = not failed
        elif not failed:
            self._last_succeeded = True
        self._last = signature
        last = results.get(calls[-1].id)
        why = _first_line(last.text) if last is not None else ""
        if self._invalid_streak >= self.limit:
            return AgentError(
                message=f"The model made invalid tool calls {self.limit} times in a row; the run stops. Last: {why}",
                hint=_HINT,
            )
        if self._repeat_streak < self.limit:
            return None
        names = ", ".join(sorted({c.name for c in calls}))
        if failed and not self._last_succeeded:
            return AgentError(
                message=f"The model repeated the same failing {names} call {self.limit} times; the run stops. "
                f"Last result: {why}",
                hint="say what to do differently, or try a larger model",
            )
        return Notice(
            text=f"The model made the same {names} call {self.limit} times in a row; the run stops here. The first "
            "call's result stands: check that it did what you asked.",
            level="warning",
        )


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
