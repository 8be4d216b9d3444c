"""Identifier splitting: how parseArgs, parse_args and "parse args" meet."""

from __future__ import annotations

from navtui.index.tokens import fts_query, identifier_terms, normalize_name, query_terms, split_identifier


def test_split_identifier_handles_camel_snake_acronyms_and_digits() -> None:
    assert split_identifier("parseArgs") == ["parse", "args"]
    assert split_identifier("parse_args") == ["parse", "args"]
    assert split_identifier("HTTPServer2Config") == ["http", "server", "2", "config"]
    assert split_identifier("utf8_decode") == ["utf", "8", "decode"]


def test_identifier_terms_expand_only_compound_identifiers_once() -> None:
    assert identifier_terms("x = parseArgs(argv) + parseArgs(y); plain") == "parse args"


def test_query_terms_keep_whole_words_and_parts_and_drop_stop_words() -> None:
    assert query_terms("parseArgs") == ["parseargs", "parse", "args"]
    assert query_terms("where is the parse_args function") == ["parse_args", "parse", "args", "function"]
    assert query_terms("how is it") == ["how", "is", "it"]  # nothing but stop words: keep them
    assert query_terms("()!") == []


def test_fts_query_quotes_every_term() -> None:
    assert fts_query(["a", 'b"c']) == '"a" OR "b""c"'


def test_normalize_name() -> None:
    assert normalize_name("parse_args") == normalize_name("parseArgs") == normalize_name("Parse-Args") == "parseargs"
