"""write: atomic creation and replacement, modes, stale files, confinement, formats kept."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.tools.files.read import ReadTool
from navtui.tools.files.write import WriteTool
from tests.tools.conftest import call

write = WriteTool()
read = ReadTool()


async def test_creates_file_and_parents(ws: Path, ctx) -> None:
    result = await call(write, ctx, path="pkg/sub/mod.py", content="x = 1\ny = 2\n")
    target = ws / "pkg" / "sub" / "mod.py"
    assert target.read_text() == "x = 1\ny = 2\n"
    assert "Created pkg/sub/mod.py: 2 lines" in result.text
    assert result.details["created"] is True and "+y = 2" in result.details["diff"]
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in target.parent.iterdir()] == ["mod.py"]  # no temp file left behind


async def test_overwrite_keeps_mode_and_reports_the_change(ws: Path, ctx) -> None:
    script = ws / "run.sh"
    script.write_text("echo one\n")
    script.chmod(0o755)
    await call(read, ctx, path="run.sh")
    result = await call(write, ctx, path="run.sh", content="echo two\n")
    assert script.read_text() == "echo two\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert "Replaced run.sh" in result.text and "+1 -1" in result.text


async def test_written_file_can_be_written_again(ws: Path, ctx) -> None:
    await call(write, ctx, path="a.txt", content="1\n")
    await call(write, ctx, path="a.txt", content="2\n")
    assert (ws / "a.txt").read_text() == "2\n"


async def test_extra_roots_are_writable(ws: Path, tmp_path: Path, ctx) -> None:
    extra = tmp_path / "shared"
    extra.mkdir()
    ctx.workspace.extra_roots.append(extra)
    await call(write, ctx, path=str(extra / "x.txt"), content="ok\n")
    assert (extra / "x.txt").read_text() == "ok\n"


async def test_directory_target_is_refused(ws: Path, ctx) -> None:
    (ws / "d").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        await call(write, ctx, path="d", content="x")


async def test_fifo_target_is_refused(ws: Path, ctx) -> None:
    os.mkfifo(ws / "pipe")
    with pytest.raises(ToolError, match="FIFO"):
        await asyncio.wait_for(call(write, ctx, path="pipe", content="x"), 5)


async def test_text_read_from_a_latin1_file_is_not_written_back_lossily(ws: Path, ctx) -> None:
    latin = ws / "latin.txt"
    latin.write_bytes("café\n".encode("latin-1"))
    await call(read, ctx, path="latin.txt")
    with pytest.raises(ToolError, match=r"1 U\+FFFD .* Latin-1 .*iconv"):
        await call(write, ctx, path="latin.txt", content="caf\ufffd au lait\n")  # what the model was shown
    assert latin.read_bytes() == b"caf\xe9\n"
    with pytest.raises(ToolError, match=r"U\+FFFD"):
        await call(write, ctx, path="copy.txt", content="caf\ufffd\n")  # a copy elsewhere loses it too
    assert not (ws / "copy.txt").exists()
    await call(write, ctx, path="latin.txt", content="caf\udce9 au lait\n")  # the byte as navtui holds it: kept
    assert latin.read_bytes() == b"caf\xe9 au lait\n"


async def test_a_file_that_holds_u_fffd_may_keep_it(ws: Path, ctx) -> None:
    (ws / "r.txt").write_text("a \ufffd b\n", encoding="utf-8")
    await call(read, ctx, path="r.txt")
    await call(write, ctx, path="r.txt", content="a \ufffd c\n")
    assert (ws / "r.txt").read_text(encoding="utf-8") == "a \ufffd c\n"


async def test_a_lone_surrogate_is_refused_not_crashed(ws: Path, ctx) -> None:
    with pytest.raises(ToolError, match="U\\+D800, half of a UTF-16 surrogate pair"):
        await call(write, ctx, path="x.txt", content="a\ud800b")
    assert not (ws / "x.txt").exists()


async def test_a_deleted_workspace_is_not_recreated(ws: Path, ctx) -> None:
    os.rmdir(ws)  # deleted while navtui runs
    with pytest.raises(ToolError, match="no longer exists .*nothing was written"):
        await call(write, ctx, path="sub/new.txt", content="x\n")
    assert ws.name not in os.listdir(ws.parent)


async def test_a_file_seen_only_in_part_is_not_replaced_blind(ws: Path, ctx) -> None:
    """The 1.5B read a page of a 300-line file, then wrote it whole as one line (+1 -300)."""
    original = "".join(f"OPTION_{i:03d} = {i}\n" for i in range(300))
    (ws / "config.py").write_text(original)
    await call(ReadTool(), ctx, path="config.py", limit=50)
    with pytest.raises(ToolError, match="you have seen only part of config.py") as refused:
        await call(WriteTool(), ctx, path="config.py", content="TIMEOUT = 45\n")
    assert "edit" in str(refused.value) and "send the same write again" in str(refused.value)
    assert (ws / "config.py").read_text() == original
    forced = await call(WriteTool(), ctx, path="config.py", content="TIMEOUT = 45\n")
    assert "Warning: you had seen only part of config.py" in forced.text
    assert (ws / "config.py").read_text() == "TIMEOUT = 45\n"


async def test_a_file_read_whole_or_cut_to_fit_is_tracked_as_such(ws: Path, ctx) -> None:
    (ws / "a.txt").write_text("one\ntwo\n")
    await call(ReadTool(), ctx, path="a.txt")
    assert ctx.file_state.seen(ws / "a.txt").whole
    ctx.file_state.mark_partial(ws / "a.txt")  # what the context guard does to a read it had to cut
    with pytest.raises(ToolError, match="seen only part"):
        await call(WriteTool(), ctx, path="a.txt", content="three\n")
    await call(ReadTool(), ctx, path="a.txt")  # read whole again: written at once
    assert "Replaced a.txt" in (await call(WriteTool(), ctx, path="a.txt", content="three\n")).text


def test_the_preview_of_a_replacement_is_the_diff(ws: Path, ctx) -> None:
    # The approval of a write over an existing file showed its first 40 new lines: what it changed (a line in the
    # middle of 120) could not be seen before saying yes.
    old = "".join(f"def f{i}(x):\n    return x * {i}\n" for i in range(60))
    (ws / "big.py").write_text(old)
    new = old.replace("return x * 30\n", "return x + 30\n")
    preview = write.preview(write.parse_args({"path": "big.py", "content": new}), ctx)
    assert preview is not None and preview.startswith("--- a/big.py\n+++ b/big.py\n@@ -59,")
    assert "-    return x * 30\n+    return x + 30" in preview and "def f0(" not in preview
    assert (ws / "big.py").read_text() == old  # a preview writes nothing
    fresh = write.preview(write.parse_args({"path": "new.py", "content": "a = 1\n"}), ctx)
    assert fresh == "a = 1"  # a new file: its content
    same = write.preview(write.parse_args({"path": "big.py", "content": old}), ctx)
    assert same == "(the same content: the file does not change)"


SWAPPER = """
import os, sys, time
ws, home, stop = sys.argv[1], sys.argv[2], sys.argv[3]
folder, moved, link = os.path.join(ws, "d"), os.path.join(ws, "d2"), os.path.join(ws, "l")
os.symlink(home, link)
while not os.path.exists(stop):  # the folder, then a link to "home" in its place, then the folder again
    time.sleep(0.0002)
    os.rename(folder, moved)
    os.rename(link, folder)  # one step: the name is never missing
    time.sleep(0.0002)
    os.rename(folder, link)
    os.rename(moved, folder)
