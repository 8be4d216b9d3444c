"""The repository's state for the status line: branch, and how many files are staged, changed and untracked."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from navtui.core.gitsafe import run_git


@dataclass(frozen=True)
class GitStatus:
    branch: str | None = None  # None outside a repository
    staged: int = 0  # files with changes in the index
    unstaged: int = 0  # tracked files changed in the work tree
    untracked: int = 0

    @property
    def dirty(self) -> bool:
        return bool(self.staged or self.unstaged or self.untracked)


def parse_porcelain(output: str) -> GitStatus:
    """``git status --porcelain=v1 --branch`` output as counts (a file staged and changed again counts in both)."""
    lines = output.splitlines()
    branch = None
    if lines and lines[0].startswith("## "):
        branch = lines[0][3:].split("...")[0].replace("No commits yet on ", "")
    staged = unstaged = untracked = 0
    for line in lines:
        if len(line) < 2 or line.startswith("##"):
            continue
        index, work = line[0], line[1]
        if index == "?":
            untracked += 1
            continue
        staged += index not in (" ", "!")
        unstaged += work not in (" ", "!")
    return GitStatus(branch, staged, unstaged, untracked)


def git_status(cwd: Path) -> GitStatus:
    """Runs git (call it off the UI loop; no repository-configured program runs: core/gitsafe.py); an empty
    status outside a repository or when git fails."""
    try:
        out = run_git(["status", "--porcelain=v1", "--branch"], cwd, timeout=2)
    except (OSError, subprocess.TimeoutExpired):
        return GitStatus()
    return parse_porcelain(out.stdout.decode("utf-8", "replace")) if out.returncode == 0 else GitStatus()
