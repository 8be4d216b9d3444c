"""Chunk boundaries and symbol extraction, language by language."""

from __future__ import annotations

from navtui.index.chunker import WINDOW, chunk_text
from navtui.index.model import Symbol
from tests.index.conftest import C_MATH, GO_SERVER, GUIDE_MD, JAVA_SERVICE, PY_CONFIG, RUST_LIB, TS_CLI


def spans(rel: str, text: str) -> list[tuple[int, int, str | None]]:
    return [(c.start_line, c.end_line, c.symbol) for c in chunk_text(rel, text).chunks]


def symbols(rel: str, text: str) -> set[tuple[str, str, int, int, str | None]]:
    return {(s.name, s.kind, s.start_line, s.end_line, s.parent) for s in chunk_text(rel, text).symbols}


def test_python_definitions_are_chunks_with_exact_spans() -> None:
    assert spans("config.py", PY_CONFIG) == [
        (1, 5, None),  # docstring, import and the module constant
        (8, 11, "load_user_config"),
        (14, 20, "ConfigStore"),
    ]
    assert symbols("config.py", PY_CONFIG) == {
        ("DEFAULT_PATH", "constant", 5, 5, None),
        ("load_user_config", "function", 8, 11, None),
        ("ConfigStore", "class", 14, 20, None),
        ("__init__", "method", 15, 16, "ConfigStore"),
        ("size", "method", 18, 20, "ConfigStore"),  # the decorator line starts the method
    }


def _big_class(methods: int, body_lines: int) -> str:
    lines = ["import os", "", "", "class BigThing:", '    """A class longer than the window."""', ""]
    for m in range(methods):
        lines.append(f"    def method_{m}(self):")
        lines.extend(f"        value_{i} = {i}" for i in range(body_lines))
        lines.append("")
    return "\n".join(lines) + "\n"


def test_a_class_longer_than_the_window_is_cut_into_its_methods() -> None:
    text = _big_class(methods=5, body_lines=15)
    chunks = chunk_text("big.py", text).chunks
    assert [(c.symbol, c.kind) for c in chunks] == [
        (None, "block"),
        ("BigThing", "class"),  # the class header and docstring
        *[(f"BigThing.method_{m}", "method") for m in range(5)],
    ]
    header = chunks[1]
    assert header.text == 'class BigThing:\n    """A class longer than the window."""'
    first = chunks[2]
    assert first.text.splitlines()[0] == "    def method_0(self):" and first.end_line - first.start_line == 15


def test_a_function_longer_than_the_window_is_cut_at_blank_lines_and_keeps_its_name() -> None:
    body = "\n\n".join("\n".join(f"    x{b}_{i} = {i}" for i in range(20)) for b in range(5))
    text = f"def huge():\n{body}\n"
    chunks = chunk_text("huge.py", text).chunks
    assert all(c.symbol == "huge" for c in chunks)
    assert all(c.end_line - c.start_line + 1 <= WINDOW for c in chunks)
    assert [c.start_line for c in chunks] == [1, 44, 86]  # cut where a blank line ends a block
    assert chunks[-1].end_line == text.count("\n")
    for chunk in chunks:
        assert not chunk.text.startswith("\n") and not chunk.text.endswith("\n")


def test_text_without_definitions_is_packed_in_blank_line_blocks_within_the_window() -> None:
    paragraphs = ["\n".join(f"para {p} line {i}" for i in range(25)) for p in range(4)]
    chunks = chunk_text("notes.txt", "\n\n".join(paragraphs) + "\n").chunks
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 51), (53, 103)]
    one_long_block = "\n".join(f"line {i}" for i in range(150))
    assert [(c.start_line, c.end_line) for c in chunk_text("x.txt", one_long_block).chunks] == [
        (1, 60),
        (61, 120),
        (121, 150),
    ]


def test_a_python_syntax_error_falls_back_to_the_regular_expressions() -> None:
    text = "def ok():\n    return 1\n\ndef broken(:\n    pass\n"
    names = {s.name for s in chunk_text("bad.py", text).symbols}
    assert names == {"ok", "broken"}


def test_typescript_functions_classes_methods_and_doc_comments() -> None:
    assert symbols("cli.ts", TS_CLI) == {
        ("parseArgs", "function", 4, 10, None),
        ("HttpServer", "class", 12, 22, None),
        ("constructor", "method", 15, 17, "HttpServer"),
        ("listen", "method", 19, 21, "HttpServer"),
    }
    assert spans("cli.ts", TS_CLI) == [(1, 1, None), (3, 10, "parseArgs"), (12, 22, "HttpServer")]


def test_javascript_arrow_functions_assigned_to_constants() -> None:
    text = (
        "export const makeThing = (a, b) => {\n  return a + b;\n};\nconst double = (n) => n * 2;\nconst limit = (3);\n"
    )
    assert symbols("x.js", text) == {("makeThing", "function", 1, 3, None), ("double", "function", 4, 4, None)}


def test_go_methods_know_their_receiver() -> None:
    assert symbols("server.go", GO_SERVER) == {
        ("Server", "struct", 3, 5, None),
        ("Start", "method", 7, 9, "Server"),
        ("NewServer", "function", 11, 13, None),
    }


def test_rust_functions_inside_impl_blocks_are_methods() -> None:
    assert symbols("lib.rs", RUST_LIB) == {
        ("Config", "struct", 1, 3, None),
        ("Config", "impl", 5, 9, None),
        ("new", "method", 6, 8, "Config"),
        ("checksum_bytes", "function", 11, 13, None),
    }


def test_java_classes_constructors_and_methods() -> None:
    assert symbols("UserService.java", JAVA_SERVICE) == {
        ("UserService", "class", 3, 13, None),
        ("UserService", "method", 6, 8, "UserService"),
        ("findAllUsers", "method", 10, 12, "UserService"),
    }


def test_c_definitions_but_not_prototypes() -> None:
    assert symbols("math.c", C_MATH) == {("vector2", "struct", 5, 7, None), ("square", "function", 9, 11, None)}


def test_markdown_sections_end_at_the_next_heading_and_ignore_fenced_code() -> None:
    assert symbols("guide.md", GUIDE_MD) == {
        ("Guide", "section", 1, 14, None),
        ("Installing", "section", 5, 8, "Guide"),
        ("Usage", "section", 9, 14, "Guide"),
    }


def test_symbol_qualified_name() -> None:
    assert Symbol("start", "method", 1, 2, "Server").qualified_name == "Server.start"
