"""edit: exact unique matches, tolerant fallbacks, batches all-or-nothing, stale files, formats kept, diffs."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.tools.files.edit import EditTool
from navtui.tools.files.read import ReadTool
from tests.tools.conftest import call, content

edit = EditTool()
read = ReadTool()

SOURCE = """def add(a, b):
    return a - b


def sub(a, b):
    return a - b
"""


@pytest.fixture
def source(ws: Path) -> Path:
    path = ws / "calc.py"
    path.write_text(SOURCE)
    return path


async def test_exact_unique_edit_returns_a_diff(source: Path, ctx) -> None:
    result = await call(
        edit,
        ctx,
        path="calc.py",
        old_text="def add(a, b):\n    return a - b",
        new_text="def add(a, b):\n    return a + b",
    )
    assert content(source) == SOURCE.replace("return a - b", "return a + b", 1)
    diff = result.details["diff"]
    assert diff.startswith("--- a/calc.py\n+++ b/calc.py\n@@")
    assert "-    return a - b\n+    return a + b\n" in diff
    assert "+    return a + b" in result.text and "+1 -1 lines" in result.text
    assert result.details["first_changed_line"] == 1


async def test_replace_all(source: Path, ctx) -> None:
    result = await call(edit, ctx, path="calc.py", old_text="a - b", new_text="b - a", replace_all=True)
    assert content(source).count("b - a") == 2 and "2 replacements," in result.text


async def test_not_found_shows_the_nearest_lines(source: Path, ctx) -> None:
    with pytest.raises(ToolError) as info:
        await call(edit, ctx, path="calc.py", old_text="def sub(x, y):\n    return x - y", new_text="pass")
    message = info.value.message
    assert "old_text was not found in calc.py" in message
    assert "most similar text is at lines 3-" in message and "     5\tdef sub(a, b):" in message


async def test_trailing_whitespace_and_curly_quotes_are_tolerated(ws: Path, ctx) -> None:
    path = ws / "q.py"
    path.write_text('msg = "it\'s ok"   \nprint(msg)\n')
    result = await call(
        edit,
        ctx,
        path="q.py",
        old_text="msg = \u201cit\u2019s ok\u201d\nprint(msg)",
        new_text='msg = "fine"\nprint(msg)',
    )
    assert path.read_text() == 'msg = "fine"\nprint(msg)\n'
    assert "matched only ignoring trailing whitespace" in result.text


async def test_indentation_is_tolerated_and_carried_over(ws: Path, ctx) -> None:
    path = ws / "k.py"
    path.write_text("class K:\n    def f(self):\n        if x:\n            go()\n")
    await call(edit, ctx, path="k.py", old_text="if x:\n    go()", new_text="if y:\n    stop()\n    go()")
    assert path.read_text() == "class K:\n    def f(self):\n        if y:\n            stop()\n            go()\n"


async def test_line_number_prefixes_from_read_are_stripped(source: Path, ctx) -> None:
    result = await call(
        edit,
        ctx,
        path="calc.py",
        old_text="     5\tdef sub(a, b):\n     6\t    return a - b",
        new_text="     5\tdef sub(a, b):\n     6\t    return b - a",
    )
    assert "def sub(a, b):\n    return b - a\n" in content(source)
    assert "line-number prefixes" in result.text


async def test_batch_applies_in_order(source: Path, ctx) -> None:
    result = await call(
        edit,
        ctx,
        path="calc.py",
        edits=[{"old_text": "def add", "new_text": "def plus"}, {"old_text": "def sub", "new_text": "def minus"}],
    )
    assert "def plus" in content(source) and "def minus" in content(source)
    assert result.details["replacements"] == 2


async def test_own_edits_do_not_make_the_file_stale(source: Path, ctx) -> None:
    await call(read, ctx, path="calc.py")
    first = await call(edit, ctx, path="calc.py", old_text="def add", new_text="def plus")
    second = await call(edit, ctx, path="calc.py", old_text="def sub", new_text="def minus")
    assert not first.is_error and not second.is_error
    assert "def plus" in content(source) and "def minus" in content(source)


async def test_missing_file_points_to_write(ctx) -> None:
    with pytest.raises(ToolError, match="File not found: new.py. To create a new file use write"):
        await call(edit, ctx, path="new.py", old_text="a", new_text="b")


async def test_symlink_escape_is_refused(ws: Path, tmp_path: Path, ctx) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("a = 1\n")
    (ws / "inside.py").symlink_to(outside)
    with pytest.raises(ToolError, match="outside the workspace"):
        await call(edit, ctx, path="inside.py", old_text="a = 1", new_text="a = 2")
    assert outside.read_text() == "a = 1\n"


async def test_no_op_edit_is_an_error(source: Path, ctx) -> None:
    with pytest.raises(ToolError, match="identical"):
        await call(edit, ctx, path="calc.py", old_text="def add", new_text="def add")


def test_bad_argument_shapes_are_readable_errors() -> None:
    with pytest.raises(ToolError, match="missing new_text") as info:
        edit.parse_args({"path": "a.py", "old_text": "x"})
    assert "Expected arguments: path (required), old_text, new_text, replace_all, edits." in info.value.message
    with pytest.raises(ToolError, match="not both"):
        edit.parse_args(
            {"path": "a.py", "old_text": "x", "new_text": "y", "edits": [{"old_text": "a", "new_text": "b"}]}
        )
    with pytest.raises(ToolError, match=r"edits\.0\.new_text: Field required"):
        edit.parse_args({"path": "a.py", "edits": [{"old_text": "a"}]})


def test_preview_is_the_diff(source: Path, ctx) -> None:
    preview = edit.preview(edit.parse_args({"path": "calc.py", "old_text": "def add", "new_text": "def plus"}), ctx)
    assert preview is not None and "+def plus(a, b):" in preview
    assert content(source) == SOURCE  # a preview writes nothing
