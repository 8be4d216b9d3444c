"""What the prompt can complete: slash commands, a command's argument, and ``@path`` (the files in view,
``core/walk.py``). The completion list under the prompt shows the candidates; Tab and Enter take one.

File-system work here is blocking: the screen calls ``complete_path`` through ``asyncio.to_thread``.
Attaching the ``@path`` files to a prompt is the agent's (``navtui.agent.attachments``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from navtui.core.display import display_safe, shown_byte_forms
from navtui.core.walk import RepoRules

if TYPE_CHECKING:
    from navtui.app.file_finder import FileList

CompletionKind = Literal["command", "argument", "path"]
PATH_CANDIDATES = 50


@dataclass(frozen=True)
class Candidate:
    """One thing the token being typed can become."""

    value: str  # replaces the token: "/model", "gruvbox", "@src/main.py"
    detail: str = ""  # shown beside it: a command's help, "folder"
    ends_token: bool = True  # taking it adds a space (a folder does not: its files come next)
    submits: bool = False  # Enter on it also sends the prompt (a command that needs no argument, an argument)


@dataclass
class Completion:
    """Candidates for ``line[start:end]`` (the token under the cursor)."""

    start: int
    end: int
    typed: str
    kind: CompletionKind
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def common(self) -> str:
        """The longest text every candidate starts with (what Tab fills in when several remain)."""
        return os.path.commonprefix([c.value for c in self.candidates]) if self.candidates else self.typed

    @property
    def offers_more(self) -> bool:
        """Something to show: a candidate that is not exactly what is typed already."""
        return any(c.value != self.typed for c in self.candidates)


def completable(line: str, cursor: int) -> bool:
    """Cheap check before any work: the cursor is in a slash command line or an ``@path`` token."""
    return line[:cursor].startswith("/") or _at_token(line, cursor) is not None


def complete_command(
    line: str,
    cursor: int,
    names: Sequence[str],
    help: Mapping[str, str] | None = None,
    *,
    submits: frozenset[str] = frozenset(),
) -> Completion | None:
    """``/mo`` -> ``/model``, ``/models``: the first word of a prompt that starts with ``/``.

    ``submits`` names the commands Enter runs at once when picked (those that need no argument)."""
    head = line[:cursor]
    if not head.startswith("/") or " " in head:
        return None
    typed = head[1:]
    matches = sorted(name for name in names if name.startswith(typed))
    if not matches:
        return None
    help = help or {}
    candidates = [Candidate("/" + name, help.get(name, ""), submits=name in submits) for name in matches]
    return Completion(0, cursor, head, "command", candidates)


def argument_prefix(line: str, cursor: int) -> tuple[str, int, str] | None:
    """(command name, where its argument starts, the argument typed so far) for ``/name arg…``."""
    head = line[:cursor]
    if not head.startswith("/") or " " not in head:
        return None
    name, _, typed = head[1:].partition(" ")
    return name, len(name) + 2, typed


def complete_argument(line: str, cursor: int, choices: Sequence[str]) -> Completion | None:
    """``/theme gr`` -> ``gruvbox``: ``choices`` are the command's known arguments (case is ignored)."""
    found = argument_prefix(line, cursor)
    if found is None:
        return None
    _name, start, typed = found
    wanted = typed.lower()
    matches = [choice for choice in choices if choice.lower().startswith(wanted)]
    if not matches:
        return None
    return Completion(start, cursor, typed, "argument", [Candidate(m, submits=True) for m in matches])


def _at_token(line: str, cursor: int) -> tuple[int, str] | None:
    """Where the ``@path`` under the cursor starts, and what follows the ``@`` (``"my no`` for a quoted path, whose
    spaces belong to it until its closing quote)."""
    head = line[:cursor]
    at = head.rfind("@")
    if at < 0 or (at > 0 and not head[at - 1].isspace()):
        return None
    typed = head[at + 1 :]
    if typed.startswith('"'):
        return None if '"' in typed[1:] or "\n" in typed else (at, typed)
    return None if any(c.isspace() for c in typed) else (at, typed)


def complete_resource(line: str, cursor: int, resources: Sequence[tuple[str, str]]) -> Completion | None:
    """``@docs:no`` -> ``@docs:notes://today``: ``resources`` are an MCP server's ``server:uri`` and what it is."""
    found = _at_token(line, cursor)
    if found is None:
        return None
    at, partial = found
    candidates = [Candidate(f"@{name}", about) for name, about in resources if name.startswith(partial)]
    return Completion(at, cursor, line[at:cursor], "path", candidates[:PATH_CANDIDATES]) if candidates else None


def complete_path(line: str, cursor: int, cwd: Path, files: FileList | None = None) -> Completion | None:
    """``@src/ma`` -> ``@src/maps/``, ``@src/main.py``: the folder's entries that start so (folders first, ending
    with ``/``), then with ``files`` the repository's files the fuzzy finder ranks for it (``@helpers`` ->
    ``@src/util/helpers.py``). ``@`` alone or ``@dir/`` lists the folder. Blocking."""
    found = _at_token(line, cursor)
    if found is None:
        return None
    at, typed = found
    partial = typed.removeprefix('"')
    names = _folder_entries(cwd, partial)
    if files is not None and not partial:
        files.warm()  # the query that follows needs the list
    elif files is not None and not partial.endswith("/") and len(names) < PATH_CANDIDATES:
        listed = set(names)
        found_files = files.index().rank(partial, PATH_CANDIDATES)
        names += [rel for rel in found_files if rel not in listed][: PATH_CANDIDATES - len(names)]
    if not names:
        return None
    quote = typed.startswith('"')
    candidates = [_path_candidate(name, quote) for name in names[:PATH_CANDIDATES]]
    return Completion(at, cursor, line[at:cursor], "path", candidates)


def _path_candidate(name: str, quote: bool) -> Candidate:
    """``@src/main.py``; a path with a space (or typed after ``@"``) in quotes, so that it is attached whole:
    ``@"my notes.md"``, ``@"my dir/`` (a folder's quote closes with the file chosen in it)."""
    folder = name.endswith("/")
    quote = quote or any(c.isspace() for c in name)
    value = f'@"{name}' + ("" if folder else '"') if quote else f"@{name}"
    return Candidate(value, "folder" if folder else "", ends_token=not folder)


def _on_disk(path: Path) -> Path:
    """``path`` as typed, else the folder whose name is not UTF-8 and shows as typed (``display_safe``)."""
    if path.exists():
        return path
    return next((Path(raw) for raw in shown_byte_forms(str(path)) if Path(raw).exists()), path)


def _folder_entries(cwd: Path, partial: str) -> list[str]:
    """The entries of ``partial``'s folder whose names start with its last part, as paths (folders first)."""
    directory, _, stem = partial.rpartition("/")
    base = _on_disk(cwd / directory) if directory else cwd
    rules = RepoRules(cwd)
    try:
        names = []
        with os.scandir(base) as entries:
            for entry in entries:
                # The prompt holds a name that is not UTF-8 as it shows it (\xff): typed on, it is matched so.
                if not (entry.name.startswith(stem) or display_safe(entry.name).startswith(stem)):
                    continue
                if entry.name.startswith(".") and not stem.startswith("."):
                    continue
                is_dir = entry.is_dir()
                if rules.ignored(Path(entry.path), is_dir):
                    continue
                names.append(entry.name + ("/" if is_dir else ""))
    except OSError:
        return []
    names.sort(key=lambda name: (not name.endswith("/"), name))  # folders first, as a file picker lists them
    prefix = directory + "/" if directory else ""
    return [prefix + name for name in names]
