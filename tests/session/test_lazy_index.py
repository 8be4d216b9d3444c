"""The entry index keeps lines and parses an entry when it is read; every reader sees what a full parse gives."""

from __future__ import annotations

import gc
import json
import threading
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from navtui.session.entries import Entry, LabelEntry, MessageEntry, RawEntry, SessionInfoEntry, parse_entry
from navtui.session.manager import SessionManager
from navtui.session.store import encode_line
from navtui.session.tree import RECENT, RECENT_BYTES, SOLO_BYTES, Branch, EntryIndex, TreeNode
from tests.session.helpers import assistant, call, result, user


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    path.write_bytes(b"".join(encode_line(record) for record in [header, *records]))
    return path


def _message(entry_id: str, parent: str | None, message: Any, minute: int) -> dict[str, Any]:
    stamp = f"2026-01-01T00:{minute // 60:02d}:{minute % 60:02d}.000Z"
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": message.to_json()}


def _chain(count: int) -> list[dict[str, Any]]:
    records, parent = [], None
    for n in range(count):
        entry_id = f"{n:08x}"
        message = user(f"prompt {n}") if n % 2 == 0 else assistant(f"answer {n}", call(f"c{n}"))
        records.append(_message(entry_id, parent, message, n))
        parent = entry_id
    return records


# ---------------------------------------------------------------------- lines until read
def test_a_loaded_session_holds_lines_and_parses_only_what_is_read(tmp_path: Path) -> None:
    records = _chain(300)
    records.append({"type": "label", "id": "l1", "parentId": records[-1]["id"], "targetId": "00000005", "label": "x"})
    session = SessionManager.open(_write(tmp_path / "s.jsonl", records))
    index = session._index
    assert len(index) == 301
    assert index.parsed_count() == 1  # the label only: the index reads its target and text
    assert session.label_of("00000005") == "x" and session.leaf_id == "l1"

    entry = session.get_entry("00000007")
    assert index.parsed_count() == 2
    assert entry == parse_entry(records[7])  # the same entry a full parse makes
    assert isinstance(entry, MessageEntry) and entry.message.tool_calls[0].id == "c7"


def test_reading_more_than_the_recent_cache_keeps_it_bounded(tmp_path: Path) -> None:
    session = SessionManager.open(_write(tmp_path / "s.jsonl", _chain(400)))
    branch = session.get_branch()
    assert [entry.id for entry in branch] == [f"{n:08x}" for n in range(400)]
    del branch
    gc.collect()
    assert session._index.parsed_count() == RECENT  # nobody holds the others: only the newest read stay


def test_a_line_without_a_timestamp_reads_the_same_every_time(tmp_path: Path) -> None:
    records = [
        {"type": "message", "id": "a", "parentId": None, "message": {"role": "user", "content": "no dates"}},
        {"type": "custom", "id": "b", "parentId": "a", "customType": "k"},
        {"type": "mode_change", "id": "c", "parentId": "b"},  # unknown: raw, and stays without one
    ]
    session = SessionManager.open(_write(tmp_path / "s.jsonl", records))
    first = [
        (entry.timestamp, getattr(entry, "message", None) and entry.message.timestamp) for entry in session.entries
    ]  # type: ignore[union-attr]
    for n in range(RECENT + 1):  # push them out of the recent ones: they are parsed again
        session.get_entry(session.append_custom("k", {"n": n}))
    gc.collect()
    assert session._index.parsed_count() < RECENT + 4
    again = [
        (entry.timestamp, getattr(entry, "message", None) and entry.message.timestamp) for entry in session.entries[:3]
    ]  # type: ignore[union-attr]
    assert again == first
    assert first[0][0] and first[0][1] and first[1][0] and first[2][0] == ""


def test_long_entries_read_are_not_kept_beyond_the_byte_bound(session: SessionManager) -> None:
    for n in range(12):
        session.append_message(user(f"{n} " + "x" * 100_000))  # a long answer's size
    for entry in session.entries:
        assert entry.type == "message"
    gc.collect()
    kept = session._index.parsed_count()
    assert 1 <= kept <= RECENT_BYTES // 100_000


def test_a_reader_walking_back_parses_only_the_types_it_asks_for(tmp_path: Path) -> None:
    records = _chain(200)
    records.append({"type": "custom", "id": "cp", "parentId": records[-1]["id"], "customType": "k", "data": {}})
    records.append(_message("last", "cp", user("after"), 999))
    session = SessionManager.open(_write(tmp_path / "s.jsonl", records))
    branch = session.get_branch()
    assert isinstance(branch, Branch) and branch.ids[-2:] == ["cp", "last"]
    found = next(branch.newest_first({"custom"}))
    assert found.id == "cp" and found.type == "custom"
    assert session._index.parsed_count() == 1


