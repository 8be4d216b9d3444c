"""Which files of a repository exist for navtui: one walker for the tools, the index and ``@path`` completion.

A path is out of view when it is (or lies under) a version-control directory, a tool or dependency
directory (``node_modules``, ``.venv``, caches ...), a virtualenv (a directory holding ``pyvenv.cfg``), or
when ``.gitignore`` / ``.ignore`` / ``.git/info/exclude`` say so (ripgrep's rules: deeper files win, ``.ignore``
over ``.gitignore``, the last matching pattern of a file wins). A path given explicitly is still searched:
the rules apply to what lies below it. Binary files are told by a NUL byte in their first 8 KB (git's
heuristic). Symlinks are never followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

SNIFF_BYTES = 8192
IGNORE_FILES = (".gitignore", ".ignore")  # later entries take precedence
VCS_DIRS = frozenset({".git", ".hg", ".svn"})
# Directories no one means when they search their code, whatever .gitignore says.
TOOL_DIRS = frozenset(
    {
        ".navtui",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".idea",
        ".vscode",
    }
)
SKIPPED_DIRS = VCS_DIRS | TOOL_DIRS


def find_repo_root(start: Path) -> Path | None:
    """The nearest ancestor (or ``start``) holding a ``.git`` entry."""
    for path in (start, *start.parents):
        if (path / ".git").exists():
            return path
    return None


def read_ignore_file(path: Path) -> str | None:
    """An ignore file's text; ``None`` when it is missing, unreadable or no regular file. A command can leave a
    named pipe in its place (``mkfifo src/.gitignore``): it is opened without waiting for a writer, and refused,
    since reading it held every walk (the index, the find tool, completion) and the turn's snapshot for ever."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def is_binary(data: bytes) -> bool:
    """A NUL byte in the first 8 KB marks a file as binary (git's own heuristic)."""
    return b"\0" in data[:SNIFF_BYTES]


def skipped_dir(path: Path) -> bool:
    """A VCS, tool or dependency directory, or a virtualenv: never walked into."""
    return path.name in SKIPPED_DIRS or (path / "pyvenv.cfg").exists()


@dataclass(frozen=True)
class _Rules:
    """One directory's ignore rules, linked to the next directory above it that has some (``None``: the top)."""

    directory: str
    specs: list[GitIgnoreSpec]
    above: _Rules | None


class RepoRules:
    """Answers "is this path out of view?" for paths under ``start``'s repository (or ``start`` outside one).

    A path is matched against the rules of each folder above it, up to the top. Only the folders that have rules
    are visited, through a chain kept per folder (``_chain``), and the path relative to each is a slice of the
    path's text: comparing every ancestor with ``Path.relative_to`` cost O(depth²) per entry, so a repository's
    folder 500 deep (``d/d/d/...``) held the walk (the find tool, ``@`` completion, the index) for 40 s, 1,500
    deep for about half an hour.
    """

    def __init__(self, start: Path, *, respect_ignore_files: bool = True) -> None:
        start = start.resolve()
        self.top = find_repo_root(start) or start
        self.respect_ignore_files = respect_ignore_files
        self._specs: dict[Path, list[GitIgnoreSpec]] = {}
        self._chains: dict[str, _Rules | None] = {}
        self._dirs: dict[str, bool] = {}
        self._top = str(self.top)
        self._below_top = self._top.rstrip(os.sep) + os.sep

    def _dir_specs(self, directory: Path) -> list[GitIgnoreSpec]:
        cached = self._specs.get(directory)
        if cached is not None:
            return cached
        sources = [directory / name for name in IGNORE_FILES]
        if directory == self.top:
            sources.insert(0, directory / ".git" / "info" / "exclude")
        from navtui.core.globs import ignore_spec  # pathspec: ~30 modules, loaded on the first walk

        specs = []
        for source in sources:
            text = read_ignore_file(source)
            if text is not None:
                specs.append(ignore_spec(text.splitlines()))  # a hostile rule cannot hold the walk
        self._specs[directory] = specs
        return specs

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """This entry itself is out of view (its parent directories are not looked at: ``hidden`` does)."""
        if path.name in VCS_DIRS or (is_dir and skipped_dir(path)):
            return True
        if not self.respect_ignore_files:
            return False
        text = str(path)
        rules = self._chain(os.path.dirname(text))
        while rules is not None:
            rel = text[len(rules.directory) :].lstrip(os.sep).replace(os.sep, "/") + ("/" if is_dir else "")
            for spec in reversed(rules.specs):
                result = spec.check_file(rel)
                if result.include is not None:
                    return bool(result.include)
            rules = rules.above
        return False

    def _chain(self, directory: str) -> _Rules | None:
        """The rules of ``directory`` and of the folders above it up to the top, nearest first (folders without
        rules left out); None when none has any, or ``directory`` is not under the top."""
        if directory in self._chains:
            return self._chains[directory]
        pending: list[str] = []
        current = directory
        while current not in self._chains:
            if current != self._top and not current.startswith(self._below_top):
                self._chains[current] = None  # outside the repository: no rules apply
                break
            pending.append(current)
            parent = os.path.dirname(current)
            if current == self._top or parent == current:
                self._chains[parent] = None  # the top's rules are the last
                break
            current = parent
        known = self._chains[current] if current not in pending else None
        for folder in reversed(pending):
            specs = self._dir_specs(Path(folder))
            known = _Rules(folder, specs, known) if specs else known
            self._chains[folder] = known
        return self._chains[directory]

    def hidden(self, root: Path, rel: str) -> bool:
        """``root / rel`` or a directory between ``root`` and it is out of view (``root`` itself never is)."""
        path = str(root)
        for part in rel.split("/")[:-1]:
            path = os.path.join(path, part)
            decided = self._dirs.get(path)
            if decided is None:
                decided = self._dirs[path] = self.ignored(Path(path), True)
            if decided:
                return True
        return self.ignored(root / rel, False)


@dataclass(frozen=True)
class WalkedFile:
    rel: str  # POSIX path relative to the walk's root
    path: Path
    mtime_ns: int
    size: int


def walk_files(root: Path, *, respect_ignore_files: bool = True) -> Iterator[WalkedFile]:
    """Every file in view under ``root``, depth first in name order (like ``rg --files --sort path``)."""
    root = root.resolve()
    rules = RepoRules(root, respect_ignore_files=respect_ignore_files)
    stack: list[Iterator[os.DirEntry[str]]] = [_entries(root)]
    prefixes = [""]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            prefixes.pop()
            continue
        try:
            if entry.is_symlink():
                continue
            path = Path(entry.path)
            is_dir = entry.is_dir(follow_symlinks=False)
            if rules.ignored(path, is_dir):
                continue
            rel = prefixes[-1] + entry.name
            if is_dir:
                stack.append(_entries(path))
                prefixes.append(rel + "/")
            elif entry.is_file(follow_symlinks=False):
                stat = entry.stat(follow_symlinks=False)
                yield WalkedFile(rel, path, stat.st_mtime_ns, stat.st_size)
        except OSError:
            continue  # vanished or unreadable while walking


def _entries(directory: Path) -> Iterator[os.DirEntry[str]]:
    try:
        return iter(sorted(os.scandir(directory), key=lambda e: e.name))
    except OSError:
        return iter(())
