"""The JSONL layer: framing, lenient reads, torn tails, failed writes and never overwriting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.core.errors import NavtuiError
from navtui.session.manager import SessionManager
from navtui.session.store import SessionFile, parse_jsonl, read_jsonl, read_tail
from tests.session.helpers import user

SEPARATORS = "a\u2028b\u2029c\x85d\x0ce\x1cf\r\ng"


def test_an_empty_file_becomes_a_session(tmp_path: Path) -> None:
    path = tmp_path / "2026-01-01T00-00-00-000Z_abcdef.jsonl"
    path.write_bytes(b"")
    manager = SessionManager.open(path)
    assert manager.session_id == "abcdef" and manager.read_only_reason is None
    entry_id = manager.append_message(user("hi"))
    assert [e.id for e in SessionManager.open(path).entries] == [entry_id]


def test_opening_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NavtuiError, match="No session file"):
        SessionManager.open(tmp_path / "nope.jsonl")


def test_the_file_is_created_on_the_first_append_with_private_permissions(session: SessionManager) -> None:
    assert not session.path.exists()
    session.append_message(user("hi"))
    assert session.path.stat().st_mode & 0o777 == 0o600
    header = json.loads(session.path.read_bytes().split(b"\n")[0])
    assert header == {
        "type": "session",
        "version": 3,
        "id": session.session_id,
        "timestamp": header["timestamp"],
        "cwd": str(session.cwd),
    }


def test_creating_never_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"precious\n")
    with pytest.raises(FileExistsError):
        SessionFile(path).create(b"new\n")
    assert path.read_bytes() == b"precious\n"


def test_a_deleted_file_is_written_again_from_memory(session: SessionManager) -> None:
    first = session.append_message(user("one"))
    session.path.unlink()
    second = session.append_message(user("two"))
    reopened = SessionManager.open(session.path)
    assert [e.id for e in reopened.entries] == [first, second]


def test_parse_jsonl_reports_positions() -> None:
    parsed = parse_jsonl(b'{"a":1}\n\nnot json\n[1]\n{"b":2}')
    assert [index for index, _ in parsed.records] == [0, 4]
    assert parsed.bad_lines == [2, 3] and parsed.torn_tail


def test_read_tail_returns_the_header_and_the_last_lines(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    lines = [b'{"type":"session","id":"s"}'] + [json.dumps({"n": i, "pad": "x" * 5000}).encode() for i in range(100)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    header, tail = read_tail(path, 3)
    assert header == lines[0]
    assert [json.loads(line)["n"] for line in tail] == [97, 98, 99]
    header, everything = read_tail(path, 1000)
    assert len(everything) == 100


def test_read_jsonl_stamps_the_file(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"a":1}\n')
    read = read_jsonl(path)
    assert read.stamp is not None and read.stamp.size == 8 and read.records == [(0, {"a": 1})]