def test_an_entry_read_again_while_held_is_the_same_object_and_so_is_a_held_message(tmp_path: Path) -> None:
    session = SessionManager.open(_write(tmp_path / "s.jsonl", _chain(400)))
    context = session.build_context()  # the agent's context holds the messages, not the entries
    # (its older messages stay in their lines: each read while someone holds it is the same object)
    messages = list(context.messages)
    gc.collect()
    again = session.get_branch()
    # What compaction relies on: the session names the agent's messages by their entries.
    held = {id(message) for message in messages}
    assert all(id(entry.message) in held for entry in again)  # type: ignore[union-attr]
    first = again[0]
    assert session.get_entry(first.id) is first  # type: ignore[arg-type]
    # The messages the context keeps share one object of field names (entries.share_field_names).
    assistants = [m for m in messages if m.role == "assistant"]
    assert len({id(m.model_fields_set) for m in assistants}) == 1
    assert len({id(m.content[0].model_fields_set) for m in assistants}) == 1  # type: ignore[union-attr]


def test_a_held_message_s_entry_is_made_again_without_its_line_and_only_held_ones_keep_a_timestamp(
    tmp_path: Path,
) -> None:
    records = _chain(400)
    session = SessionManager.open(_write(tmp_path / "s.jsonl", records))
    index = session._index
    messages = [entry.message for entry in session.get_branch()]  # type: ignore[union-attr]
    gc.collect()  # the entries are gone (but the newest read), their messages held
    parsed = index.lines_parsed
    again = [session.get_entry(f"{n:08x}") for n in range(300)]
    assert index.lines_parsed == parsed  # made around the held messages, no line read
    assert [entry.timestamp for entry in again] == [record["timestamp"] for record in records[:300]]
    assert all(entry.message is messages[n] for n, entry in enumerate(again))  # type: ignore[union-attr]
    assert again == [parse_entry(record) for record in records[:300]]

    del messages, again
    gc.collect()
    session.get_entry("00000000")  # parsed from its line now; the timestamps of messages no longer held are let go
    assert index.lines_parsed == parsed + 1
    assert len(index._stamps) <= RECENT + 1


def test_appended_entries_are_kept_as_lines_too_and_read_back_equal(session: SessionManager) -> None:
    first = session.append_message(user("a"))
    message = assistant("b", call("c1"))
    second = session.append_message(message)
    session.append_message(result("c1", "done"))
    for n in range(RECENT + 5):
        session.append_custom("k", {"n": n})
    gc.collect()
    assert session.get_entry(first) == MessageEntry.model_validate(json.loads(session._index.line(0)))
    read = session.get_entry(second)
    assert isinstance(read, MessageEntry) and read.message is message  # the live message, still held here
    assert read.message.tool_calls[0].id == "c1"
    reopened = SessionManager.open(session.path)
    assert list(reopened.entries) == list(session.entries)


def test_lines_packed_in_blocks_read_back_as_they_were(tmp_path: Path) -> None:
    records = _chain(100)
    label = {"type": "label", "id": "l1", "parentId": "00000026", "targetId": "00000005", "label": "x"}
    records.insert(40, {**label, "timestamp": "2026-01-01T01:00:00.000Z"})
    path = _write(tmp_path / "s.jsonl", records)
    lines = path.read_bytes().split(b"\n")[1:-1]  # (the header is not an entry)
    session = SessionManager.open(path)
    index = session._index
    plain = index.lines_size()
    assert plain == sum(map(len, lines)) - len(lines[40])  # nothing packed at load (it would slow the open)
    assert session.pack_lines() == 3  # 96 of 101 lines in three blocks; the last five wait for their block
    assert index.lines_size() < plain / 3  # ~7x smaller here
    assert session.pack_lines() == 0
    assert [index.line(p) if p != 40 else lines[40] for p in range(101)] == lines  # byte for byte
    assert index.line(40) == b""  # the label is kept parsed
    assert [session.get_entry(r["id"]) for r in reversed(records)] == [parse_entry(r) for r in reversed(records)]
    assert session.label_of("00000005") == "x"
    appended = [session.append_message(user(f"more {n}")) for n in range(40)]  # fills the open block, and one more
    assert index._slots[100] is not None and session.pack_lines() == 1
    assert all(index._slots[p] is None for p in range(128) if p != 40)  # (their lines are in blocks now)
    reopened = SessionManager.open(session.path)
    assert [reopened.get_entry(i) for i in appended] == [session.get_entry(i) for i in appended]
    assert [index.line(p) for p in range(141)] == [reopened._index.line(p) for p in range(141)]
    assert list(reopened.entries) == list(session.entries)


