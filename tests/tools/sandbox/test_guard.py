"""The guard's walk of the workspace: what it finds, and that its cache cannot be fooled by a reset mtime."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navtui.tools.sandbox import guard


def test_the_walk_finds_env_files_and_git_dirs_at_any_depth_and_skips_package_folders(ws: Path) -> None:
    for relative in ("a/b/.env", "a/.env.local", "a/.env.example", "node_modules/x/.env", "c/.git/HEAD"):
        (ws / relative).parent.mkdir(parents=True, exist_ok=True)
        (ws / relative).write_text("x\n")
    (ws / "d").mkdir()
    (ws / "d" / ".git").write_text("gitdir: /elsewhere\n")
    found = guard.scan((ws,))
    assert found.complete
    assert found.env_files == {ws / "a/b/.env", ws / "a/.env.local"}
    assert found.git_entries == {ws / "c/.git", ws / "d/.git"}


def test_a_cached_folder_is_read_again_when_its_ctime_moves_even_if_its_mtime_is_set_back(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard, "_RACY_NS", -1)  # trust the cache at once (normally only folders older than 2 s)
    (ws / "sub").mkdir()
    before = guard.scan((ws,))
    assert guard.scan((ws,)) == before  # from the cache
    stat = (ws / "sub").stat()
    (ws / "sub" / ".env").write_text("EVIL=1\n")
    os.utime(ws / "sub", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as a hostile command would hide it
    assert (ws / "sub").stat().st_mtime_ns == stat.st_mtime_ns
    assert guard.scan((ws,)).new_since(before) == ([ws / "sub" / ".env"], [])


def test_past_its_limit_the_walk_removes_nothing_it_did_not_see(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "_MAX_DIRS", 3)
    for name in ("a", "b", "c", "d", "e"):
        (ws / name).mkdir()
        (ws / name / ".env").write_text("K=1\n")
    before = guard.scan((ws,))
    assert not before.complete
    after = guard.Scan(before.env_files | {ws / n / ".env" for n in "abcde"}, before.git_entries, False)
    assert len(before.env_files) < 5 and after.new_since(before) == ([], [])  # unseen, not new
