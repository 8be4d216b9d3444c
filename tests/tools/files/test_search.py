"""ls, find and grep: gitignore-aware and bounded, with ripgrep and with the pure-Python fallback alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.tools.files import ripgrep
from navtui.tools.files.listing import LsTool
from navtui.tools.files.search import FindTool, GrepTool
from tests.tools.conftest import call

find = FindTool()
grep = GrepTool()
ls = LsTool()

APP = """def load_config(path):
    data = open(path).read()
    return parse(data)


def parse(text):
    return text.split("a.b")
"""


@pytest.fixture
def tree(ws: Path) -> Path:
    files = {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".gitignore": "build/\n*.log\n!keep.log\n",
        "src/app.py": APP,
        "src/util.py": "def helper():\n    return load_config('x')\n",
        "build/out.py": "def load_config(): pass\n",
        "debug.log": "load_config failed\n",
        "keep.log": "kept\n",
        ".github/workflows/ci.yml": "run: pytest\n",
        "docs/guide.md": "Call load_config first.\nThen LOAD_CONFIG again.\n",
        "sub/.gitignore": "secret.txt\n",
        "sub/secret.txt": "load_config secret\n",
        "sub/ok.txt": "fine\n",
    }
    for name, content in files.items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    (ws / "blob.bin").write_bytes(b"\x00\x01load_config\x00")
    return ws


@pytest.fixture(params=["rg", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    else:
        assert ripgrep.find_rg() is not None, "the ripgrep wheel should put rg next to python"
    return request.param


async def test_find_respects_gitignore_and_includes_hidden(tree: Path, ctx, engine: str) -> None:
    assert (await call(find, ctx, pattern="*.py")).text == "src/app.py\nsrc/util.py"
    assert (await call(find, ctx, pattern="*.log")).text == "keep.log"
    assert (await call(find, ctx, pattern="*.txt")).text == "sub/ok.txt"
    assert (await call(find, ctx, pattern="ci.yml")).text == ".github/workflows/ci.yml"
    assert (await call(find, ctx, pattern="src/*.py")).text == "src/app.py\nsrc/util.py"
    assert (await call(find, ctx, pattern="*.py", path="src")).text == "src/app.py\nsrc/util.py"


async def test_find_is_bounded(tree: Path, ctx, engine: str) -> None:
    result = await call(find, ctx, pattern="*", limit=2)
    assert len(result.text.splitlines()) == 3
    assert result.text.endswith("more files not shown; narrow the pattern or path, or raise limit]")
    assert result.details["count"] > 2


async def test_find_with_no_match_and_missing_path(tree: Path, ctx, engine: str) -> None:
    result = await call(find, ctx, pattern="*.rs")
    assert not result.is_error and result.text == "No files match '*.rs' under .."
    with pytest.raises(ToolError, match="Path not found: nope"):
        await call(find, ctx, pattern="*", path="nope")


async def test_grep_finds_matches_skipping_ignored_and_binary(tree: Path, ctx, engine: str) -> None:
    result = await call(grep, ctx, pattern=r"load_\w+\(")
    assert result.text == "src/app.py:1:def load_config(path):\nsrc/util.py:2:    return load_config('x')"
    assert result.details["matches"] == 2


async def test_grep_context_glob_and_case(tree: Path, ctx, engine: str) -> None:
    result = await call(grep, ctx, pattern="return", path="src/app.py", context=1)
    assert result.text == (
        "src/app.py-2-    data = open(path).read()\n"
        "src/app.py:3:    return parse(data)\n"
        "src/app.py-4-\n"
        "--\n"
        "src/app.py-6-def parse(text):\n"
        'src/app.py:7:    return text.split("a.b")'
    )
    docs = await call(grep, ctx, pattern="load_config", glob="*.md", ignore_case=True)
    assert docs.text == "docs/guide.md:1:Call load_config first.\ndocs/guide.md:2:Then LOAD_CONFIG again."


async def test_grep_literal_and_limit(tree: Path, ctx, engine: str) -> None:
    regex = await call(grep, ctx, pattern="(data)", path="src")
    literal = await call(grep, ctx, pattern="(data)", path="src", literal=True)
    assert regex.details["matches"] > literal.details["matches"] == 1
    limited = await call(grep, ctx, pattern="e", limit=2)
    assert limited.text.splitlines()[-1].startswith("[showing 2 of ")
    assert len(limited.text.splitlines()) == 3


async def test_grep_errors_and_empty_results(tree: Path, ctx, engine: str) -> None:
    with pytest.raises(ToolError, match="grep failed"):
        await call(grep, ctx, pattern="(unclosed")
    none = await call(grep, ctx, pattern="zebra", glob="*.py")
    assert not none.is_error and none.text == "No matches for 'zebra' in . (files matching *.py)."


async def test_grep_cuts_very_long_lines(ws: Path, ctx, engine: str) -> None:
    (ws / "min.js").write_text("needle" + "x" * 5000 + "\n")
    result = await call(grep, ctx, pattern="needle")
    assert result.text.endswith("[... omitted end of long line]") and len(result.text) < 400


async def test_both_engines_agree(tree: Path, ctx, monkeypatch: pytest.MonkeyPatch) -> None:
    queries = [
        (find, {"pattern": "*"}),
        (find, {"pattern": "**/*.md"}),
        (grep, {"pattern": "load|return", "context": 2}),
        (grep, {"pattern": "def", "glob": "src/*.py"}),
    ]
    with_rg = [(await call(tool, ctx, **args)).text for tool, args in queries]
    monkeypatch.setattr(ripgrep, "find_rg", lambda: None)
    without = [(await call(tool, ctx, **args)).text for tool, args in queries]
    assert with_rg == without


async def test_ls_lists_dirs_first_and_hides_ignored(tree: Path, ctx) -> None:
    result = await call(ls, ctx)
    lines = result.text.splitlines()
    assert lines[0] == "./"
    assert lines[1:6] == [".github/", "docs/", "src/", "sub/", ".gitignore  (23 B)"]
    assert "build/" not in lines and "debug.log" not in result.text and ".git/" not in lines
    assert (
        lines[-1]
        == "[3 ignored entries hidden (.git, tool and dependency folders, .gitignore matches); all: true shows them]"
    )
    everything = await call(ls, ctx, all=True)
    assert "build/" in everything.text and "debug.log  (19 B)" in everything.text


async def test_ls_failures(tree: Path, ctx) -> None:
    with pytest.raises(ToolError, match="is a file"):
        await call(ls, ctx, path="keep.log")
    with pytest.raises(ToolError, match="Directory not found: missing"):
        await call(ls, ctx, path="missing")
    assert ls.tier_for(ls.parse_args({"path": "/"}), ctx) == "write"
