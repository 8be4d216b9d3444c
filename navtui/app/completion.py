"""Tab completion for the prompt (slash commands, ``@path``) and attaching ``@path`` files to a prompt.

File-system work here is blocking: the screen calls these functions through ``asyncio.to_thread``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

ATTACH_LIMIT = 100_000  # bytes of one attached file
_AT_TOKEN = re.compile(r"(?:^|(?<=\s))@(\S+)")
_SKIP_DIRS = {".git", "__pycache__", "node_modules", ".venv", ".mypy_cache", ".ruff_cache"}


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
    try:
        names = []
        with os.scandir(base) as entries:
            for entry in entries:
                if not entry.name.startswith(stem) or entry.name in _SKIP_DIRS:
                    continue
                if entry.name.startswith(".") and not stem.startswith("."):
                    continue
                names.append(entry.name + ("/" if entry.is_dir() else ""))
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


def attached_paths(text: str) -> list[str]:
    """The ``@path`` references in a prompt, in order, without repeats."""
    seen: list[str] = []
    for match in _AT_TOKEN.finditer(text):
        path = match.group(1).rstrip(".,;:!?)")
        if path and path not in seen:
            seen.append(path)
    return seen


def expand_attachments(text: str, cwd: Path) -> tuple[str, list[str], list[str]]:
    """Append the contents of every ``@path`` that names a readable text file. Blocking.

    Returns (text for the model, attached paths, problems to tell the user).
    """
    blocks: list[str] = []
    attached: list[str] = []
    problems: list[str] = []
    for ref in attached_paths(text):
        path = (cwd / ref).resolve()
        if not path.is_file():
            continue  # an @mention that is not a file (an e-mail, a decorator) stays plain text
        try:
            data = path.read_bytes()[: ATTACH_LIMIT + 1]
        except OSError as exc:
            problems.append(f"@{ref}: cannot read ({exc.strerror})")
            continue
        if b"\0" in data[:8192]:
            problems.append(f"@{ref}: a binary file, not attached")
            continue
        body = data[:ATTACH_LIMIT].decode("utf-8", errors="replace")
        note = f' truncated="{ATTACH_LIMIT} bytes"' if len(data) > ATTACH_LIMIT else ""
        blocks.append(f'<attached_file path="{ref}"{note}>\n{body.rstrip()}\n</attached_file>')
        attached.append(ref)
    if not blocks:
        return text, [], problems
    return text.rstrip() + "\n\n" + "\n".join(blocks) + "\n", attached, problems
