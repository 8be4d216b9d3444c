"""File scenarios F01-F10: the read, write and edit tools on real files, and the CLI killed or out of disk mid-edit.

I6 throughout: a file a failed operation touched is byte-identical to before, or wholly the new version.
"""

from __future__ import annotations

import asyncio
import os
import stat
import zlib
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.tools.files.edit import EditTool
from navtui.tools.files.read import ReadTool
from navtui.tools.files.write import WriteTool
from tests.fakes import FakeServer, Text, ToolCall
from tests.fakes.crash import CRASHED, run_navtui
from tests.run_main import run_main
from tests.tools.conftest import call, content, put

edit, read, write = EditTool(), ReadTool(), WriteTool()
MODEL = "qwen2.5-coder:7b"
SOURCE = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"


@pytest.fixture
def source(ws: Path) -> Path:
    path = ws / "calc.py"
    path.write_text(SOURCE)
    return path


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


def _touch(path: Path) -> Path:
    path.touch()
    return path


# ---------------------------------------------------------------------------------------------------- F01, F02
async def test_f01_a_file_changed_since_it_was_read_is_refused_until_read_again(source: Path, ctx) -> None:
    await call(read, ctx, path="calc.py")
    put(source, SOURCE + "# formatter was here\n")
    with pytest.raises(ToolError, match="changed on disk since you last read or wrote it.*Re-read it first"):
        await call(edit, ctx, path="calc.py", old_text="def add", new_text="def plus")
    with pytest.raises(ToolError, match="Re-read it first"):
        await call(write, ctx, path="calc.py", content="x = 1\n")
    assert content(source) == SOURCE + "# formatter was here\n"
    await call(read, ctx, path="calc.py")
    await call(edit, ctx, path="calc.py", old_text="def add", new_text="def plus")


async def test_f01_a_same_size_change_within_the_same_second_is_caught_by_the_hash(source: Path, ctx) -> None:
    await call(read, ctx, path="calc.py")
    before = os.stat(source)
    put(source, SOURCE.replace("a - b", "a * b", 1))  # same size
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the same mtime
    with pytest.raises(ToolError, match="Re-read it first"):
        await call(edit, ctx, path="calc.py", old_text="def add", new_text="def plus")


