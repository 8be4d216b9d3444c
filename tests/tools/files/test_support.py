"""The helpers under the file tools: workspace confinement and file state."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.tools.files.filestate import FileStateTracker
from navtui.tools.files.workspace import Workspace


def test_confine_resolves_dotdot_and_symlinks(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "out").symlink_to(tmp_path)
    workspace = Workspace(ws)
    assert workspace.confine("src/../src/a.py") == ws / "src" / "a.py"
    for escape in ("../x", "src/../../x", "out/x", str(tmp_path / "x"), "~/x"):
        with pytest.raises(ToolError, match="outside the workspace"):
            workspace.confine(escape)
    with pytest.raises(ToolError, match="NUL byte"):
        workspace.confine("a\x00b")
    assert workspace.display(ws / "src" / "a.py") == "src/a.py" and workspace.display(ws) == "."


def test_symlink_loop_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(ToolError, match="Cannot resolve path a"):
        Workspace(tmp_path).resolve("a")


def test_file_state_uses_hash_when_mtime_moves(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_text("same")
    tracker = FileStateTracker()
    tracker.record(path)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert not tracker.changed_since_seen(path)
    path.write_text("diff")  # same size, new bytes
    assert tracker.changed_since_seen(path)
    path.unlink()
    assert tracker.changed_since_seen(path)
