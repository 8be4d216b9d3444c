"""Symbol lookup: exact before prefix before substring before subsequence; kinds; Parent.name."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.index import Index, build_index
from tests.index.conftest import write

LOOKUP_PY = """\
def parse():
    pass


def parse_args():
    pass


def reparse():
    pass


def pick_a_random_seed():
    pass


class Parser:
    def parse(self):
        pass
"""


@pytest.fixture
def index(repo: Path):  # type: ignore[no-untyped-def]
    write(repo, "src/lookup.py", LOOKUP_PY)
    build_index(repo)
    opened = Index.open(repo)
    assert opened is not None
    with opened:
        yield opened


def test_exact_then_prefix_then_substring_then_subsequence(index: Index) -> None:
    found = [(s.qualified_name, s.kind) for s in index.symbols("parse")]
    assert found[:2] == [("parse", "function"), ("Parser.parse", "method")]  # exact, shorter/defined first
    assert [name for name, _ in found[2:]] == ["Parser", "parseArgs", "parse_args", "reparse", "pick_a_random_seed"]


def test_case_and_underscores_do_not_matter(index: Index) -> None:
    assert [s.name for s in index.symbols("ParseArgs")] == ["parseArgs", "parse_args"]  # exact spelling first
    assert [s.path for s in index.symbols("load_user_config")] == ["src/config.py"]
    assert index.symbols("LOADUSERCONFIG")[0].name == "load_user_config"


def test_kind_filters_with_close_relatives(index: Index) -> None:
    assert {s.kind for s in index.symbols("parse", kind="class")} == {"class"}
    assert [(s.name, s.kind) for s in index.symbols("Server", kind="struct")] == [
        ("Server", "struct"),
        ("HttpServer", "class"),
    ]
    assert index.symbols("Server", kind="enum") == []
    functions = {s.qualified_name for s in index.symbols("parse", kind="function")}
    assert "Parser.parse" in functions and "Parser" not in functions


def test_parent_dot_name_narrows_to_members(index: Index) -> None:
    assert [(s.qualified_name, s.path) for s in index.symbols("Parser.parse")] == [("Parser.parse", "src/lookup.py")]
    assert [s.qualified_name for s in index.symbols("Server.Start")] == ["Server.Start"]
    assert [s.start_line for s in index.symbols("HttpServer.listen")] == [19]


def test_symbols_carry_spans_and_respect_the_limit(index: Index) -> None:
    config = index.symbols("ConfigStore")[0]
    assert (config.kind, config.path, config.start_line, config.end_line) == ("class", "src/config.py", 14, 20)
    assert len(index.symbols("e", limit=3)) == 3
    assert index.symbols("zzzz") == [] and index.symbols("  ") == []


def test_markdown_headings_are_not_symbols(index: Index) -> None:
    assert index.symbols("Installing") == []