async def test_f01_a_touch_without_a_change_is_not_stale(source: Path, ctx) -> None:
    await call(read, ctx, path="calc.py")
    st = os.stat(source)
    os.utime(source, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    result = await call(edit, ctx, path="calc.py", old_text="def add", new_text="def plus")
    assert not result.is_error and "def plus" in content(source) and "def add" not in content(source)


async def test_f02_an_existing_file_never_read_is_not_overwritten_but_a_new_file_is_created(ws: Path, ctx) -> None:
    (ws / "notes.md").write_text("precious\n")
    with pytest.raises(ToolError, match="you have not read it"):
        await call(write, ctx, path="notes.md", content="oops\n")
    assert (ws / "notes.md").read_text() == "precious\n"
    await call(write, ctx, path="new.md", content="fresh\n")
    assert (ws / "new.md").read_text() == "fresh\n"


async def test_f02_an_empty_file_never_read_may_be_written_nothing_in_it_is_lost(ws: Path, ctx) -> None:
    (ws / "timeparse.py").write_text("")  # the 1.5B's ``touch timeparse.py`` before its block for the file
    await call(write, ctx, path="timeparse.py", content="def f():\n    return 1\n")
    assert (ws / "timeparse.py").read_text() == "def f():\n    return 1\n"
    (ws / "one.txt").write_text("\n")  # one byte is content
    with pytest.raises(ToolError, match="you have not read it"):
        await call(write, ctx, path="one.txt", content="oops\n")


# ---------------------------------------------------------------------------------------------------- F03, F09
def _headless(server: FakeServer, *args: str, cwd: Path, **faults):
    """A crash point or a file size limit needs a process of its own; a plain run is called in this one."""
    argv = ("-p", "ollama", "-b", server.url, "-m", MODEL, "--approval", "yolo", *args)
    return run_navtui(*argv, cwd=cwd, **faults) if faults else run_main(*argv, cwd=cwd)


@pytest.mark.parametrize("label", ["write:after_temp_write", "write:after_rename"])
def test_f03_an_edit_killed_mid_write_leaves_the_old_or_new_file_and_the_temp_is_cleaned_at_the_next_start(
    fake_server: FakeServer, workspace: Path, label: str
) -> None:
    big = workspace / "big.txt"
    line = "0123456789abcdef" * 4 + "\n"
    original = ("MARKER\n" + line * 300_000).encode()  # ~19.5 MB, just under the edit limit
    big.write_bytes(original)
    fake_server.script(ToolCall("edit", {"path": "big.txt", "old_text": "MARKER", "new_text": "CHANGED"}))
    crashed = _headless(fake_server, "--print", "edit it", cwd=workspace, crash_at=label)
    assert crashed.returncode == CRASHED, crashed.stderr
    after = big.read_bytes()
    assert after == original or after == original.replace(b"MARKER", b"CHANGED", 1)  # never partial
    assert after != original if label == "write:after_rename" else after == original
    debris = list(workspace.glob(".big.txt.*.tmp"))
    assert len(debris) == (1 if label == "write:after_temp_write" else 0)
    fake_server.script(Text("ok"))
    again = _headless(fake_server, "--print", "hello", cwd=workspace)
    assert again.returncode == 0, again.stderr
    if debris:
        assert f"Removed 1 temporary file left by an interrupted write: {debris[0]}" in again.stderr
    assert sorted(p.name for p in workspace.iterdir()) == ["big.txt"]


def test_f09_an_edit_on_a_full_disk_keeps_the_original_and_says_why(fake_server: FakeServer, workspace: Path) -> None:
    target = workspace / "data.txt"
    original = "first line\n" + ("x" * 63 + "\n") * 40_000  # 2.5 MB, over the 2 MB limit below
    target.write_text(original)
    fake_server.script(ToolCall("edit", {"path": "data.txt", "old_text": "first line", "new_text": "changed line"}))
    fake_server.script(Text("reported"))
    run = _headless(fake_server, "--print", "edit it", cwd=workspace, fsize_limit=2_000_000)
    assert run.returncode == 0, run.stderr
    result = [m["content"] for m in fake_server.chat_requests[-1].json["messages"] if m["role"] == "tool"][0]
    assert "Could not write data.txt" in result and "the file is unchanged" in result
    assert "a file size limit, or a full disk" in result  # RLIMIT_FSIZE gives EFBIG; a full disk says "full"
    assert target.read_text() == original
    assert [p.name for p in workspace.iterdir()] == ["data.txt"]  # no temp file left either


# ---------------------------------------------------------------------------------------------------- F04
async def test_f04_mode_line_endings_bom_and_a_missing_final_newline_survive_edits_and_writes(ws: Path, ctx) -> None:
    script = ws / "win.bat"
    script.write_bytes(b"\xef\xbb\xbf@echo off\r\necho one\r\n")
    script.chmod(0o750)
    await call(edit, ctx, path="win.bat", old_text="echo one\n", new_text="echo one\necho two\n")
    assert script.read_bytes() == b"\xef\xbb\xbf@echo off\r\necho one\r\necho two\r\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    await call(write, ctx, path="win.bat", content="new\ntext\n")
    assert script.read_bytes() == b"\xef\xbb\xbfnew\r\ntext\r\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    (ws / "n.txt").write_text("a\nb")
    await call(edit, ctx, path="n.txt", old_text="b", new_text="c")
    assert (ws / "n.txt").read_text() == "a\nc"


async def test_f04_links_inside_the_workspace_edit_their_target_and_hard_links_are_split(ws: Path, ctx) -> None:
    (ws / "real.py").write_text("a = 1\n")
    (ws / "alias.py").symlink_to(ws / "real.py")
    await call(edit, ctx, path="alias.py", old_text="a = 1", new_text="a = 2")
    assert (ws / "alias.py").is_symlink() and (ws / "real.py").read_text() == "a = 2\n"
    (ws / "shared.py").write_text("b = 1\n")
    os.link(ws / "shared.py", ws / "other-name.py")
    await call(edit, ctx, path="shared.py", old_text="b = 1", new_text="b = 2")
    # Documented (docs/tools.md): the write replaces the file, so the other name keeps the old content.
    assert (ws / "shared.py").read_text() == "b = 2\n" and (ws / "other-name.py").read_text() == "b = 1\n"


# ---------------------------------------------------------------------------------------------------- F05, F06
@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        ("latin.txt", "café\n".encode("latin-1"), "not valid UTF-8"),
        ("utf16.txt", "café\n".encode("utf-16"), "UTF-16"),
        ("mixed.txt", "café\n".encode() + "naïve\n".encode("latin-1"), "not valid UTF-8"),
        ("b.bin", b"\x00\x01abc", "binary"),
    ],
)
async def test_f05_an_edit_of_a_file_that_is_not_utf8_is_refused_and_never_writes_replacement_characters(
    ws: Path, ctx, name: str, data: bytes, why: str
) -> None:
    (ws / name).write_bytes(data)
    with pytest.raises(ToolError, match=why):
        await call(edit, ctx, path=name, old_text="caf", new_text="bar")
    assert (ws / name).read_bytes() == data


