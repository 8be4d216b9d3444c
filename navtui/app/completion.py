"""Tab completion for the prompt: slash commands and ``@path`` (the files in view, ``core/walk.py``).

File-system work here is blocking: the screen calls these functions through ``asyncio.to_thread``.
Attaching the ``@path`` files to a prompt is the agent's (``navtui.agent.attachments``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from navtui.core.walk import RepoRules


@dataclass
class Completion:
    """Replace ``line[start:end]`` with ``text``; ``choices`` lists the candidates when it was ambiguous."""

    start: int
    end: int
    text: str
    choices: list[str] = field(default_factory=list)


def common_prefix(words: list[str]) -> str:
    return os.path.commonprefix(words) if words else ""


def complete_command(line: str, cursor: int, names: list[str]) -> Completion | None:
    """``/mo`` -> ``/model``; only the first word of a prompt that starts with ``/``."""
    head = line[:cursor]
    if not head.startswith("/") or " " in head:
        return None
    matches = sorted(name for name in names if name.startswith(head[1:]))
    if not matches:
        return None
    if len(matches) == 1:
        return Completion(0, cursor, "/" + matches[0] + " ")
    return Completion(0, cursor, "/" + common_prefix(matches), ["/" + m for m in matches])


def _at_token(line: str, cursor: int) -> tuple[int, str] | None:
    head = line[:cursor]
    at = head.rfind("@")
    if at < 0 or (at > 0 and not head[at - 1].isspace()) or any(c.isspace() for c in head[at + 1 :]):
        return None
    return at, head[at + 1 :]


def complete_path(line: str, cursor: int, cwd: Path) -> Completion | None:
    """``@src/ma`` -> ``@src/main.py``; directories complete with a trailing ``/``. Blocking."""
    found = _at_token(line, cursor)
    if found is None:
        return None
    at, partial = found
    directory, _, stem = partial.rpartition("/")
    base = (cwd / directory) if directory else cwd
    rules = RepoRules(cwd)
    try:
        names = []
        with os.scandir(base) as entries:
            for entry in entries:
                if not entry.name.startswith(stem):
                    continue
                if entry.name.startswith(".") and not stem.startswith("."):
                    continue
                is_dir = entry.is_dir()
                if rules.ignored(Path(entry.path), is_dir):
                    continue
                names.append(entry.name + ("/" if is_dir else ""))
    except OSError:
        return None
    if not names:
        return None
    names.sort()
    prefix = directory + "/" if directory else ""
    if len(names) == 1:
        suffix = "" if names[0].endswith("/") else " "
        return Completion(at, cursor, "@" + prefix + names[0] + suffix)
    return Completion(at, cursor, "@" + prefix + common_prefix(names), [prefix + n for n in names[:50]])
