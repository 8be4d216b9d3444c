"""read: numbered windows, limits, directories, binaries, special files, encodings, the workspace boundary."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.core.text import for_wire
from navtui.tools.files.read import ReadTool
from tests.tools.conftest import call

read = ReadTool()


async def test_numbered_lines(ws: Path, ctx) -> None:
    (ws / "a.py").write_text("import os\n\nprint(os.getcwd())\n")
    result = await call(read, ctx, path="a.py")
    assert not result.is_error
    assert result.text == "     1\timport os\n     2\t\n     3\tprint(os.getcwd())"
    assert result.details["total_lines"] == 3


async def test_offset_and_limit_say_where_to_continue(ws: Path, ctx) -> None:
    (ws / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    result = await call(read, ctx, path="n.txt", offset=10, limit=5)
    lines = result.text.splitlines()
    assert lines[0] == "    10\tline 10"
    assert lines[4] == "    14\tline 14"
    assert "[lines 10-14 of 100; continue with offset=15]" in result.text
    tail = await call(read, ctx, path="n.txt", offset=98)
    assert "end of file" in tail.text and "   100\tline 100" in tail.text


async def test_offset_zero_means_the_first_line(ws: Path, ctx) -> None:
    # Small models often count from 0; refusing it cost the 0.5B eval model whole turns of invalid calls.
    (ws / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 6)))
    result = await call(read, ctx, path="n.txt", offset=0, limit=2)
    assert not result.is_error
    assert result.text.splitlines()[:2] == ["     1\tline 1", "     2\tline 2"]
    with pytest.raises(ToolError, match="offset"):
        await call(read, ctx, path="n.txt", offset=-1)


async def test_huge_file_is_paged_at_2000_lines(ws: Path, ctx) -> None:
    (ws / "big.txt").write_text("".join(f"{i}\n" for i in range(1, 5001)))
    result = await call(read, ctx, path="big.txt")
    numbered = [line for line in result.text.splitlines() if "\t" in line]
    assert len(numbered) == 2000
    assert "continue with offset=2001" in result.text
    nxt = await call(read, ctx, path="big.txt", offset=2001)
    assert nxt.text.startswith("  2001\t2001")


async def test_output_is_capped_at_50_kb(ws: Path, ctx) -> None:
    (ws / "wide.txt").write_text(("x" * 200 + "\n") * 1000)
    result = await call(read, ctx, path="wide.txt")
    assert len(result.text.encode()) < 52 * 1024
    shown = result.details["last_line"]
    assert shown < 1000 and f"continue with offset={shown + 1}" in result.text


async def test_long_line_is_cut(ws: Path, ctx) -> None:
    (ws / "min.js").write_text("a" * 10_000 + "\nshort\n")
    result = await call(read, ctx, path="min.js")
    first = result.text.splitlines()[0]
    assert first.endswith("[... line cut]") and len(first) < 2100
    assert "     2\tshort" in result.text


async def test_missing_file_suggests_close_names(ws: Path, ctx) -> None:
    (ws / "config.yaml").write_text("a: 1\n")
    with pytest.raises(ToolError, match=r"File not found: config\.yml\. Did you mean: config\.yaml"):
        await call(read, ctx, path="config.yml")
    with pytest.raises(ToolError, match="does not exist either"):
        await call(read, ctx, path="nowhere/x.py")


async def test_a_missing_file_hint_names_only_tools_on_offer(ws: Path, ctx) -> None:
    """A small window's compact set has no find: a small model told "use find" typed find into bash or gave up."""
    with pytest.raises(ToolError, match="Use find or ls to locate it"):
        await call(read, ctx, path="missing.py")
    ctx.offered = frozenset({"read", "write", "edit", "shell", "ls"})
    with pytest.raises(ToolError, match=r"File not found: missing\.py\. Use ls to locate it\.$") as raised:
        await call(read, ctx, path="missing.py")
    assert "find" not in str(raised.value)
    with pytest.raises(ToolError, match=r"does not exist either\); use ls to locate it$"):
        await call(read, ctx, path="nowhere/x.py")
    ctx.offered = frozenset({"read", "write"})
    with pytest.raises(ToolError, match="read a directory to list it"):
        await call(read, ctx, path="nowhere/x.py")


