"""Unified diffs of a file before and after a change: in ``details["diff"]`` for the UI and cut short for the model."""

from __future__ import annotations

import difflib

MODEL_DIFF_LINES = 120


def unified_diff(before: str, after: str, shown: str, *, context: int = 3) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{shown}" if before else "/dev/null",
        tofile=f"b/{shown}",
        n=context,
    )
    out = []
    for line in lines:
        if not line.endswith("\n"):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def diff_stats(diff: str) -> tuple[int, int]:
    """(added, removed) lines."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def clip_diff(diff: str, max_lines: int = MODEL_DIFF_LINES) -> str:
    lines = diff.splitlines()
    if len(lines) <= max_lines:
        return diff.rstrip("\n")
    return "\n".join(lines[:max_lines] + [f"[... {len(lines) - max_lines} more diff lines]"])
