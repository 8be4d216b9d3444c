"""WATCHDOG.md: review guidance that only the advisor sees.

Loaded: ``~/.navtui/WATCHDOG.md``, then for every directory from the repository root (or home, outside a
repository) down to cwd, ``<dir>/WATCHDOG.md`` and ``<dir>/.navtui/WATCHDOG.md``. All files load, farthest
first, each wrapped in ``<attention>``. ``@path`` imports are expanded (relative to the importing file, ``~/``
from home); imports inside code spans and fences stay literal; cycles and unreadable files are left as written.

The advisor reads these files with no tool call and no approval, so a repository's file, and every file it imports,
must be a regular file inside the repository (outside one: inside the folder the file was found in), links
followed (``config/repo_files.py``): ``@~/.netrc`` or a ``WATCHDOG.md`` that links to ``/proc/self/environ`` stays
unread. Only the user's own ``~/.navtui/WATCHDOG.md`` imports from anywhere.
"""

from __future__ import annotations

import re
from pathlib import Path

from navtui.config.paths import find_repo_root, navtui_home
from navtui.config.repo_files import read_regular

MAX_WATCHDOG_BYTES = 64 * 1024
_IMPORT = re.compile(r"(?<![\w`])@((?:~/|\.{0,2}/)?[\w./~-]+\.\w+)")
_FENCE = re.compile(r"^(```|~~~)")
_CODE_SPAN = re.compile(r"`[^`]*`")


def _candidate_dirs(cwd: Path) -> list[Path]:
    cwd = cwd.resolve()
    stop = find_repo_root(cwd) or Path.home().resolve()
    dirs = [cwd]
    while dirs[-1] != stop and dirs[-1].parent != dirs[-1]:
        if not dirs[-1].is_relative_to(stop):
            return [cwd]
        dirs.append(dirs[-1].parent)
    return list(reversed(dirs))


def discover_watchdog_files(cwd: Path) -> list[tuple[Path, Path | None]]:
    """Each file with the folder it and its imports must lie in (None: the user's own file, from anywhere)."""
    found: list[tuple[Path, Path | None]] = []
    user = navtui_home() / "WATCHDOG.md"
    if user.is_file():
        found.append((user, None))
    repo = find_repo_root(cwd.resolve())
    for directory in _candidate_dirs(cwd):
        for candidate in (directory / "WATCHDOG.md", directory / ".navtui" / "WATCHDOG.md"):
            if candidate.is_file() and all(candidate != path for path, _ in found):
                found.append((candidate, repo or directory))
    return found


def _read(path: Path, inside: Path | None) -> str:
    data, _ = read_regular(path, MAX_WATCHDOG_BYTES, inside=inside)
    return data.decode("utf-8", errors="replace")


def expand_imports(text: str, base: Path, seen: frozenset[Path] = frozenset(), inside: Path | None = None) -> str:
    """Replace ``@path`` references with the file's contents, outside code spans and fences; with ``inside``, only
    files that lie in that folder (links followed) are read."""
    out: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
            out.append(line)
            continue
        if in_fence or "@" not in line:
            out.append(line)
            continue
        spans = [m.span() for m in _CODE_SPAN.finditer(line)]

        def replace(match: re.Match[str], spans: list[tuple[int, int]] = spans) -> str:
            if any(start <= match.start() < end for start, end in spans):
                return match.group(0)
            ref = match.group(1)
            target = (Path.home() / ref[2:]) if ref.startswith("~/") else (base / ref)
            try:
                resolved = target.resolve()
                if resolved in seen:
                    return match.group(0)
                content = _read(resolved, inside)
            except OSError:
                return match.group(0)
            return expand_imports(content.strip(), resolved.parent, seen | {resolved}, inside)

        out.append(_IMPORT.sub(replace, line))
    return "\n".join(out)


def load_watchdog_blocks(cwd: Path) -> list[str]:
    blocks = []
    for path, inside in discover_watchdog_files(cwd):
        try:
            text = _read(path, inside)
        except OSError:
            continue
        expanded = expand_imports(text.strip(), path.parent, frozenset({path.resolve()}), inside)
        if expanded.strip():
            blocks.append(f"Especially pay attention to:\n<attention>\n{expanded.strip()}\n</attention>")
    return blocks
