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
| `at` | `base` recorded after its prompt only: the point it was taken for (the entry the run started from, `""` for the session's start) |

The code at a point of the tree is the ``tree`` of the latest checkpoint on its root-to-point path, or of a base
recorded late for the point (``code_at``): a run that starts while the process's first walk of a large workspace
is still going does not wait for its own walk, so its base lands after the prompt, below the point it is for.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from navtui.core.messages import UserMessage
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
    at: str | None = None  # a base recorded after its prompt: the point it was taken for ("" the session's start)

    def data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "tree": self.tree, "workspace": self.workspace}
        if self.before is not None:
            data["before"] = self.before
        if self.undid is not None:
            data["undid"] = self.undid
        if self.at is not None:
            data["at"] = self.at
        return data


def checkpoint_of(entry: Entry) -> Checkpoint | None:
    if not isinstance(entry, CustomEntry) or entry.custom_type != CUSTOM_TYPE or not isinstance(entry.data, dict):
        return None
    data = entry.data
    kind, tree = data.get("kind"), data.get("tree")
    if kind not in _KINDS or not isinstance(tree, str) or entry.id is None:
        return None
    before, undid, workspace, at = data.get("before"), data.get("undid"), data.get("workspace"), data.get("at")
    return Checkpoint(
        entry.id,
        kind,
        tree,
        before if isinstance(before, str) else None,
        workspace if isinstance(workspace, str) else "",
        undid if isinstance(undid, str) else None,
        at if isinstance(at, str) else None,
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


LATE_BASE_SEARCH = 400  # entries looked at below a point for a base recorded late (one run's entries)


def code_at(
    path: Sequence[Entry], workspace: str, children: Callable[[str | None], Sequence[Entry]]
) -> Checkpoint | None:
    """The code at the end of ``path`` (a root-to-point list of entries; ``children`` looks down the session's tree).

    The latest checkpoint on ``path``, unless a base was recorded late for a point on it at or after that
    checkpoint: it then lies below the end of ``path``, after the run's prompt and before the run's first
    checkpoint (tool calls wait for it) and before the next prompt (a run ends once it is recorded).
    """
    last = latest(path, workspace)
    ids = path.ids if isinstance(path, Branch) else [entry.id or "" for entry in path]
    if last is not None:
        points = set(ids[ids.index(last.entry_id) :]) if last.entry_id in ids else set()
    else:
        points = {*ids, ""}
    late: tuple[str, Checkpoint] | None = None
    queue = deque((child, False) for child in children(ids[-1] if ids else None))
    seen = 0
    while queue and seen < LATE_BASE_SEARCH:
        entry, prompted = queue.popleft()
        seen += 1
        checkpoint = checkpoint_of(entry)
        if checkpoint is not None:  # the first checkpoint down a branch: nothing later is for this point
            newer = late is None or entry.timestamp > late[0]
            if checkpoint.at in points and checkpoint.workspace == workspace and newer:
                late = (entry.timestamp, checkpoint)
            continue
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage):
            if prompted:  # the next run's prompt: its base is not for a point on ``path``
                continue
            prompted = True
        if entry.id is not None:
            queue.extend((child, prompted) for child in children(entry.id))
    return late[1] if late is not None else last


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