def test_a_long_line_waiting_for_its_block_is_packed_alone_then_joins_its_block(tmp_path: Path) -> None:
    # A long answer's line (80 KB for 20,000 tokens) is compressed alone while its block of 32 is not full: ten
    # such answers kept ~0.8 MB of plain lines for the whole session (docs/speed.md, "Eleventh wave: memory").
    records = _chain(40)
    path = _write(tmp_path / "s.jsonl", records)
    session = SessionManager.open(path)
    index = session._index
    long_text = "".join(f"paragraph {n} of a long answer, with `code` and **bold** words.\n\n" for n in range(1500))
    answer = session.append_message(assistant(long_text))
    question = session.append_message(user("and then?"))
    plain = index.lines_size()
    position = index._position[answer]
    line = index.line(position)
    assert len(line) > SOLO_BYTES and index._slots[position] == line
    assert session.pack_lines() == 2  # the first block of 32, and the long line alone (the short ones wait)
    assert index._slots[position] is None and position in index._solo
    assert isinstance(index._slots[index._position[question]], bytes)
    assert index.lines_size() < plain - len(line) * 0.8
    assert index.line(position) == line  # byte for byte
    assert session.get_entry(answer) == parse_entry(json.loads(line))
    assert session.pack_lines() == 0
    more = [session.append_message(user(f"more {n}")) for n in range(30)]  # fills the long line's block
    assert session.pack_lines() == 1 and index._solo == {}
    assert index._slots[position] is None and index.line(position) == line
    reopened = SessionManager.open(session.path)
    assert [index.line(p) for p in range(len(index))] == [reopened._index.line(p) for p in range(len(index))]
    assert [session.get_entry(i) for i in [answer, question, *more]] == [
        reopened.get_entry(i) for i in [answer, question, *more]
    ]


def test_packing_in_a_thread_while_the_session_is_read_and_appended_to(tmp_path: Path) -> None:
    records = _chain(2000)
    session = SessionManager.open(_write(tmp_path / "s.jsonl", records))
    expected = [parse_entry(record) for record in records]
    packer = threading.Thread(target=session.pack_lines)
    packer.start()
    read = [session.get_entry(record["id"]) for record in reversed(records)]
    appended = [session.append_message(user(f"more {n}")) for n in range(70)]
    packer.join()
    assert read == expected[::-1]
    session.pack_lines()
    index = session._index
    assert sum(slot is None for slot in index._slots) == 2048  # every full block of 32 (64 of the 2,070 entries)
    assert list(session.entries) == list(SessionManager.open(session.path).entries)
    assert [e.id for e in session.get_branch()] == [r["id"] for r in records] + appended


# ---------------------------------------------------------------------- lazy == eager, for every reader
class EagerIndex:
    """The index as it was: every entry parsed at once (the reference the lazy one must equal)."""

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.by_id: dict[str, Entry] = {}
        self.labels: dict[str, str] = {}
        self.name: str | None = None
        self.duplicate_ids = 0
        for entry in entries:
            if entry.id is not None:
                if entry.id in self.by_id:
                    self.duplicate_ids += 1
                else:
                    self.by_id[entry.id] = entry
            if isinstance(entry, LabelEntry):
                if entry.label:
                    self.labels[entry.target_id] = entry.label
                else:
                    self.labels.pop(entry.target_id, None)
            elif isinstance(entry, SessionInfoEntry):
                self.name = entry.name or None
            elif isinstance(entry, RawEntry) and entry.type == "title_change":
                title = entry.raw.get("title")
                self.name = title if isinstance(title, str) and title else None

    def last_id(self) -> str | None:
        for entry in reversed(self.entries):
            if entry.id is not None and self.by_id.get(entry.id) is entry:
                return entry.id
        return None

    def path(self, leaf: str) -> list[Entry]:
        out: list[Entry] = []
        seen: set[str | None] = set()
        entry = self.by_id.get(leaf)
        while entry is not None and entry.id not in seen:
            seen.add(entry.id)
            out.append(entry)
            entry = self.by_id.get(entry.parent_id) if entry.parent_id is not None else None
        return out[::-1]

    def children(self, parent: str | None) -> list[Entry]:
        if parent is None:
            return [e for e in self.by_id.values() if e.parent_id not in self.by_id or e.parent_id == e.id]
        return [e for e in self.by_id.values() if e.parent_id == parent and e.id != parent]


def _shape(nodes: list[TreeNode]) -> list[Any]:
    return [(node.entry, node.label, _shape(node.children)) for node in nodes]


