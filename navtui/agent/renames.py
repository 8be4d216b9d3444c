"""A rename the request asks for is checked for leftovers before the run ends, once per request.

Measured in the eval: asked to "rename the function compute_total to sum_prices everywhere" (or a class in
three named files), Qwen2.5-Coder 1.5B wrote the definition's file, said the task was done, and left the
callers importing the old name. When the request renames one identifier to another, the final answer comes,
the new name is in use somewhere and the old one is still used as a whole word, the model is told where (files
and lines) and asked once to finish. The files the request names bound the search ("in models.py and app.py");
otherwise the workspace's text files are searched (ignore files respected, at most ``MAX_FILES``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.agent.hooks import AgentHooks, Nudge
from navtui.core.messages import ask_to_write
from navtui.core.walk import is_binary, walk_files
from navtui.core.wording import counted

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.core.messages import AssistantMessage

RENAME_OPENING = "The rename is not finished"
MAX_FILES = 2_000
MAX_BYTES = 256 * 1024
_NAME = r"[`'\"]?([A-Za-z_]\w*)[`'\"]?"
_RENAME = re.compile(
    r"\brename\s+(?:the\s+)?(?:(?:python\s+)?(?:function|class|method|variable|constant|field|attribute|type|"
    r"module|identifier)\s+)?" + _NAME + r"\s+(?:to|into|as)\s+" + _NAME + r"(?!\w|\.\w)",
    re.IGNORECASE,
)
_MORE = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)" + _NAME + r"\s+(?:to|into|as)\s+" + _NAME + r"(?!\w|\.\w)", re.I)
_PATH = re.compile(r"[\w./-]+\.\w+")


@dataclass(frozen=True)
class Rename:
    old: str
    new: str
    scope: tuple[str, ...]  # the files the request names (empty: the workspace)


def rename_in(prompt: str, cwd: Path) -> Rename | None:
    """The one identifier rename ``prompt`` asks for, if it asks for exactly one."""
    words = prompt.split("<attached_file", 1)[0]
    matches = list(_RENAME.finditer(words))
    found = {(m.group(1), m.group(2)) for m in matches}
    if len(found) != 1 or any(_MORE.match(words, m.end()) for m in matches):
        return None
    ((old, new),) = found
    if old == new or old.lower() in {"it", "this", "that", "them", "the"}:
        return None
    scope = tuple(dict.fromkeys(p.lstrip("@") for p in _PATH.findall(words) if (cwd / p.lstrip("@")).is_file()))
    return Rename(old, new, scope)


def rename_message(rename: Rename, left: dict[str, list[int]]) -> str:
    places = []
    for path, lines in left.items():
        numbers = ", ".join(str(n) for n in lines[:5]) + (", ..." if len(lines) > 5 else "")
        places.append(f"{path} (line{'s' if len(lines) > 1 else ''} {numbers})")
    first = next(iter(left))
    # Says how, naming the file: without it the edits protocol's reminder named the file the model's answer
    # talked of, the one it had already renamed, and the 1.5B sent that one again.
    return (
        f"{RENAME_OPENING}: {rename.old} is still used in {_listing(places)}. Change it to {rename.new} there too. "
        f"{ask_to_write(first)}; then the next file the same way."
    )


def _listing(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


class RenameCheck(AgentHooks):
    """Asks once to finish a rename when the final answer comes and the old name is still used."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._rename: Rename | None = None
        self._asked = False

    def start_run(self, agent: Agent, prompt: str | None) -> None:
        if prompt is None:
            return  # a continued run keeps what its request asked for
        self._rename = rename_in(prompt, self.cwd)
        self._asked = False

    async def after_final_answer(self, agent: Agent, message: AssistantMessage) -> Nudge | None:
        rename = self._rename
        if rename is None or self._asked or message.tool_calls or message.stop_reason != "stop":
            return None
        left, started = _uses(self.cwd, rename)
        if not left or not started:
            return None  # done, or never begun (a claim of it is claims.py's business)
        self._asked = True
        return Nudge(
            message=rename_message(rename, left),
            notice=f"{rename.old} is still used in {counted(len(left), 'file')}; asking the model once to finish the rename.",
        )


def _uses(cwd: Path, rename: Rename) -> tuple[dict[str, list[int]], bool]:
    """Where the old name is still used (path → line numbers), and whether the new name is used anywhere."""
    old = re.compile(rf"(?<![\w]){re.escape(rename.old)}(?!\w)")
    new = re.compile(rf"(?<![\w]){re.escape(rename.new)}(?!\w)")
    paths = [(p, cwd / p) for p in rename.scope] if rename.scope else _workspace_files(cwd)
    left: dict[str, list[int]] = {}
    started = False
    for rel, path in paths:
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if len(data) > MAX_BYTES or is_binary(data):
            continue
        text = data.decode("utf-8", errors="replace")
        started = started or new.search(text) is not None
        lines = [n for n, line in enumerate(text.splitlines(), 1) if old.search(line)]
        if lines:
            left[rel] = lines
    return left, started


def _workspace_files(cwd: Path) -> list[tuple[str, Path]]:
    files: list[tuple[str, Path]] = []
    for walked in walk_files(cwd):
        if len(files) >= MAX_FILES:
            break
        if walked.size <= MAX_BYTES:
            files.append((walked.rel, walked.path))
    return files
