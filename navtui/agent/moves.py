"""A move of a Python definition the request asks for is checked before the run ends, once per request.

Measured in the eval (move_function): asked to "move the function parse_duration from utils.py into a new module
timeparse.py", Qwen2.5-Coder-1.5B wrote timeparse.py with the function and said the task was done; utils.py
still defined it, and main.py, still importing it from utils, ran as before, so the check passed and nothing
told the model. When the request moves one top-level name from a Python file to another, the final answer comes,
the destination defines the name and the source still does too, the model is told so and asked once to take it
out of the source (``dropped_note`` then names the files that still import it from there, and the import to
write instead: the request's move is in the tools' context from the run's start).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.agent.hooks import AgentHooks, Nudge
from navtui.core.messages import ask_to_write
from navtui.tools.files.dropped import top_level_names

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.core.messages import AssistantMessage

MOVE_OPENING = "The move is not finished"
_FILE = r"[`'\"]?([\w./-]+\.py)[`'\"]?"
_MOVE = re.compile(
    r"\bmove\s+(?:the\s+)?(?:(?:function|class|method|constant|variable|definition)\s+)?[`'\"]?([A-Za-z_]\w*)"
    rf"(?:\(\))?[`'\"]?\s+from\s+{_FILE}\s+(?:in)?to\s+(?:(?:a|the)\s+)?(?:new\s+)?(?:(?:module|file)\s+)?{_FILE}",
    re.IGNORECASE,
)

_FROM_TO = re.compile(rf"\bfrom\s+{_FILE}\s+(?:in)?to\b", re.IGNORECASE)


@dataclass(frozen=True)
class Move:
    name: str
    source: str
    target: str


def move_in(prompt: str) -> Move | None:
    """The one move of a definition between Python files ``prompt`` asks for, if it asks for exactly one."""
    words = prompt.split("<attached_file", 1)[0]
    found = {m.groups() for m in _MOVE.finditer(words)}
    if len(found) != 1 or len(_FROM_TO.findall(words)) > 1:  # "... and g from a.py to c.py": two moves
        return None
    ((name, source, target),) = found
    return Move(name, source.lstrip("@"), target.lstrip("@")) if source != target else None


def move_message(move: Move) -> str:
    return (
        f"{MOVE_OPENING}: {move.source} still defines {move.name}, and so does {move.target}. A move takes it out "
        f"of {move.source}: the code that uses it imports it from {move.target} instead. {ask_to_write(move.source)} "
        f"without {move.name}."
    )


def _defines(cwd: Path, rel: str, name: str) -> bool:
    try:
        text = (cwd / rel).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    names = top_level_names(text)
    return names is not None and name in names


class MoveCheck(AgentHooks):
    """Asks once to finish a move when the final answer comes and the definition is in both files."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._move: Move | None = None
        self._asked = False

    def start_run(self, agent: Agent, prompt: str | None) -> None:
        if prompt is None:
            return  # a continued run keeps what its request asked for
        self._move = move_in(prompt)
        self._asked = False
        agent.ctx.moves = {self._move.name: self._move.target} if self._move else {}

    async def after_final_answer(self, agent: Agent, message: AssistantMessage) -> Nudge | None:
        move = self._move
        if move is None or self._asked or message.tool_calls or message.stop_reason != "stop":
            return None
        if not (_defines(self.cwd, move.target, move.name) and _defines(self.cwd, move.source, move.name)):
            return None  # done, or not begun (a missing new file is asked_files' business)
        self._asked = True
        return Nudge(
            message=move_message(move),
            notice=f"{move.source} still defines {move.name}; asking the model once to finish the move.",
        )
