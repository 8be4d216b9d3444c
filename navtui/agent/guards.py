"""When a run must stop although the model keeps going.

A small model can call a tool that does not exist, send arguments that do not validate, or repeat the same
failing call, forever: without a limit it burns the whole ``max_turns`` budget (and the user's patience). Three
responses in a row whose calls all failed before running, or the same failing call three times in a row, end
the run with an error that says why (headless: exit code 1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from navtui.core.events import AgentError
from navtui.core.messages import ToolCall, ToolResultMessage

MAX_FAILED_RESPONSES = 3
_HINT = "try a larger model, or set providers.tool_protocol to native/text"


class RunawayGuard:
    """Counts consecutive invalid responses and repeats of one failing call across a run."""

    def __init__(self, limit: int = MAX_FAILED_RESPONSES) -> None:
        self.limit = limit
        self._invalid_streak = 0
        self._repeat_streak = 0
        self._last_failure: tuple[str, ...] | None = None

    def after_tools(
        self, calls: Sequence[ToolCall], results: Mapping[str, ToolResultMessage], invalid: set[str]
    ) -> AgentError | None:
        """Record one response's calls and results; an error when the run should stop here.

        ``invalid`` holds the ids of calls that could not run at all (malformed, unknown tool, bad arguments).
        """
        if not calls:
            return None
        self._invalid_streak = self._invalid_streak + 1 if all(c.id in invalid for c in calls) else 0
        failed = all(results.get(c.id) is not None and results[c.id].is_error for c in calls)
        signature = tuple(sorted(json.dumps([c.name, c.arguments], sort_keys=True, default=str) for c in calls))
        if failed and signature == self._last_failure:
            self._repeat_streak += 1
        else:
            self._repeat_streak = 1 if failed else 0
        self._last_failure = signature if failed else None
        last = results.get(calls[-1].id)
        why = _first_line(last.text) if last is not None else ""
        if self._invalid_streak >= self.limit:
            return AgentError(
                message=f"The model made invalid tool calls {self.limit} times in a row; the run stops. Last: {why}",
                hint=_HINT,
            )
        if self._repeat_streak >= self.limit:
            names = ", ".join(sorted({c.name for c in calls}))
            return AgentError(
                message=f"The model repeated the same failing {names} call {self.limit} times; the run stops. "
                f"Last result: {why}",
                hint="say what to do differently, or try a larger model",
            )
        return None


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
