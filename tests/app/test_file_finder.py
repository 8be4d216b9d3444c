"""``@`` completion's fuzzy finder: files by name wherever they are, ranked by match quality and recency, the
ignore rules of the tools' walker."""

from __future__ import annotations

import os
import time
from pathlib import Path

from navtui.app.completion import complete_path
from navtui.app.file_finder import FileIndex, FileList

NOW = 1_800_000_000.0
OLD = NOW - 30 * 86_400


def ranked(files: dict[str, float], query: str, limit: int = 10) -> list[str]:
    return FileIndex(list(files.items()), now=NOW).rank(query, limit)


def test_letters_in_order_find_a_file_anywhere() -> None:
    files = {"src/util/helpers.py": OLD, "README.md": OLD, "docs/help.md": OLD, "tests/test_parser.py": OLD}
    assert ranked(files, "helpers") == ["src/util/helpers.py"]
    assert ranked(files, "hlpr") == ["src/util/helpers.py"]  # fzf's rule: the letters in order
    assert ranked(files, "util/help") == ["src/util/helpers.py"]  # a path as typed
    assert ranked(files, "zzz") == []


def test_the_better_match_ranks_first() -> None:
    files = {
        "a/b/parser_helpers.py": OLD,  # the name holds the query
        "a/parser/x.py": OLD,  # only the path holds it
        "parser.py": OLD,  # the name is the query (without its extension)
        "a/parsers.py": OLD,  # the name starts with it
        "p/a/r/s/e/r.py": OLD,  # the letters are spread over the path
        "a/b/pxarxser.py": OLD,  # the name holds the letters in order
    }
    assert ranked(files, "parser") == [
        "parser.py",
        "a/parsers.py",
        "a/b/parser_helpers.py",
        "a/parser/x.py",
        "a/b/pxarxser.py",
        "p/a/r/s/e/r.py",
    ]


def test_recency_then_shortness_break_ties() -> None:
    files = {"old/deep/config.py": OLD, "new/deep/config.py": NOW - 60, "x/config.py": OLD}
    assert ranked(files, "config") == ["new/deep/config.py", "x/config.py", "old/deep/config.py"]


def test_smart_case() -> None:
    files = {"src/Widget.py": OLD, "src/widget_test.py": OLD}
    assert set(ranked(files, "widget")) == {"src/Widget.py", "src/widget_test.py"}
    assert ranked(files, "Widget") == ["src/Widget.py"]  # an upper-case letter: case counts


def test_the_limit_keeps_the_best() -> None:
    files = {f"f{number:03}/target.py": OLD for number in range(300)} | {"target.py": OLD}
    found = ranked(files, "target", limit=5)
    assert len(found) == 5 and found[0] == "target.py"


def _tree(root: Path) -> None:
    for rel in ("src/util/helpers.py", "src/main.py", "build/helpers_out.py", "env/lib/helpers_venv.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    (root / ".gitignore").write_text("build/\n")
    (root / "env" / "pyvenv.cfg").write_text("")  # a virtualenv: never offered, as the tools never walk it
    (root / "node_modules" / "helpers").mkdir(parents=True)
    (root / "node_modules" / "helpers" / "helpers.js").write_text("")


def test_the_list_is_the_tools_walk(tmp_path: Path) -> None:
    _tree(tmp_path)
    index = FileList(tmp_path).index()
    assert sorted(index.paths) == [".gitignore", "src/main.py", "src/util/helpers.py"]


def test_at_completion_offers_fuzzy_matches_after_the_folder_entries(tmp_path: Path) -> None:
    _tree(tmp_path)
    files = FileList(tmp_path)
    found = complete_path("look at @helpers", 16, tmp_path, files)
    assert found is not None and [c.value for c in found.candidates] == ["@src/util/helpers.py"]
    assert found.start == 8 and found.candidates[0].ends_token
    found = complete_path("@s", 2, tmp_path, files)
    assert found is not None and [c.value for c in found.candidates][:1] == ["@src/"]  # the folder first
    assert "@src/main.py" in [c.value for c in found.candidates]


def test_a_stale_list_is_walked_again_in_the_background(tmp_path: Path) -> None:
    (tmp_path / "one.py").write_text("")
    files = FileList(tmp_path, max_age=0.0)
    assert files.index().paths == ["one.py"]
    (tmp_path / "two.py").write_text("")
    os.utime(tmp_path / "two.py")
    files.index()  # stale: the old list now, a walk in a thread
    deadline = time.monotonic() + 10
    while "two.py" not in files.index().paths and time.monotonic() < deadline:
        time.sleep(0.02)  # waiting for the walk's thread, not ordering events
    assert sorted(files.index().paths) == ["one.py", "two.py"]
