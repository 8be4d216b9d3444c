"""``@`` completion's fuzzy finder: the repository's files, as the tools' ``find`` lists them, ranked for a query.

``@helpers`` finds ``src/util/helpers.py``: every character of the query appears in the path in order (fzf's rule;
smart case: an upper-case letter makes the match case-sensitive). Matches rank by quality first: the file's name
is the query (with or without its extension), starts with it, holds it; the path holds it as typed; the name
holds its letters in order; the path does. Within a rank: how tightly the letters sit, how recently the file
changed (an hour, a day, a week), how short the path is.

The list comes from ripgrep (``rg --files``, the ``find`` tool's walk: ``.gitignore``, ``.ignore`` and the
directories navtui never enters) or, without it, from ``core/walk.py``. It is walked once and reused; once older
than ``MAX_AGE`` the next query gets the old list while a thread walks again. Matching runs over one joined
string per rank with ``re`` (in C), so Python only touches the paths that match; a rank that already fills the
list ends the search. Everything here blocks: the screen calls it through ``asyncio.to_thread``.
``bench/bench_file_finder.py`` measures it on 50,000 files.
"""

from __future__ import annotations

import bisect
import heapq
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from navtui.core.walk import walk_files

MAX_AGE = 10.0  # seconds a walk is reused before the next query starts another
MAX_FILES = 200_000  # a walk stops here (a home directory opened by mistake)
_RECENT = ((3600, 3), (86_400, 2), (7 * 86_400, 1))  # changed within an hour, a day, a week


def _ripgrep_files(root: Path) -> list[str] | None:
    """``rg --files`` under ``root`` with the find tool's flags; None without ripgrep or when it fails."""
    from navtui.tools.files import ripgrep

    rg = ripgrep.find_rg()
    if rg is None:
        return None
    try:
        done = subprocess.run(
            [rg, *ripgrep.COMMON_FLAGS, "--files"], cwd=root, capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode not in (0, 1):  # 1: no files at all
        return None
    listed = [line.removeprefix("./") for line in done.stdout.decode("utf-8", "replace").splitlines() if line]
    return _outside_virtualenvs(root, listed)[:MAX_FILES]


def _outside_virtualenvs(root: Path, listed: list[str]) -> list[str]:
    """Drop files under a virtualenv (a directory holding ``pyvenv.cfg``), which no glob can name for rg.

    The walker's rule (``core/walk.py``), asked once per directory rather than once per file.
    """
    folders: set[str] = set()
    for rel in listed:
        folder = rel.rpartition("/")[0]
        while folder and folder not in folders:
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    venvs = {folder for folder in folders if os.path.exists(os.path.join(root, folder, "pyvenv.cfg"))}
    if not venvs:
        return listed
    return [rel for rel in listed if not any(rel.startswith(venv + "/") for venv in venvs)]


def _walk(root: Path) -> list[tuple[str, float]]:
    """(path, mtime) of every file in view under ``root``."""
    listed = _ripgrep_files(root)
    if listed is None:
        walked = []
        for item in walk_files(root):
            walked.append((item.rel, item.mtime_ns / 1e9))
            if len(walked) >= MAX_FILES:
                break
        return walked
    with_times = []
    for rel in listed:
        try:
            with_times.append((rel, os.stat(root / rel, follow_symlinks=False).st_mtime))
        except OSError:
            continue  # gone since rg listed it
    return with_times


class FileIndex:
    """One walk's files, joined for matching: paths and names, as typed and in lower case, one per line."""

    def __init__(self, files: list[tuple[str, float]], *, now: float | None = None) -> None:
        now = time.time() if now is None else now
        self.paths = [rel for rel, _ in files]
        names = [rel.rpartition("/")[2] for rel in self.paths]
        self.recent = [next((bucket for age, bucket in _RECENT if now - mtime < age), 0) for _, mtime in files]
        self._text = {False: ("\n".join(self.paths), "\n".join(names))}
        lower_paths, lower_names = (text.lower() for text in self._text[False])
        self._text[True] = (lower_paths, lower_names)
        self._starts = {"path": _line_starts(self.paths), "name": _line_starts(names)}
        self._names = {False: names, True: [name.lower() for name in names]}

    def __len__(self) -> int:
        return len(self.paths)

    def rank(self, query: str, limit: int) -> list[str]:
        """The best ``limit`` paths for ``query``, best first."""
        if not query or "\n" in query:
            return []
        fold = query == query.lower()
        paths_text, names_text = self._text[fold]
        literal = re.compile(re.escape(query))
        # "h[^e\n]*+e[^l\n]*+l…": each letter's first occurrence after the last one's, without backtracking
        fuzzy = re.compile(
            re.escape(query[0]) + "".join(f"[^{re.escape(char)}\n]*+{re.escape(char)}" for char in query[1:])
        )
        chosen: list[str] = []
        seen: set[int] = set()
        searches = [(literal, names_text, "name", True), (literal, paths_text, "path", False)]
        if len(query) > 1:  # one letter in order is that letter somewhere: the literal searches found it all
            searches += [(fuzzy, names_text, "name", False), (fuzzy, paths_text, "path", False)]
        for tier, (pattern, text, lines, by_name) in enumerate(searches):
            scored = []
            for line, start, span in self._matches(pattern, text, lines):
                if line in seen:
                    continue
                seen.add(line)
                rank = tier * 3
                if by_name:  # the name is the query, starts with it, or holds it
                    rank = 2
                    if start == 0:
                        name = self._names[fold][line]
                        rank = 0 if name == query or name.partition(".")[0] == query else 1
                scored.append((rank, span if tier >= 2 else 0, -self.recent[line], len(self.paths[line]), line))
            best = heapq.nsmallest(limit - len(chosen), scored)
            chosen.extend(self.paths[item[-1]] for item in best)
            if len(chosen) >= limit:
                break
        return chosen

    def _matches(self, pattern: re.Pattern[str], text: str, lines: str) -> Iterator[tuple[int, int, int]]:
        """(line, where in the line the match starts, its length) for each match of ``pattern`` in ``text``."""
        starts = self._starts[lines]
        for found in pattern.finditer(text):
            line = bisect.bisect_right(starts, found.start()) - 1
            yield line, found.start() - starts[line], found.end() - found.start()


def _line_starts(lines: list[str]) -> list[int]:
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    return starts


class FileList:
    """The files in view under ``root``, walked on first use and again in the background once stale."""

    def __init__(self, root: Path, *, max_age: float = MAX_AGE) -> None:
        self.root = root
        self.max_age = max_age
        self._index: FileIndex | None = None
        self._walked_at = 0.0
        self._lock = threading.Lock()
        self._walking = False

    def index(self) -> FileIndex:
        """The files (walking now if there is no list yet; a stale one is returned while a thread walks again)."""
        with self._lock:
            index = self._index
            if index is not None and time.monotonic() - self._walked_at > self.max_age:
                self._start_walk()
        return index if index is not None else self._refresh()

    def warm(self) -> None:
        """Walk in a thread now (``@`` was typed: a query is coming)."""
        with self._lock:
            if self._index is None:
                self._start_walk()

    def _start_walk(self) -> None:
        if not self._walking:
            self._walking = True
            threading.Thread(target=self._refresh, name="file-finder-walk", daemon=True).start()

    def _refresh(self) -> FileIndex:
        index = FileIndex(_walk(self.root))
        with self._lock:
            self._index, self._walked_at, self._walking = index, time.monotonic(), False
        return index
