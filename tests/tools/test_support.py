"""The helpers under the tools: workspace confinement, file state, env scrubbing, output excerpts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.tools.env import scrubbed_env
from navtui.tools.filestate import FileStateTracker
from navtui.tools.output import excerpt_file, sanitize
from navtui.tools.workspace import Workspace


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


def test_scrubbed_env() -> None:
    env = scrubbed_env(
        {
            "PATH": "/bin",
            "HOME": "/home/u",
            "NAVTUI_HOME": "/x",
            "ANTHROPIC_API_KEY": "k",
            "AWS_SECRET_ACCESS_KEY": "k",
            "NAVTUI_TOKEN": "k",
            "KEYBOARD_LAYOUT": "us",
            "SSH_AUTH_SOCK": "/tmp/agent",
        },
        passthrough=["AWS_SECRET_ACCESS_KEY", "ANTHROPIC_API_KEY"],
    )
    assert {"PATH", "HOME", "NAVTUI_HOME", "KEYBOARD_LAYOUT", "SSH_AUTH_SOCK", "AWS_SECRET_ACCESS_KEY"} <= set(env)
    assert "ANTHROPIC_API_KEY" not in env and "NAVTUI_TOKEN" not in env
    assert env["PAGER"] == "cat" and env["GIT_TERMINAL_PROMPT"] == "0"


def test_sanitize() -> None:
    assert sanitize("a\r\nb\n10%\r50%\r100%\n") == "a\nb\n100%\n"
    assert sanitize("\x1b[1;31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x07bell\x00") == "red link bell"


def test_excerpt_reads_only_head_and_tail(tmp_path: Path) -> None:
    path = tmp_path / "out.log"
    path.write_text("".join(f"line {i}\n" for i in range(10_000)))
    excerpt = excerpt_file(path, head_bytes=100, head_lines=5, tail_bytes=200, tail_lines=3)
    assert excerpt.head == "line 0\nline 1\nline 2\nline 3\nline 4\n"
    assert excerpt.tail == "line 9997\nline 9998\nline 9999\n"
    assert excerpt.total_lines == 10_000 and excerpt.omitted_lines == 9_992
    rendered = excerpt.render("/tmp/full.log")
    assert "[... 9992 lines" in rendered and "Full output: /tmp/full.log" in rendered
    small = tmp_path / "small.log"
    small.write_text("just this\n")
    assert excerpt_file(small).render() == "just this\n" and not excerpt_file(small).truncated
