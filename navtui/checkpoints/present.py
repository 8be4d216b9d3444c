"""A restore plan in words, for the undo dialog, the tree's code question and ``navtui undo``.

Plain strings and records: the UI turns them into widgets (through ``display_safe``: paths and file contents are
untrusted), the CLI prints them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from navtui.checkpoints.restore import Change, RestorePlan, renames
from navtui.checkpoints.store import ObjectStore, TreeEntry

DIFF_MAX_LINES = 400


@dataclass(frozen=True)
class FileLine:
    path: str
    what: str  # created, changed, deleted, renamed, mode, link, replaced, not kept
    detail: str = ""  # "from old.py", "644 → 755"
    conflict: bool = False  # changed by hand since the checkpoint


def file_lines(plan: RestorePlan) -> list[FileLine]:
    """One line per file the step would touch, renames folded into one line."""
    moved = renames(plan)
    sources = set(moved.values())
    lines = []
    for change in plan.files:
        if change.status == "done" or change.path in sources:
            continue
        conflict = change.status == "conflict"
        if change.status == "lost":
            lines.append(FileLine(change.path, "not kept", "too large for checkpoints; cannot be put back"))
        elif change.path in moved:
            lines.append(FileLine(change.path, "renamed", f"from {moved[change.path]}", conflict))
        elif change.kind == "mode" and change.goal is not None and change.now is not None:
            lines.append(FileLine(change.path, "mode", f"{change.goal.mode:o} → {change.now.mode:o}", conflict))
        else:
            entry = change.now or change.goal
            what = "link " + change.kind if entry is not None and entry.kind == "l" else change.kind
            lines.append(FileLine(change.path, what, "", conflict))
    return lines


def diff_text(store: ObjectStore, change: Change) -> str:
    """What the turn did to one file, as a unified diff (the undo takes it back)."""
    old, new = _text(store, change.goal), _text(store, change.now)
    if old is None or new is None:
        return f"{change.path}: binary or not kept; {_size(change.goal)} → {_size(change.now)}\n"
    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            f"a/{change.path}" if change.goal else "/dev/null",
            f"b/{change.path}" if change.now else "/dev/null",
        )
    )
    if len(lines) > DIFF_MAX_LINES:
        lines = [*lines[:DIFF_MAX_LINES], f"… {len(lines) - DIFF_MAX_LINES} more lines\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def plan_diff(store: ObjectStore, plan: RestorePlan) -> str:
    return "".join(diff_text(store, change) for change in plan.files if change.status != "done")


def _text(store: ObjectStore, entry: TreeEntry | None) -> str | None:
    if entry is None:
        return ""
    if entry.kind != "f":
        return None
    data = store.blob(entry.hash)
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def _size(entry: TreeEntry | None) -> str:
    return "absent" if entry is None else f"{entry.size:,} bytes"
