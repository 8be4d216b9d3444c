"""Snapshots: what is kept, what is left out and said, and that a walk after a change sees it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from navtui.checkpoints.restore import diff_trees
from navtui.checkpoints.snapshot import Snapshotter, TooManyFiles
from navtui.checkpoints.store import ObjectStore, checkpoints_dir, workspace_id
from tests.core.test_walk import remove_bottom_up


def changed_paths(snapshotter: Snapshotter, a: str, b: str) -> list[str]:
    return [path for path, _, _ in diff_trees(snapshotter.store, a, b)]


def test_the_store_lives_outside_the_workspace_and_is_private(snapshotter: Snapshotter, project: Path) -> None:
    before = sorted(p.name for p in project.iterdir())
    snapshotter.snapshot()
    assert sorted(p.name for p in project.iterdir()) == before
    store_dir = checkpoints_dir() / workspace_id(project.resolve())
    assert (store_dir / "objects.sqlite").is_file()
    assert store_dir.stat().st_mode & 0o777 == 0o700
    assert (store_dir / "objects.sqlite").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("watch", [True, False], ids=["inotify", "stat-walk"])
def test_every_kind_of_change_is_seen(project: Path, watch: bool) -> None:
    snapshots = Snapshotter(project, ObjectStore.for_workspace(project), watch=watch)
    first = snapshots.snapshot().tree
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")  # same size, new bytes
    (project / "run.sh").chmod(0o755)
    (project / "src" / "util.py").rename(project / "src" / "helpers.py")
    (project / "logo.bin").unlink()
    (project / "a" / "b" / "c").mkdir(parents=True)
    (project / "a" / "b" / "c" / "new.txt").write_text("new\n")
    (project / "link").symlink_to("calc.py")
    second = snapshots.snapshot().tree
    assert changed_paths(snapshots, first, second) == [
        "a",
        "a/b",
        "a/b/c",
        "a/b/c/new.txt",
        "calc.py",
        "link",
        "logo.bin",
        "run.sh",
        "src/helpers.py",
        "src/util.py",
    ]
    link = snapshots.store.tree(second)["link"]
    assert link.kind == "l" and snapshots.store.blob(link.hash) == b"calc.py"  # the link, not its target
    assert snapshots.store.tree(second)["run.sh"].mode == 0o755
    snapshots.close()


def test_a_walk_without_changes_reads_nothing(snapshotter: Snapshotter, project: Path) -> None:
    first = snapshotter.snapshot()
    again = snapshotter.snapshot()
    assert again.tree == first.tree and again.read == 0


def test_a_change_in_a_deep_folder_is_seen_through_cached_parents(snapshotter: Snapshotter, project: Path) -> None:
    deep = project / "p" / "q" / "r"
    deep.mkdir(parents=True)
    (deep / "f.txt").write_text("one\n")
    first = snapshotter.snapshot().tree
    with open(deep / "f.txt", "a") as handle:  # in place: the folder's mtime does not move
        handle.write("two\n")
    assert changed_paths(snapshotter, first, snapshotter.snapshot().tree) == ["p/q/r/f.txt"]


def test_gitignore_and_tool_folders_are_honoured(project: Path, snapshotter: Snapshotter) -> None:
    (project / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
    (project / "debug.log").write_text("noise\n")
    (project / "keep.log").write_text("kept\n")
    (project / "build").mkdir()
    (project / "build" / "out.o").write_bytes(b"\0" * 10)
    (project / "node_modules" / "x").mkdir(parents=True)
    (project / "node_modules" / "x" / "i.js").write_text("1")
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    tree = snapshotter.store.tree(snapshotter.snapshot().tree)
    assert sorted(tree) == [".gitignore", "calc.py", "keep.log", "logo.bin", "run.sh", "src"]


def test_a_new_gitignore_applies_at_once(project: Path, snapshotter: Snapshotter) -> None:
    (project / "src" / "gen.txt").write_text("generated\n")
    snapshotter.snapshot()
    (project / "src" / ".gitignore").write_text("gen.txt\n")
    tree = snapshotter.store.tree(snapshotter.store.tree(snapshotter.snapshot().tree)["src"].hash)
    assert sorted(tree) == [".gitignore", "util.py"]


def test_a_large_file_is_left_out_and_named(project: Path, snapshotter: Snapshotter) -> None:
    (project / "big.bin").write_bytes(os.urandom(100 * 1024))
    snap = snapshotter.snapshot()
    assert snap.left_out == [("big.bin", 100 * 1024)]
    entry = snapshotter.store.tree(snap.tree)["big.bin"]
    assert entry.kind == "x" and not snapshotter.store.has(entry.hash)


def test_an_atomic_writes_temp_file_is_not_walked(project: Path, snapshotter: Snapshotter) -> None:
    # Seen under load: a walk while the write tool wrote big.txt named ".big.txt.f553bdf4.tmp" as left out.
    import tempfile

    from navtui.core.fs import TEMP_SUFFIX

    (project / ".big.txt.f553bdf4.tmp").write_bytes(os.urandom(100 * 1024))
    handle, made = tempfile.mkstemp(prefix=".notes.md.", suffix=TEMP_SUFFIX, dir=project)  # the other writer's form
    os.close(handle)
    (project / ".env.tmp").write_text("KEY=1\n")  # a user's own file of that ending is kept
    snap = snapshotter.snapshot()
    names = set(snapshotter.store.tree(snap.tree))
    assert snap.left_out == []
    assert ".big.txt.f553bdf4.tmp" not in names and Path(made).name not in names
    assert ".env.tmp" in names


def test_too_many_files_turns_checkpoints_off(project: Path) -> None:
    snapshots = Snapshotter(project, ObjectStore.for_workspace(project), max_files=3)
    with pytest.raises(TooManyFiles, match="more than 3 files"):
        snapshots.snapshot()
    snapshots.close()


def test_the_users_git_is_never_touched(project: Path, snapshotter: Snapshotter) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.hooksPath=/dev/null"]
    subprocess.run([*git, "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "calc.py"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "one"], cwd=project, check=True)
    before = {p.relative_to(project): p.stat().st_mtime_ns for p in (project / ".git").rglob("*")}
    (project / "calc.py").write_text("changed\n")
    snapshotter.snapshot()
    snapshotter.snapshot()
    after = {p.relative_to(project): p.stat().st_mtime_ns for p in (project / ".git").rglob("*")}
    assert after == before


def test_pruning_keeps_what_a_root_reaches(project: Path, snapshotter: Snapshotter) -> None:
    first = snapshotter.snapshot().tree
    (project / "calc.py").write_text("gone soon\n")
    second = snapshotter.snapshot().tree
    store = snapshotter.store
    old_blob = store.tree(first)["calc.py"].hash
    new_blob = store.tree(second)["calc.py"].hash
    assert store.prune([first], grace_seconds=0) > 0
    assert store.has(old_blob) and not store.has(new_blob) and not store.has(second)


def test_a_new_process_reads_only_what_changed_since_the_last_one(project: Path, snapshotter: Snapshotter) -> None:
    snapshotter.racy_ns = 0  # files written just before a walk are read again by default ("racy git")
    snapshotter.snapshot()
    (project / "calc.py").write_text("changed\n")
    later = Snapshotter(project, ObjectStore.for_workspace(project))
    assert later.snapshot().read == 1
    later.close()


@pytest.mark.parametrize("watch", [True, False], ids=["inotify", "stat-walk"])
def test_a_rewrite_in_the_same_clock_tick_is_seen(project: Path, watch: bool) -> None:
    """Same size, same inode, same mtime tick: the bytes are read again all the same ("racy git")."""
    snapshots = Snapshotter(project, ObjectStore.for_workspace(project), watch=watch)
    target = project / "calc.py"
    with open(target, "r+b") as handle:
        handle.write(b"AAAA")
    first = snapshots.snapshot().tree
    with open(target, "r+b") as handle:
        handle.write(b"BBBB")
    assert changed_paths(snapshots, first, snapshots.snapshot().tree) == ["calc.py"]
    snapshots.close()


def test_a_named_pipe_as_an_ignore_file_holds_no_snapshot(project: Path) -> None:
    # mkfifo src/.gitignore (a command can): the snapshot before each turn read it and waited for a writer for ever
    import threading

    os.mkfifo(project / "src" / ".gitignore")
    snapshots = Snapshotter(project, ObjectStore.for_workspace(project), watch=False)
    taken: list[object] = []
    worker = threading.Thread(target=lambda: taken.append(snapshots.snapshot()), daemon=True)
    worker.start()
    worker.join(30)  # a hang guard, never reached by a passing run
    held = worker.is_alive()
    try:
        os.close(os.open(project / "src" / ".gitignore", os.O_WRONLY | os.O_NONBLOCK))  # a reader waiting: let it go
    except OSError:
        pass
    worker.join(30)
    snapshots.close()
    snapshots.store.close()
    assert not held and len(taken) == 1


@pytest.mark.parametrize("watch", [True, False], ids=["inotify", "stat-walk"])
def test_a_folder_a_thousand_deep_leaves_checkpoints_on(project: Path, watch: bool) -> None:
    """The walk recursed once per level: a repository's folder 1,100 deep raised RecursionError at every snapshot
    (`navtui --print` exited 1 with the traceback before the model was asked). Folders below MAX_DEPTH are not kept."""
    levels = [project]
    for _ in range(1100):  # one level at a time: Path.mkdir(parents=True) recurses as deep
        levels.append(levels[-1] / "d")
        levels[-1].mkdir()
    deep = levels[-1]
    (deep / "leaf.txt").write_text("leaf\n")
    try:
        snapshots = Snapshotter(project, ObjectStore.for_workspace(project), watch=watch)
        first = snapshots.snapshot().tree
        (project / "calc.py").write_text("changed\n")
        (levels[10] / "near.txt").write_text("near\n")
        (deep / "leaf.txt").write_text("changed leaf\n")
        second = snapshots.snapshot().tree
        assert changed_paths(snapshots, first, second) == ["calc.py", "d/" * 10 + "near.txt"]
        kept = max(path.count("/") for path, _, _ in diff_trees(snapshots.store, None, second) if path[:2] == "d/")
        from navtui.checkpoints.snapshot import MAX_DEPTH

        assert kept == MAX_DEPTH - 1  # the folders down to MAX_DEPTH levels, none below
    finally:
        remove_bottom_up(levels[1:])
