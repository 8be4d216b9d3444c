"""``navtui undo`` gives back the inotify instance of its checkpoint watch however it ends.

An undo with nothing to put back kept its watch open: harmless in a process of its own, but run in one process (the
tests, a script calling ``undo_main``) each kept one of the user's 128 inotify instances, and once they were gone
every program of the user that watches files failed (navtui's app ended at start, before watchers said so).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navtui.checkpoints.cli import undo_main
from navtui.session.manager import SessionManager


def inotify_instances() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify"
        except OSError:  # the listing's own descriptor, closed already
            pass
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts descriptors in /proc")
def test_an_undo_with_nothing_to_put_back_keeps_no_watch(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = SessionManager.create(workspace)
    session.append_message({"role": "user", "content": "hi", "timestamp": 1})
    before = inotify_instances()
    for _ in range(3):
        assert undo_main(["--yes"], cwd=workspace) == 1
    assert "Nothing to undo" in capsys.readouterr().out
    assert inotify_instances() == before
