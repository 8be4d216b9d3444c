"""A workspace with a few files, and a checkpointer on it (its store under the test's NAVTUI_HOME)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from navtui.checkpoints.service import Checkpointer
from navtui.checkpoints.snapshot import Snapshotter
from navtui.checkpoints.store import ObjectStore


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (workspace / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (workspace / "run.sh").chmod(0o644)
    (workspace / "src").mkdir()
    (workspace / "src" / "util.py").write_text("X = 1\n")
    (workspace / "logo.bin").write_bytes(bytes(range(256)) * 4)
    return workspace


@pytest.fixture
def checkpointer(project: Path) -> Iterator[Checkpointer]:
    checkpoints = Checkpointer(project, max_file_bytes=64 * 1024)
    yield checkpoints
    checkpoints.close()


@pytest.fixture
def snapshotter(project: Path) -> Iterator[Snapshotter]:
    snapshots = Snapshotter(project, ObjectStore.for_workspace(project), max_file_bytes=64 * 1024)
    yield snapshots
    snapshots.close()
    snapshots.store.close()


def state(root: Path) -> dict[str, tuple[str, int, bytes]]:
    """Everything under ``root`` as (kind, mode, bytes or link target), to compare byte for byte."""
    found: dict[str, tuple[str, int, bytes]] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        info = path.lstat()
        if path.is_symlink():
            found[rel] = ("link", 0, str(path.readlink()).encode())
        elif path.is_dir():
            found[rel] = ("dir", info.st_mode & 0o7777, b"")
        else:
            found[rel] = ("file", info.st_mode & 0o7777, path.read_bytes())
    return found
