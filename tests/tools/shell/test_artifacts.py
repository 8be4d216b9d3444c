"""Shell output files are pruned by age and total size, never while the navtui that wrote them runs."""

from __future__ import annotations

import os
import time
from pathlib import Path

from navtui.tools.shell.artifacts import prune_artifacts
from navtui.tools.shell.lifetime import owner_token

DAY = 86400.0
DEAD = "999999999.1"  # an owner token no running process has


def artifact(folder: Path, owner: str, job: str, size: int, age_days: float, now: float) -> Path:
    path = folder / f"shell-20260101-120000-{owner}-abcd1234-{job}.log"
    path.write_bytes(b"x" * size)
    os.utime(path, (now - age_days * DAY, now - age_days * DAY))
    return path


def test_files_older_than_the_limit_go(tmp_path: Path) -> None:
    now = time.time()
    old = artifact(tmp_path, DEAD, "j1", 10, 8, now)
    new = artifact(tmp_path, DEAD, "j2", 10, 1, now)
    other = tmp_path / "notes.txt"
    other.write_text("not ours")
    report = prune_artifacts(tmp_path, max_age_days=7, max_bytes=10**9, now=now)
    assert not old.exists() and new.exists() and other.exists()
    assert (report.removed, report.freed, report.kept, report.kept_bytes) == (1, 10, 1, 10)


def test_the_oldest_go_first_until_the_rest_fit(tmp_path: Path) -> None:
    now = time.time()
    files = [artifact(tmp_path, DEAD, f"j{i}", 100, 3 - i * 0.5, now) for i in range(4)]  # j0 oldest
    report = prune_artifacts(tmp_path, max_age_days=7, max_bytes=250, now=now)
    assert [f.exists() for f in files] == [False, False, True, True]
    assert report.kept_bytes == 200


def test_files_of_a_running_navtui_are_kept(tmp_path: Path) -> None:
    now = time.time()
    mine = artifact(tmp_path, owner_token(), "j1", 100, 30, now)
    report = prune_artifacts(tmp_path, max_age_days=7, max_bytes=10, now=now)
    assert mine.exists() and report.removed == 0


def test_a_missing_folder_is_nothing_to_prune(tmp_path: Path) -> None:
    assert prune_artifacts(tmp_path / "none", max_age_days=7, max_bytes=1).removed == 0
