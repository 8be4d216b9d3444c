"""``Checkpointer``: one workspace's checkpoints for a running navtui, in the terms of a session.

The runtime calls ``record_base`` before a run and ``record_turn`` after each turn that called tools; ``/undo``,
``navtui undo`` and the tree ask ``propose_undo`` / ``propose_restore`` for a ``Proposal`` (the files and their
status), show it, and call ``apply``. Every call that walks the workspace blocks: run it in a thread.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.checkpoints.history import (
    CUSTOM_TYPE,
    Checkpoint,
    CheckpointKind,
    code_at,
    cut_off,
    latest,
    undo_steps,
)
from navtui.checkpoints.notes import NOTE_TYPE, note_details
from navtui.checkpoints.snapshot import MAX_FILE_BYTES, MAX_FILES, Snapshot, Snapshotter
from navtui.checkpoints.store import ObjectStore, checkpoints_dir, workspace_id
from navtui.core.errors import NavtuiError
from navtui.session.entries import Entry
from navtui.session.listing import session_files
from navtui.session.manager import SessionManager

if TYPE_CHECKING:  # the restore's planning and writing load with the first /undo or question about the files
    from navtui.checkpoints.restore import RestorePlan, RestoreResult

NOTHING_TO_UNDO = "Nothing to undo: no turn of this session changed files here"


@dataclass
class Proposal:
    """Files to put back, how each stands, and what to record once done."""

    plan: RestorePlan
    actual: str  # the workspace's snapshot when proposed
    goal: str
    kind: CheckpointKind  # "undo" or "restore"
    undid: str | None = None


@dataclass
class Restored:
    result: RestoreResult
    tree: str | None  # the workspace after it (None: checkpoints went off meanwhile)


class Checkpointer:
    def __init__(
        self, root: Path, *, max_file_bytes: int = MAX_FILE_BYTES, max_files: int = MAX_FILES, watch: bool = True
    ) -> None:
        self.root = root.resolve()
        self.watch = watch
        self.workspace = str(self.root)
        self.max_file_bytes = max_file_bytes
        self.max_files = max_files
        self.off_reason: str | None = None  # set once checkpoints cannot work here (said once)
        self._snapshotter: Snapshotter | None = None
        self._open_lock = threading.Lock()
        self._said_left_out: set[tuple[str, int]] = set()
        self.notices: list[str] = []  # what to tell the user, taken by the caller

    # ------------------------------------------------------------------ snapshots
    @property
    def store(self) -> ObjectStore:
        return self._open().store

    def _open(self) -> Snapshotter:
        with self._open_lock:
            if self._snapshotter is None:
                store = ObjectStore.for_workspace(self.root)
                self._snapshotter = Snapshotter(
                    self.root, store, max_file_bytes=self.max_file_bytes, max_files=self.max_files, watch=self.watch
                )
            return self._snapshotter

    def snapshot(self) -> Snapshot | None:
        """The workspace now (``None`` once checkpoints are off here, with the reason in ``notices``)."""
        if self.off_reason is not None:
            return None
        try:
            snap = self._open().snapshot()
        except NavtuiError as exc:
            self.off_reason = exc.message
            self.notices.append(f"{exc.message} ({exc.hint})" if exc.hint else exc.message)
            return None
        except OSError as exc:
            self.off_reason = f"Checkpoints are off: {exc.strerror or exc}"
            self.notices.append(self.off_reason)
            return None
        fresh = [item for item in snap.left_out if item not in self._said_left_out]
        if fresh:
            self._said_left_out.update(fresh)
            names = ", ".join(f"{path} ({_size(size)})" for path, size in fresh[:5])
            more = f" and {len(fresh) - 5} more" if len(fresh) > 5 else ""
            self.notices.append(
                f"Not kept in checkpoints (larger than {self.max_file_bytes // 1024:,} KB): {names}{more}; "
                "/undo cannot put them back (checkpoints.max_file_kb)."
            )
        return snap

    def prune(self, *, every_seconds: float = 0.0) -> int | None:
        """Drop the objects no checkpoint of this workspace's sessions needs (nor the workspace as it is now).

        Checkpoints live as long as the session files that name them: deleting a session lets its snapshots go
        at the next prune (at start, at most once a day, and when a session is deleted in the picker).
        ``every_seconds``: skip when the last prune is more recent. Returns the objects removed (``None``:
        skipped).
        """
        snapshotter = self._open()
        if every_seconds and time.time() - snapshotter.store.last_pruned() < every_seconds:
            return None
        snap = self.snapshot()
        if snap is None:
            return None
        roots = {snap.tree}
        for path in session_files(self.root):
            roots.update(_trees_named_in(path, self.workspace))
        return snapshotter.store.prune(roots)

    def take_notices(self) -> list[str]:
        notices, self.notices = self.notices, []
        return notices

    def close(self) -> None:
        if self._snapshotter is not None:
            self._snapshotter.close()
            self._snapshotter.store.close()

    # ------------------------------------------------------------------ recording
    # ``*_checkpoint`` walk the workspace (a thread); ``record`` appends to the session (the session's thread).
    def base_checkpoint(self, path: Sequence[Entry], *, late: bool = False) -> Checkpoint | None:
        """Before a run: the workspace, when it is not what the latest checkpoint on ``path`` says (hand edits).

        ``late``: it will be recorded after the run's prompt, so it names the point it was taken for (``at``).
        """
        changed = self._changed(path)
        if changed is None:
            return None
        snap, last = changed
        at = ((path[-1].id or "") if path else "") if late else None
        if last is not None and cut_off(path):  # the last run died mid-turn: its checkpoint, late
            return Checkpoint("", "turn", snap.tree, last.tree, self.workspace, at=at)
        return Checkpoint("", "base", snap.tree, None, self.workspace, at=at)

    def turn_checkpoint(self, path: Sequence[Entry]) -> Checkpoint | None:
        """After a turn: a checkpoint when the workspace changed since the latest one on ``path``."""
        changed = self._changed(path)
        if changed is None:
            return None
        snap, last = changed
        return Checkpoint("", "turn", snap.tree, last.tree if last is not None else None, self.workspace)

    def _changed(self, path: Sequence[Entry]) -> tuple[Snapshot, Checkpoint | None] | None:
        """The workspace now and the latest checkpoint on ``path``; None when they agree (or no snapshot)."""
        snap = self.snapshot()
        if snap is None:
            return None
        last = latest(path, self.workspace)
        return None if last is not None and last.tree == snap.tree else (snap, last)

    def record(self, session: SessionManager, checkpoint: Checkpoint | None) -> str | None:
        """Append ``checkpoint`` to ``session``; its entry id."""
        if checkpoint is None:
            return None
        return session.append_custom(CUSTOM_TYPE, checkpoint.data())

    def record_base(self, session: SessionManager) -> str | None:
        return self.record(session, self.base_checkpoint(session.get_branch()))

    def record_turn(self, session: SessionManager) -> str | None:
        return self.record(session, self.turn_checkpoint(session.get_branch()))

    # ------------------------------------------------------------------ going back
    def propose_undo(self, path: Sequence[Entry]) -> Proposal | None:
        """What ``/undo`` would put back on this root-to-leaf ``path``; ``None`` when there is nothing."""
        from navtui.checkpoints.restore import plan_restore

        snap = self.snapshot()
        if snap is None:
            return None
        for step in undo_steps(path, self.workspace):
            plan = plan_restore(self.store, step.goal, step.now or snap.tree, snap.tree)
            if plan.pending or plan.lost:
                return Proposal(plan, snap.tree, step.goal, "undo", step.undid)
        return None

    def propose_restore(
        self,
        current: Sequence[Entry],
        target: Sequence[Entry],
        children: Callable[[str | None], Sequence[Entry]] | None = None,
    ) -> Proposal | None:
        """The code of the point at the end of ``target`` (a root-to-point path), seen from ``current``'s end.

        ``children`` (the session's) finds a base recorded after the point's prompt (``code_at``). ``None`` when
        that point has no checkpoint, or the workspace already is as it was there.
        """
        goal = code_at(target, self.workspace, children) if children is not None else latest(target, self.workspace)
        if goal is None:
            return None
        snap = self.snapshot()
        if snap is None:
            return None
        from navtui.checkpoints.restore import plan_restore

        here = latest(current, self.workspace)
        plan = plan_restore(self.store, goal.tree, here.tree if here is not None else snap.tree, snap.tree)
        if not (plan.pending or plan.lost):
            return None
        return Proposal(plan, snap.tree, goal.tree, "restore")

    def restore(self, proposal: Proposal, overwrite: set[str] | None = None) -> Restored:
        """Put the files back (conflicts only when named in ``overwrite``): the walking and writing half."""
        from navtui.checkpoints.restore import apply_restore

        result = apply_restore(self.store, self.root, proposal.plan, overwrite or set())
        snap = self.snapshot()
        return Restored(result, snap.tree if snap is not None else None)

    def record_restore(
        self, session: SessionManager, proposal: Proposal, restored: Restored, *, tell_model: bool = True
    ) -> None:
        """The recording half: a checkpoint of the files now, and with ``tell_model`` a note for the model, so it
        does not go on from files it no longer has."""
        if restored.tree is not None:
            last = latest(session.get_branch(), self.workspace)
            if proposal.kind == "undo" or last is None or last.tree != restored.tree:
                kind, actual, undid = proposal.kind, proposal.actual, proposal.undid
                self.record(session, Checkpoint("", kind, restored.tree, actual, self.workspace, undid))
        if tell_model and restored.result.restored:
            note, details = _note(proposal, restored.result), note_details(restored.result.restored)
            session.append_custom_message(NOTE_TYPE, note, display=False, details=details)
        session.sync()

    def apply(
        self,
        session: SessionManager | None,
        proposal: Proposal,
        overwrite: set[str] | None = None,
        *,
        tell_model: bool = True,
    ) -> RestoreResult:
        """``restore`` then ``record_restore`` in one go (the CLI and tests)."""
        restored = self.restore(proposal, overwrite)
        if session is not None:
            self.record_restore(session, proposal, restored, tell_model=tell_model)
        return restored.result


def _size(size: int) -> str:
    return f"{size / 1024:.1f} KB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"


def _note(proposal: Proposal, result: RestoreResult) -> str:
    what = "undid the changes of the last turn" if proposal.kind == "undo" else "restored the files of an earlier point"
    files = ", ".join(result.restored[:20]) + (
        f" and {len(result.restored) - 20} more" if len(result.restored) > 20 else ""
    )
    kept = f" Kept as the user changed them: {', '.join(result.kept)}." if result.kept else ""
    return f"[The user {what}: {files} are back as they were; read them again before changing them.{kept}]"


def prune_workspace(root: Path) -> int | None:
    """After a session of ``root`` was deleted: its snapshots go (the whole store when no session is left and
    the directory is gone). Returns the objects removed."""
    root = root.resolve()
    if root.is_dir():
        checkpointer = Checkpointer(root)
        try:
            return checkpointer.prune()
        finally:
            checkpointer.close()
    if session_files(root):
        return None
    shutil.rmtree(checkpoints_dir() / workspace_id(root), ignore_errors=True)
    return None


def _trees_named_in(path: Path, workspace: str) -> set[str]:
    """The snapshots a session file's checkpoint entries name, read without loading the session."""
    trees: set[str] = set()
    try:
        data = path.read_bytes()
    except OSError:
        return trees
    for line in data.split(b"\n"):
        if CUSTOM_TYPE.encode() not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        fields = record.get("data") if isinstance(record, dict) else None
        if isinstance(fields, dict) and fields.get("workspace") == workspace:
            trees.update(value for key in ("tree", "before") if isinstance(value := fields.get(key), str))
    return trees