async def test_directory_is_listed(ws: Path, ctx) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "main.py").write_text("x = 1\n")
    (ws / "README.md").write_text("hi\n")
    result = await call(read, ctx, path=".")
    assert "src/" in result.text and "README.md" in result.text and result.details["directory"]


async def test_offset_past_the_end(ws: Path, ctx) -> None:
    (ws / "s.txt").write_text("one\ntwo\n")
    with pytest.raises(ToolError, match=r"offset 5 is past the end of s\.txt \(2 lines\)"):
        await call(read, ctx, path="s.txt", offset=5)


async def test_bom_and_crlf_are_not_shown(ws: Path, ctx) -> None:
    (ws / "w.txt").write_bytes(b"\xef\xbb\xbfalpha\r\nbeta\r\n")
    result = await call(read, ctx, path="w.txt")
    assert result.text == "     1\talpha\n     2\tbeta"


async def test_invalid_utf8_is_shown_with_replacement_and_a_note(ws: Path, ctx) -> None:
    (ws / "latin.txt").write_bytes("café\n".encode("latin-1"))
    result = await call(read, ctx, path="latin.txt")
    # navtui holds the byte (core/text.py); the model gets U+FFFD for it, the note says so.
    assert "caf\udce9" in result.text and "not valid UTF-8" in result.text
    assert "caf\ufffd" in for_wire(result.text)


async def test_utf16_is_decoded(ws: Path, ctx) -> None:
    (ws / "u16.txt").write_bytes("hello\nworld\n".encode("utf-16"))
    result = await call(read, ctx, path="u16.txt")
    assert "     1\thello" in result.text and "     2\tworld" in result.text and "UTF-16" in result.text


async def test_empty_file(ws: Path, ctx) -> None:
    (ws / "empty").write_text("")
    result = await call(read, ctx, path="empty")
    assert "empty" in result.text and not result.is_error


async def test_read_outside_the_workspace_needs_a_look(ws: Path, tmp_path: Path, ctx) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("s\n")
    (ws / "link.txt").symlink_to(outside)
    for path in (str(outside), "../secret.txt", "link.txt"):
        args = read.parse_args({"path": path})
        assert read.tier_for(args, ctx) == "write"
        assert read.approval_reason(args, ctx) == f"reads outside the workspace: {outside}"
    inside = read.parse_args({"path": "x.py"})
    assert read.tier_for(inside, ctx) == "read" and read.approval_reason(inside, ctx) is None


async def test_read_records_what_the_agent_saw(ws: Path, ctx) -> None:
    path = ws / "a.txt"
    path.write_text("one\n")
    await call(read, ctx, path="a.txt")
    assert ctx.file_state.seen(path) is not None


def test_bad_arguments_list_the_fields() -> None:
    with pytest.raises(ToolError) as info:
        read.parse_args({"file": "a.py", "offset": "x"})
    message = info.value.message
    assert "path: Field required" in message and "offset:" in message
    assert "Expected arguments: path (required), offset, limit." in message and "Unknown: file." in message


async def test_unreadable_file_is_a_tool_error(ctx) -> None:
    # Root reads /proc/self/mem and gets EIO at offset 0; another user gets EACCES at open() once the process is
    # not dumpable (navtui's hardening, applied by an earlier in-process run, hands its /proc files to root).
    ctx.workspace.extra_roots.append(Path("/proc"))
    with pytest.raises(ToolError, match=r"Cannot read /proc/\d+/mem: (Input/output error|Permission denied)"):
        await call(read, ctx, path="/proc/self/mem")


async def test_a_name_holding_a_byte_that_is_not_utf8_can_be_named_back(ws: Path, ctx) -> None:
    """The model saw the byte as U+FFFD (ls, find, grep); that name finds the one file it stands for."""
    (ws / os.fsdecode(b"raw\x9bname.txt")).write_bytes(b"inside\n")
    result = await call(read, ctx, path="raw\ufffdname.txt")
    assert "inside" in result.text
    (ws / os.fsdecode(b"two\x9a.txt")).write_bytes(b"a\n")
    (ws / os.fsdecode(b"two\x9b.txt")).write_bytes(b"b\n")
    with pytest.raises(ToolError, match="not found"):  # two names match: none is guessed
        await call(read, ctx, path="two\ufffd.txt")
