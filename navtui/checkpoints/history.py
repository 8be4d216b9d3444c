"""Checkpoints as a session records them: ``custom`` entries (``customType: "navtui-checkpoint"``).

pi and omp load ``custom`` entries as extension state and never send them to a model, so a session with
checkpoints still opens in both. ``data`` holds:

| field | meaning |
|---|---|
| `kind` | `base` (the workspace before a run, when it differed from the last checkpoint), `turn` (after a turn that changed it), `undo` (after `/undo`), `restore` (after code was restored from another point) |
| `tree` | the workspace's snapshot after it (a tree hash in the store) |
| `before` | the snapshot it went from (not for `base`) |
| `undid` | `undo` only: the entry id of the checkpoint it undid |
| `workspace` | the directory it is a snapshot of |

The code at a point of the tree is the ``tree`` of the latest checkpoint on its root-to-point path.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from navtui.session.entries import AssistantMessage, CustomEntry, Entry, MessageEntry
from navtui.session.tree import Branch

CUSTOM_TYPE = "navtui-checkpoint"
CheckpointKind = Literal["base", "turn", "undo", "restore"]
_KINDS = ("base", "turn", "undo", "restore")


@dataclass(frozen=True)
class Checkpoint:
    entry_id: str
    kind: CheckpointKind
    tree: str
    before: str | None
    workspace: str
    undid: str | None = None

    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "tree": self.tree, "workspace": self.workspace}
        if self.before is not None:
            data["before"] = self.before
        if self.undid is not None:
            data["undid"] = self.undid
        return data


def checkpoint_of(entry: Entry) -> Checkpoint | None:
    if not isinstance(entry, CustomEntry) or entry.custom_type != CUSTOM_TYPE or not isinstance(entry.data, dict):
        return None
    data = entry.data
    kind, tree = data.get("kind"), data.get("tree")
    if kind not in _KINDS or not isinstance(tree, str) or entry.id is None:
        return None
    before, undid, workspace = data.get("before"), data.get("undid"), data.get("workspace")
    return Checkpoint(
        entry.id,
        kind,
        tree,
        before if isinstance(before, str) else None,
        workspace if isinstance(workspace, str) else "",
        undid if isinstance(undid, str) else None,
    )


_CHECKPOINTS = frozenset({"custom"})
_CHECKPOINTS_AND_MESSAGES = frozenset({"custom", "message"})


def _newest_first(path: Sequence[Entry], types: frozenset[str]) -> Iterator[Entry]:
    """``path``'s entries of ``types``, newest first (a session's ``Branch`` leaves the others unparsed)."""
    if isinstance(path, Branch):
        return path.newest_first(types)
    return (entry for entry in reversed(path) if entry.type in types)


def latest(path: Sequence[Entry], workspace: str) -> Checkpoint | None:
    """The code at the end of ``path`` (a root-to-point list of entries), ``None`` when nothing was recorded."""
    for entry in _newest_first(path, _CHECKPOINTS):
        checkpoint = checkpoint_of(entry)
        if checkpoint is not None and checkpoint.workspace == workspace:
            return checkpoint
    return None


@dataclass(frozen=True)
class UndoStep:
    """What ``/undo`` would take back: go from ``now`` to ``goal``."""

    goal: str
    now: str | None  # None: a turn cut off before its checkpoint (kill -9): the workspace as it is
    undid: str  # what the undo entry records: the checkpoint's id, or "interrupted:<id>" after a cut-off turn


def undo_steps(path: Sequence[Entry], workspace: str) -> Iterator[UndoStep]:
    """Newest first: the changes on ``path`` not undone yet, in ``workspace``.

    A turn that called tools after the latest checkpoint never reached its own (the process died): its step
    goes back to that checkpoint from the workspace as it is. A step may turn out empty (the tools changed
    nothing): the caller goes on to the next.
    """
    undone: set[str] = set()
    first = True
    tools_since = cut_off(path)
    for entry in _newest_first(path, _CHECKPOINTS):
        checkpoint = checkpoint_of(entry)
        if checkpoint is None or checkpoint.workspace != workspace:
            continue
        if first and tools_since and f"interrupted:{checkpoint.entry_id}" not in undone:
            yield UndoStep(checkpoint.tree, None, f"interrupted:{checkpoint.entry_id}")
        first = False
        if checkpoint.kind == "undo" and checkpoint.undid is not None:
            undone.add(checkpoint.undid)
        elif checkpoint.kind in ("turn", "restore") and checkpoint.entry_id not in undone and checkpoint.before:
            yield UndoStep(checkpoint.before, checkpoint.tree, checkpoint.entry_id)


def cut_off(path: Sequence[Entry]) -> bool:
    """The model called tools after the latest checkpoint: a turn ended before its own (the process died)."""
    for entry in _newest_first(path, _CHECKPOINTS_AND_MESSAGES):
        if checkpoint_of(entry) is not None:
            return False
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage) and entry.message.tool_calls:
            return True
    return False