def _kinds(nodes: list[TreeNode]) -> list[Any]:
    return [(node.id, node.kind, _kinds(node.children)) for node in nodes]


ids = st.sampled_from(["a", "b", "c", "d", "e", "f"])
id_values = st.one_of(ids, ids, ids, st.none(), st.integers(0, 3))
stamps = st.sampled_from(["2026-01-01T00:00:01.000Z", "2026-01-01T00:00:02.000Z", "x"])


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["message", "label", "session_info", "title_change", "custom", "mode_change", 7]))
    record: dict[str, Any] = {"type": kind, "id": draw(id_values), "timestamp": draw(stamps)}
    parent_key = draw(st.sampled_from(["parentId", "parentId", "parentId", "parent_id", None]))
    if parent_key is not None:
        record[parent_key] = draw(id_values)
    if kind == "message":
        record["message"] = draw(
            st.sampled_from(
                [
                    user("hi").to_json(),
                    assistant("ok", call("c1")).to_json(),
                    result("c1").to_json(),
                    {"role": "bashExecution", "command": "ls", "output": ""},
                    {"role": "user", "content": 3},  # invalid: stays raw
                    result("c1", "failed").model_copy(update={"is_error": True}).to_json(),
                    assistant("", call("c2")).to_json(),
                    assistant("", stop_reason="aborted").to_json(),
                    {**assistant("x").to_json(), "errorMessage": "overloaded"},
                    {**assistant("x").to_json(), "stopReason": None},  # invalid: stays raw
                    {"role": "user", "content": "half a pair: \ud800", "timestamp": 1},  # pydantic's JSON refuses it
                ]
            )
        )
    elif kind == "label":
        record["targetId"] = draw(ids)
        record["label"] = draw(st.sampled_from(["one", "", None]))
    elif kind == "session_info":
        record["name"] = draw(st.sampled_from(["named", "", None]))
    elif kind == "title_change":
        record["title"] = draw(st.sampled_from(["title", "", 5]))
    elif kind == "custom":
        record["customType"] = "k"
        record["data"] = {"n": draw(st.sampled_from([0, 1.5, float("inf"), 10**30, "x\ud800", [None, True]]))}
    return record


_CUSTOM_B = {"type": "custom", "id": "b", "timestamp": "x", "parentId": None, "customType": "k"}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), max_size=14))
@example([{"type": "custom", "id": "a", "timestamp": "x", "parentId": "b", "customType": "k"}, _CUSTOM_B])
@example([{"type": "custom", "id": "a", "timestamp": "x", "parent_id": "b", "customType": "k"}, _CUSTOM_B])
@example([{"type": "custom", "id": 3, "timestamp": "x", "parentId": "b", "customType": "k"}, _CUSTOM_B])
@example([_CUSTOM_B, {"type": "title_change", "id": "t", "title": "named", "parentId": "b"}, _CUSTOM_B])
def test_the_lazy_index_answers_every_reader_as_a_full_parse_does(body: list[dict[str, Any]]) -> None:
    lazy = EntryIndex(block=4, solo=150)  # (most lines in compressed blocks; of the newest, the long ones alone)
    for n, record in enumerate(body):
        lazy.add_line(encode_line(record)[:-1], json.loads(json.dumps(record)))
        if n == 5:
            lazy.pack()  # (packed while lines are still being added)
    lazy.pack()
    eager = EagerIndex([parse_entry(json.loads(json.dumps(record))) for record in body])
    reference = EntryIndex()
    for entry in eager.entries:
        reference.add(entry, keep=True)  # parsed entries, kept: the tree as the eager index builds it
    # The tree's row kinds, read before anything is parsed, are those of the parsed entries.
    assert _kinds(lazy.tree()) == _kinds(reference.tree())

    assert list(lazy) == eager.entries and len(lazy) == len(eager.entries)
    assert lazy.labels == eager.labels and lazy.name == eager.name
    assert lazy.duplicate_ids == eager.duplicate_ids and lazy.last_id() == eager.last_id()
    for entry_id in ["a", "b", "c", "d", "e", "f", "zz"]:
        assert (entry_id in lazy) == (entry_id in eager.by_id)
        assert lazy.get(entry_id) == eager.by_id.get(entry_id)
        assert list(lazy.path(entry_id)) == eager.path(entry_id)
        assert lazy.path(entry_id) == eager.path(entry_id)  # a Branch equals the list of its entries
        assert lazy.children(entry_id) == eager.children(entry_id)
    assert lazy.children(None) == eager.children(None)
    assert _shape(lazy.tree()) == _shape(reference.tree())
