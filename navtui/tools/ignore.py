"""gitignore-aware walking in pure Python (pathspec), the fallback when ripgrep is missing.

Rules come from every ``.gitignore`` and ``.ignore`` between the repository root and the file (deeper files
win, ``.ignore`` over ``.gitignore``) plus ``.git/info/exclude``; ``.git`` itself is always skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from pathspec import GitIgnoreSpec

from navtui.config.paths import find_repo_root

IGNORE_FILES = (".gitignore", ".ignore")  # later entries take precedence
ALWAYS_SKIPPED = {".git"}


class IgnoreRules:
    def __init__(self, start: Path) -> None:
        self.top = find_repo_root(start) or start
        self._specs: dict[Path, list[GitIgnoreSpec]] = {}

    def _dir_specs(self, directory: Path) -> list[GitIgnoreSpec]:
        cached = self._specs.get(directory)
        if cached is not None:
            return cached
        sources = [directory / name for name in IGNORE_FILES]
        if directory == self.top:
            sources.insert(0, directory / ".git" / "info" / "exclude")
        specs = []
        for source in sources:
            try:
                lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            specs.append(GitIgnoreSpec.from_lines(lines))
        self._specs[directory] = specs
        return specs

    def ignored(self, path: Path, is_dir: bool) -> bool:
        if path.name in ALWAYS_SKIPPED:
            return True
        directory = path.parent
        while True:
            if directory == self.top or directory.is_relative_to(self.top):
                rel = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
                for spec in reversed(self._dir_specs(directory)):
                    result = spec.check_file(rel)
                    if result.include is not None:
                        return bool(result.include)
            if directory == self.top or directory == directory.parent:
                return False
            directory = directory.parent


def _sorted_entries(directory: Path) -> Iterator[os.DirEntry[str]]:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return iter(())
    return iter(entries)


def walk_files(root: Path, *, respect_ignore: bool = True) -> Iterator[Path]:
    """Files under ``root``, depth first in name order (like ``rg --sort path``), ignored directories pruned,
    symlinks not followed."""
    rules = IgnoreRules(root) if respect_ignore else None
    stack = [_sorted_entries(root)]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        if entry.is_symlink() or entry.name in ALWAYS_SKIPPED:
            continue
        path = Path(entry.path)
        is_dir = entry.is_dir(follow_symlinks=False)
        if rules is not None and rules.ignored(path, is_dir):
            continue
        if is_dir:
            stack.append(_sorted_entries(path))
        elif entry.is_file(follow_symlinks=False):
            yield path
