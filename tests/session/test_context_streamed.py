"""The context is built from a session's branch reading one entry at a time, and only the entries it takes: the
same context a build over every parsed entry gives (the reference below is that build, as it was written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from navtui.core.messages import AssistantMessage
from navtui.session.context import (
    COMPACTION_PREFIX,
    COMPACTION_SUFFIX,
    HANDOVER_OPENING,
    OPENING_NOTE,
    SessionContext,
    _user,
    build_context,
    context_message,
    repair_conversation,
)
from navtui.session.entries import (
    CompactionEntry,
    Entry,
    MessageEntry,
    ModelChangeEntry,
    ThinkingLevelChangeEntry,
    is_handover,
    parse_entry,
)
from navtui.session.manager import SessionManager
from navtui.session.store import encode_line
from tests.session.helpers import assistant, call, result, user


def reference_context(path: list[Entry]) -> SessionContext:
    """Every entry parsed and held, looked at in order (build_context before it read entries one at a time)."""
    context = SessionContext(leaf_id=path[-1].id if path else None)
    changed: Any = None
    changed_url = None
    answered_by = None
    compaction_at = handover_at = -1
    for index, entry in enumerate(path):
        if isinstance(entry, ThinkingLevelChangeEntry):
            context.thinking_level, context.thinking_level_recorded = entry.thinking_level or "off", True
        elif isinstance(entry, ModelChangeEntry):
            if (entry.role or "default") == "default":
                changed, changed_url = entry.resolved, entry.base_url
        elif isinstance(entry, MessageEntry):
            if isinstance(entry.message, AssistantMessage) and entry.message.model:
                answered_by = (entry.message.provider, entry.message.model)
        elif isinstance(entry, CompactionEntry):
            compaction_at = index
        elif is_handover(entry):
            handover_at = index
    context.provider, context.model = changed or answered_by or (None, None)
    context.base_url = changed_url if changed else None
    start = handover_at + 1
    if handover_at >= 0:
        context.handover_notes = path[handover_at].text  # type: ignore[union-attr]
    messages: list[Any] = []
    if compaction_at > handover_at:
        compaction = path[compaction_at]
        assert isinstance(compaction, CompactionEntry)
        context.compaction = compaction
        messages.append(_user(COMPACTION_PREFIX + compaction.summary + COMPACTION_SUFFIX, compaction.timestamp))
        kept_from = compaction_at
        for index in range(start, compaction_at):
            if path[index].id == compaction.first_kept_entry_id:
                kept_from = index
                break
        selected = path[kept_from:compaction_at] + path[compaction_at + 1 :]
    else:
        selected = path[start:]
    messages.extend(m for m in map(context_message, selected) if m is not None)
    opening = HANDOVER_OPENING if context.handover_notes is not None else OPENING_NOTE
    context.messages = repair_conversation(messages, opening=opening)
    return context


def _record(draw: st.DrawFn, entry_id: str, parent: str | None) -> dict[str, Any]:
    base = {"id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
    kind = draw(st.sampled_from(["user", "answer", "answer", "tools", "model", "thinking", "compaction", "handover"]))
    if kind == "user":
        return {**base, "type": "message", "message": user(f"q {entry_id}").to_json()}
    if kind == "answer":
        message = assistant(f"a {entry_id}").model_copy(update={"model": draw(st.sampled_from([None, "m1", "m2"]))})
        return {**base, "type": "message", "message": message.to_json()}
    if kind == "tools":
        return {**base, "type": "message", "message": assistant("", call(f"c{entry_id}")).to_json()}
    if kind == "model":
        return {
            **base,
            "type": "model_change",
            "provider": "ollama",
            "modelId": "m3",
            "role": draw(st.sampled_from([None, "default", "smol"])),
        }
    if kind == "thinking":
        return {**base, "type": "thinking_level_change", "thinkingLevel": draw(st.sampled_from(["high", None]))}
    if kind == "compaction":
        kept = draw(st.sampled_from(["e000", "e003", "e007", "ffffffff", None]))
        return {**base, "type": "compaction", "summary": "s", "firstKeptEntryId": kept, "tokensBefore": 9}
    return {
        **base,
        "type": "custom_message",
        "customType": draw(st.sampled_from(["handover", "advisor"])),
        "content": "notes",
    }


@st.composite
def sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    parent = None
    for n in range(draw(st.integers(1, 16))):
        record = _record(draw, f"e{n:03d}", parent)
        records.append(record)
        if record["type"] == "message" and "tools" in json.dumps(record) and draw(st.booleans()):
            records.append(
                {
                    "id": f"r{n:03d}",
                    "parentId": record["id"],
                    "timestamp": "2026-01-01T00:00:00.000Z",
                    "type": "message",
                    "message": result(f"c{record['id']}").to_json(),
                }
            )
        parent = records[-1]["id"]
    return records


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    path.write_bytes(b"".join(encode_line(record) for record in [header, *records]))
    return path


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sessions())
def test_the_context_read_entry_by_entry_is_the_context_of_every_entry(
    tmp_path: Path, records: list[dict[str, Any]]
) -> None:
    session = SessionManager.open(_write(tmp_path / "s.jsonl", records))
    expected = reference_context([parse_entry(json.loads(json.dumps(record))) for record in records])
    built = session.build_context()
    assert built == expected
    assert build_context(list(session.get_branch())) == expected  # a list of entries gives the same
    # A reader along the path gets every entry of it in order, from the pass or, once built, from the branch.
    read: list[Entry] = []
    fresh = SessionManager.open(tmp_path / "s.jsonl")
    assert fresh.build_context(read_along=read.append) == expected
    assert read == list(fresh.get_branch())
    again: list[Entry] = []
    assert fresh.build_context(read_along=again.append) == expected and again == read


def test_a_compacted_branch_reads_only_what_its_context_takes(tmp_path: Path) -> None:
    records: list[dict[str, Any]] = []
    parent = None
    for n in range(1000):
        message = user(f"q {n}") if n % 2 == 0 else assistant(f"a {n}").model_copy(update={"model": "m1"})
        records.append(
            {
                "type": "message",
                "id": f"e{n:04d}",
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": message.to_json(),
            }
        )
        parent = records[-1]["id"]
    records.insert(
        900,
        {
            "type": "compaction",
            "id": "cmp1",
            "parentId": "e0899",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "summary": "s",
            "firstKeptEntryId": "e0850",
            "tokensBefore": 9,
        },
    )
    records[901]["parentId"] = "cmp1"
    session = SessionManager.open(_write(tmp_path / "s.jsonl", records))
    context = session.build_context()
    assert [m.text for m in context.messages[1:3]] == ["q 850", "a 851"] and context.model == "m1"
    assert len(context.messages) == 1 + 150
    # The compaction, and the 150 entries from the first kept one: not the 850 before.
    assert session._index.lines_parsed == 151


def test_a_reader_along_the_path_parses_no_line_again(tmp_path: Path) -> None:
    """The transcript of a resumed session reads the whole path as its context is built: each line is parsed once,
    the entries the context skips (before a compaction's first kept entry) and the state entries it reads first
    (a model change, an advisor's note) included. (Read again apart, a 20,000-entry path was parsed twice.)"""
    records: list[dict[str, Any]] = []
    parent = None
    for n in range(1000):
        message = user(f"q {n}") if n % 2 == 0 else assistant(f"a {n}")
        record = {"type": "message", "id": f"e{n:04d}", "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
        records.append({**record, "message": message.to_json()})
        if n == 100:
            records.append({**record, "id": "model", "type": "model_change", "provider": "ollama", "modelId": "m3"})
        if n == 300:
            records.append({**record, "id": "note", "type": "custom_message", "customType": "advisor", "content": "x"})
        if n == 899:
            compaction = {"id": "cmp1", "type": "compaction", "summary": "s", "firstKeptEntryId": "e0850"}
            records.append({**record, **compaction, "tokensBefore": 9})
        parent = records[-1]["id"]
        if records[-1]["id"] != record["id"]:
            records[-1]["parentId"] = record["id"]
            records[-2]["parentId"] = record["parentId"]
            parent = records[-1]["id"]
    session = SessionManager.open(_write(tmp_path / "s.jsonl", records))
    read: list[Entry] = []
    context = session.build_context(read_along=read.append)
    assert [entry.id for entry in read] == session.branch_ids() and len(read) == 1003
    assert context.model == "m3" and [m.text for m in context.messages[1:3]] == ["q 850", "a 851"]
    assert session._index.lines_parsed == 1003
