"""Compare two snapshots and put files back: what a turn changed, what the user changed since, and the writes.

A restore goes from the state the workspace should be in (``now``: a checkpoint's tree) to an earlier one
(``goal``). Only the paths that differ between the two are touched. Each is looked up in a fresh snapshot of
the workspace (``actual``): when it is as ``now`` says it is restored; when it already is as ``goal`` says
there is nothing to do; otherwise someone changed it since the checkpoint (a conflict), and it is left alone
unless the caller names it in ``overwrite``. Files are written byte for byte with their mode bits through a
temp file and a rename; symlinks are made as links.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal

from navtui.checkpoints.store import ObjectStore, TreeEntry
from navtui.core.errors import NavtuiError
from navtui.core.fs import atomic_write_bytes, chmod_here

Status = Literal["restore", "conflict", "done", "lost"]


@dataclass(frozen=True)
class Change:
    path: str  # relative to the workspace, POSIX
    goal: TreeEntry | None  # what it becomes (None: it is removed)
    now: TreeEntry | None  # what the checkpoint says it is (None: it did not exist)
    actual: TreeEntry | None  # what it is on disk
    status: Status

    @property
    def kind(self) -> str:
        """What the turn did to it, in words: created, deleted, changed, mode, renamed is told by ``describe``."""
        if self.now is None:
            return "deleted"  # ... by the turn: the restore creates it again
        if self.goal is None:
            return "created"
        if self.goal.kind != self.now.kind:
            return "replaced"
        if self.goal.hash == self.now.hash and self.goal.mode != self.now.mode:
            return "mode"
        return "changed"

    @property
    def is_dir(self) -> bool:
        return (self.goal or self.now or self.actual or TreeEntry("f", 0, "")).kind == "d"


@dataclass
class RestorePlan:
    changes: list[Change]

    @property
    def files(self) -> list[Change]:
        """The changes a user reads about: files and links (folders come and go with them)."""
        return [change for change in self.changes if not change.is_dir or change.kind == "mode"]

    @property
    def conflicts(self) -> list[Change]:
        return [change for change in self.changes if change.status == "conflict"]

    @property
    def lost(self) -> list[Change]:
        return [change for change in self.changes if change.status == "lost"]

    @property
    def pending(self) -> list[Change]:
        return [change for change in self.files if change.status in ("restore", "conflict")]


@dataclass
class RestoreResult:
    restored: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # conflicts left as the user had them
    failed: list[tuple[str, str]] = field(default_factory=list)  # (path, why)


# ---------------------------------------------------------------------- comparing
def diff_trees(
    store: ObjectStore, a: str | None, b: str | None, prefix: str = ""
) -> list[tuple[str, TreeEntry | None, TreeEntry | None]]:
    """Every path whose entry differs between trees ``a`` and ``b`` (directories and what lies below them)."""
    out: list[tuple[str, TreeEntry | None, TreeEntry | None]] = []
    if a == b:
        return out
    ta = store.tree(a) if a else {}
    tb = store.tree(b) if b else {}
    for name in sorted(ta.keys() | tb.keys()):
        ea, eb = ta.get(name), tb.get(name)
        if ea == eb:
            continue
        path = prefix + name
        dir_a = ea.hash if ea is not None and ea.kind == "d" else None
        dir_b = eb.hash if eb is not None and eb.kind == "d" else None
        if dir_a is not None and dir_b is not None:
            if ea is not None and eb is not None and ea.mode != eb.mode:
                out.append((path, ea, eb))
            out.extend(diff_trees(store, dir_a, dir_b, path + "/"))
            continue
        out.append((path, ea, eb))
        if dir_a is not None or dir_b is not None:
            out.extend(diff_trees(store, dir_a, dir_b, path + "/"))
    return out


def lookup(store: ObjectStore, root: str, path: str) -> TreeEntry | None:
    tree = store.tree(root)
    parts = path.split("/")
    for part in parts[:-1]:
        entry = tree.get(part)
        if entry is None or entry.kind != "d":
            return None
        tree = store.tree(entry.hash)
    return tree.get(parts[-1])


def same(a: TreeEntry | None, b: TreeEntry | None) -> bool:
    """The same on disk (a directory by its kind and mode: its contents are compared path by path)."""
    if a is None or b is None:
        return a is b
    if a.kind == "d" or b.kind == "d":
        return a.kind == b.kind and a.mode == b.mode
    return a == b


def plan_restore(store: ObjectStore, goal: str, now: str, actual: str) -> RestorePlan:
    changes = []
    for path, now_entry, goal_entry in diff_trees(store, now, goal):
        actual_entry = lookup(store, actual, path)
        if same(actual_entry, goal_entry):
            status: Status = "done"
        elif goal_entry is not None and goal_entry.kind == "x":
            status = "lost"  # too large to keep: its bytes were never stored
        elif same(actual_entry, now_entry):
            status = "restore"
        else:
            status = "conflict"
        changes.append(Change(path, goal_entry, now_entry, actual_entry, status))
    return RestorePlan(changes)


def renames(plan: RestorePlan) -> dict[str, str]:
    """Files the turn moved (created at one path with the bytes it deleted at another): new path -> old path."""
    deleted = {c.goal.hash: c.path for c in plan.files if c.kind == "deleted" and c.goal and c.goal.kind == "f"}
    return {
        c.path: deleted[c.now.hash]
        for c in plan.files
        if c.kind == "created" and c.now is not None and c.now.kind == "f" and c.now.hash in deleted
    }


# ---------------------------------------------------------------------- writing
def apply_restore(
    store: ObjectStore, root: Path, plan: RestorePlan, overwrite: Collection[str] = frozenset()
) -> RestoreResult:
    """Carry out ``plan`` under ``root``: the ``restore`` changes, and the conflicts named in ``overwrite``."""
    result = RestoreResult()
    todo = [c for c in plan.changes if c.status == "restore" or (c.status == "conflict" and c.path in overwrite)]
    result.kept = [c.path for c in plan.conflicts if c.path not in overwrite and not c.is_dir]
    for change in todo:  # every byte must be at hand before anything is removed
        if change.goal is not None and change.goal.kind in ("f", "l") and not store.has(change.goal.hash):
            raise NavtuiError(f"The checkpoint store has lost the contents of {change.path}; nothing was restored")

    real_root = os.path.realpath(root)

    def attempt(change: Change, action: Callable[[], object]) -> None:
        try:
            _no_link_on_the_way(root, real_root, change.path)
            action()
        except OSError as exc:
            result.failed.append((change.path, exc.strerror or str(exc)))

    # Leaves that go away or change kind; then folders that go away (deepest first); folders that come back
    # (shallowest first); files and links; last the modes of folders that stay.
    for change in todo:
        actual, goal = change.actual, change.goal
        if actual is not None and actual.kind != "d" and (goal is None or goal.kind != actual.kind):
            attempt(change, partial(os.unlink, root / change.path))
    for change in sorted(todo, key=lambda c: -c.path.count("/")):
        actual, goal = change.actual, change.goal
        if actual is not None and actual.kind == "d" and (goal is None or goal.kind != "d"):
            attempt(change, partial(_remove_dir, root / change.path))
    for change in sorted(todo, key=lambda c: c.path.count("/")):
        actual, goal = change.actual, change.goal
        if goal is not None and goal.kind == "d" and (actual is None or actual.kind != "d"):
            attempt(change, partial(_make_dir, root / change.path, goal.mode))
    for change in todo:
        actual, goal = change.actual, change.goal
        target = root / change.path
        if goal is None or goal.kind == "d":
            continue
        if goal.kind == "f" and actual is not None and actual.kind == "f" and actual.hash == goal.hash:
            attempt(change, partial(chmod_here, target, goal.mode))
        elif goal.kind == "f":
            attempt(change, partial(_write_file, store, target, goal, Path(real_root)))
        elif goal.kind == "l":
            attempt(change, partial(_write_link, store, target, goal))
    for change in todo:
        actual, goal = change.actual, change.goal
        if goal is not None and goal.kind == "d" and actual is not None and actual.kind == "d":
            attempt(change, partial(chmod_here, root / change.path, goal.mode))
    failed = {path for path, _ in result.failed}
    result.restored = [c.path for c in todo if not c.is_dir and c.path not in failed]
    return result


def _no_link_on_the_way(root: Path, real_root: str, path: str) -> None:
    """Raise when a folder on the way from ``root`` to ``path`` is a symbolic link.

    The checkpoint holds real folders. A link put in one's place after the turn (a background job the model
    started can do it: ``src -> ~/.config/autostart``) would have the restore, which navtui runs itself, outside the
    sandbox, write the file it puts back wherever the link points.
    """
    parent = os.path.dirname(path)
    if not parent:
        return
    if os.path.realpath(root / parent) != os.path.join(real_root, os.path.normpath(parent)):
        raise OSError(errno.ELOOP, f"a folder on its way ({parent}) is a link now; not written through it")


def _write_file(store: ObjectStore, target: Path, entry: TreeEntry, root: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    # The folder is checked as opened too: a link swapped in after _no_link_on_the_way looked is not followed.
    atomic_write_bytes(target, store.blob(entry.hash), mode=entry.mode, inside=[root])


def _write_link(store: ObjectStore, target: Path, entry: TreeEntry) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.navtui-link")
    try:
        os.unlink(temp)
    except FileNotFoundError:
        pass
    os.symlink(os.fsdecode(store.blob(entry.hash)), temp)
    os.replace(temp, target)


def _make_dir(path: Path, mode: int) -> None:
    path.mkdir(parents=True, exist_ok=True)
    chmod_here(path, mode)


def _remove_dir(path: Path) -> None:
    try:
        os.rmdir(path)
    except OSError as exc:
        if exc.errno != errno.ENOTEMPTY:
            raise
        raise OSError(exc.errno, "the folder holds files the checkpoint does not know; left in place") from None