async def test_f06_binary_images_sparse_giants_devices_and_fifos_are_summarised_or_refused_without_hanging(
    ws: Path, ctx
) -> None:
    (ws / "logo.png").write_bytes(_png(64, 32))
    image = await call(read, ctx, path="logo.png")
    assert "PNG image" in image.text and "64x32 pixels" in image.text and "IHDR" not in image.text
    (ws / "blob.bin").write_bytes(b"\x00\x01\x02garbage" * 1000)
    binary = await call(read, ctx, path="blob.bin")
    assert "binary file" in binary.text and "garbage" not in binary.text
    os.truncate(_touch(ws / "sparse.img"), 2 * 1024**3)  # 2 GB of holes: nothing may read it whole
    sparse = await asyncio.wait_for(call(read, ctx, path="sparse.img"), 10)
    assert "binary file" in sparse.text and "2.0 GB" in sparse.text
    os.mkfifo(ws / "pipe")
    with pytest.raises(ToolError, match="FIFO"):
        await asyncio.wait_for(call(read, ctx, path="pipe"), 5)
    ctx.workspace.extra_roots.extend([Path("/dev"), Path("/proc")])
    with pytest.raises(ToolError, match="character device"):
        await asyncio.wait_for(call(read, ctx, path="/dev/zero"), 5)
    with pytest.raises(ToolError):
        await asyncio.wait_for(call(read, ctx, path="/proc/self/mem"), 5)


# ---------------------------------------------------------------------------------------------------- F07
@pytest.mark.parametrize(
    "path",
    ["../../etc/passwd-copy", "/etc/navtui-test", "~/navtui-test", "link-out/x.txt", "a\x00b.txt", "d/" * 2100 + "x"],
    ids=["dotdot", "absolute", "home", "symlink-outside", "nul", "very-long"],
)
async def test_f07_paths_outside_the_workspace_or_invalid_are_clear_errors(
    ws: Path, tmp_path: Path, ctx, path: str
) -> None:
    (tmp_path / "outside").mkdir()
    (ws / "link-out").symlink_to(tmp_path / "outside")
    with pytest.raises(ToolError) as refused:
        await call(write, ctx, path=path, content="x")
    message = refused.value.message
    assert "outside the workspace" in message or "invalid" in message.lower() or "too long" in message.lower()
    assert list((tmp_path / "outside").iterdir()) == []


@pytest.mark.parametrize("path", [".git/config", ".navtui/settings.json", ".env"])
async def test_f07_protected_paths_always_ask_outside_yolo(ws: Path, ctx, path: str) -> None:
    from navtui.tools.approval import ApprovalPolicy, DenyingApprover
    from navtui.tools.authorize import authorize

    (ws / ".git").mkdir()
    args = write.parse_args({"path": path, "content": "x"})
    policy = ApprovalPolicy(mode="write", allow={"write"})  # even a tool allowed outright asks here
    response = await authorize(write, args, ctx, policy, DenyingApprover())
    assert response is not None and not response.approved and path.split("/")[0] in (response.reason or "")


# ---------------------------------------------------------------------------------------------------- F08, F10
async def test_f08_an_ambiguous_or_failing_edit_changes_nothing(source: Path, ctx) -> None:
    with pytest.raises(ToolError, match=r"matches 2 times in calc\.py \(at lines 2, 6\)"):
        await call(edit, ctx, path="calc.py", old_text="return a - b", new_text="return a + b")
    with pytest.raises(ToolError, match="Edit 2 of 3 failed, so none was applied"):
        await call(
            edit,
            ctx,
            path="calc.py",
            edits=[
                {"old_text": "def add", "new_text": "def plus"},
                {"old_text": "no such text", "new_text": "x"},
                {"old_text": "def sub", "new_text": "def minus"},
            ],
        )
    assert content(source) == SOURCE


async def test_f10_a_placeholder_left_in_a_full_rewrite_draws_a_warning(ws: Path, ctx) -> None:
    (ws / "m.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(75)))  # 300 lines
    await call(read, ctx, path="m.py")
    result = await call(
        write, ctx, path="m.py", content="def f0():\n    return 3\n\n# ... rest of the code unchanged\n"
    )
    assert "Warning: line 4 looks like a placeholder" in result.text