"""


def test_a_folder_swapped_for_a_link_between_the_check_and_the_write_is_not_written_through(
    ws: Path, ctx, tmp_path: Path
) -> None:
    """A background command swaps ``d`` for a link to the home folder and back, over and over, while the model
    writes ``d/fN``: a write that passed the workspace check landed in the home folder (navtui writes files
    itself, unconfined). The folder is now opened once and checked as opened."""
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    (ws / "d").mkdir()
    stop = tmp_path / "stop"
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(ws), str(home), str(stop)])
    outcomes: dict[str, int] = {}
    try:
        for number in range(500):
            try:
                asyncio.run(call(write, ctx, path=f"d/f{number}", content="echo pwned\n"))
                outcomes["written"] = outcomes.get("written", 0) + 1
            except ToolError as exc:
                kind = "outside" if "outside the workspace" in exc.message else exc.message[:60]
                outcomes[kind] = outcomes.get(kind, 0) + 1
    finally:
        stop.touch()
        swapper.wait(30)
    landed = os.listdir(home)
    assert landed == [], f"{len(landed)} files in the home folder; {outcomes}"  # not even a temp file
    assert outcomes.get("written", 0) > 0, outcomes  # and the writes that could go through did


def test_a_folder_the_user_may_write_in_but_not_list_is_written_in() -> None:
    """The folder is opened to check where it is: opened for reading, a folder with write and search rights
    but no read right (mode 0300) failed with "Permission denied" for any user but root, where the write by name
    had worked. Run as an unprivileged user (nobody, when the tests run as root)."""
    import shutil
    import tempfile

    from navtui.core.fs import atomic_write_bytes

    top = Path(tempfile.mkdtemp(dir="/tmp"))  # (not under tmp_path: another user can reach it)
    os.chmod(top, 0o755)
    as_root = os.geteuid() == 0
    if as_root:
        os.chown(top, 65534, 65534)
    try:
        pid = os.fork()
        if pid == 0:  # the child: drop to nobody, make the folder, write in it
            code = 1
            try:
                if as_root:
                    os.setgroups([])
                    os.setgid(65534)
                    os.setuid(65534)
                drop = top / "drop"
                drop.mkdir(mode=0o300)
                atomic_write_bytes(drop / "f.txt", b"hi\n", inside=[top.resolve()])
                code = 0
            except PermissionError:
                code = 13
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        (top / "drop").chmod(0o700)
        assert os.waitstatus_to_exitcode(status) == 0, "refused (13: Permission denied)"
        assert (top / "drop" / "f.txt").read_bytes() == b"hi\n"
    finally:
        shutil.rmtree(top, ignore_errors=True)


async def test_a_python_file_written_again_in_the_same_second_runs_its_new_code(ws: Path, ctx) -> None:
    # Python takes __pycache__/calc.*.pyc as current when calc.py has the same size and whole-second mtime: once
    # the suite let its interpreters write bytecode, test_check's check ran `a * b` after `a + b` was written.
    import subprocess
    import sys

    from navtui.tools.files.edit import EditTool

    run = [sys.executable, "-c", "import calc; print(calc.add(2, 3))"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    await call(WriteTool(), ctx, path="calc.py", content="def add(a, b):\n    return a * b\n")
    (ws / "helpers.py").write_text("x = 1\n")
    def python(args: list[str]) -> str:
        return subprocess.run(args, cwd=ws, env=env, capture_output=True, text=True, check=True).stdout

    await asyncio.to_thread(python, [sys.executable, "-c", "import helpers"])
    first = await asyncio.to_thread(python, run)
    assert first == "6\n" and any((ws / "__pycache__").glob("calc.*.pyc"))
    stamp = (ws / "calc.py").stat().st_mtime_ns
    await call(EditTool(), ctx, path="calc.py", old_text="a * b", new_text="a + b")
    os.utime(ws / "calc.py", ns=(stamp, stamp))  # the same second, as a quick model's next write is
    second = await asyncio.to_thread(python, run)
    assert second == "5\n"
    names = sorted(p.name.split(".")[0] for p in (ws / "__pycache__").glob("*.pyc"))
    assert names == ["calc", "helpers"]  # calc's compiled anew; another module's bytecode left alone
