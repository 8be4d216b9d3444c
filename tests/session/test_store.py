"""The JSONL layer: framing, lenient reads, torn tails, failed writes and never overwriting."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from navtui.core.errors import NavtuiError
from navtui.session import store
from navtui.session.manager import SessionManager
from navtui.session.store import SessionFile, encode_line, parse_jsonl, read_jsonl, read_tail
from tests.session.helpers import assistant, user

SEPARATORS = "a\u2028b\u2029c\x85d\x0ce\x1cf\r\ng"


def test_unicode_line_separators_round_trip(session: SessionManager) -> None:
    entry_id = session.append_message(user(SEPARATORS))
    session.append_message(assistant(SEPARATORS))
    raw = session.path.read_bytes()
    assert raw.count(b"\n") == 3  # header + two entries: U+2028 and friends never split a record
    reopened = SessionManager.open(session.path)
    assert reopened.warnings == []
    assert reopened.get_entry(entry_id).message.text == SEPARATORS  # type: ignore[union-attr]
    assert reopened.entries[1].message.text == SEPARATORS  # type: ignore[union-attr]


def test_a_corrupt_middle_line_loses_only_itself(session: SessionManager) -> None:
    ids = [session.append_message(user(f"prompt {i}")) for i in range(5)]
    lines = session.path.read_bytes().split(b"\n")
    lines[3] = b'{"type":"message","id":"brok'  # the third entry
    session.path.write_bytes(b"\n".join(lines))
    reopened = SessionManager.open(session.path)
    assert [e.id for e in reopened.entries] == ids[:2] + ids[3:]
    assert len(reopened.warnings) == 1 and "skipped 1 unreadable line (4)" in reopened.warnings[0]


def test_a_torn_tail_is_skipped_and_the_next_append_starts_a_fresh_line(session: SessionManager) -> None:
    first = session.append_message(user("kept"))
    session.close()
    with open(session.path, "ab") as handle:
        handle.write(b'{"type":"message","id":"deadbeef","parentId":null,"message":{"role":"us')
    reopened = SessionManager.open(session.path)
    assert [e.id for e in reopened.entries] == [first]
    assert "cut short" in reopened.warnings[0]
    second = reopened.append_message(user("after the crash"))
    again = SessionManager.open(session.path)
    assert [e.id for e in again.entries] == [first, second]
    assert again.get_entry(second).parent_id == first  # type: ignore[union-attr]
    assert len(again.warnings) == 1  # the torn fragment stays on its own line, reported once


def test_nul_runs_from_a_crash_do_not_hide_the_line_after_them(session: SessionManager) -> None:
    first = session.append_message(user("one"))
    second = session.append_message(user("two"))
    data = session.path.read_bytes()
    cut = data.index(b'{"type":"message","id":"' + second.encode())
    session.path.write_bytes(data[:cut] + b"\x00" * 64 + b"\n" + b"\x00" * 8 + data[cut:])
    reopened = SessionManager.open(session.path)
    assert [e.id for e in reopened.entries] == [first, second]


def test_a_file_that_fails_to_parse_is_opened_read_only_and_never_written(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    content = (
        b'{"type":"sess\n{"type":"message","id":"00000001","parentId":null,"message":{"role":"user","content":"hi"}}\n'
    )
    path.write_bytes(content)
    manager = SessionManager.open(path)
    assert manager.read_only_reason is not None
    assert [e.id for e in manager.entries] == ["00000001"]  # what can be read is still shown
    with pytest.raises(NavtuiError, match="read-only"):
        manager.append_message(user("more"))
    manager.sync()
    assert path.read_bytes() == content
    copy = manager.create_branched_session("00000001")
    assert copy.path != path and path.read_bytes() == content
    assert [e.id for e in SessionManager.open(copy.path).entries] == ["00000001"]


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


def test_a_failed_write_is_rolled_back_kept_in_memory_and_retried(
    session: SessionManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = session.append_message(user("saved"))
    size = session.path.stat().st_size
    real_write_all = store._write_all

    def half_then_full(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "_write_all", half_then_full)
    second = session.append_message(user("not yet saved"))
    assert session.path.stat().st_size == size  # the half line was cut off again
    assert session.unsaved_count == 1 and session.get_entry(second) is not None
    assert "No space left on device" in session.warnings[-1]
    with pytest.raises(NavtuiError, match="Could not save the session"):
        session.sync()
    monkeypatch.setattr(store, "_write_all", real_write_all)
    third = session.append_message(user("disk has room again"))
    session.sync()
    assert session.unsaved_count == 0 and session.write_error is None
    assert [e.id for e in SessionManager.open(session.path).entries] == [first, second, third]


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


def test_encode_line_escapes_lone_surrogates_instead_of_failing() -> None:
    line = encode_line({"text": "bad \udcff byte"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line)["text"] == "bad \udcff byte"


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
