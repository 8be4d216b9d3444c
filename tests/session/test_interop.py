"""Real pi and omp session files (tests/session/fixtures) round-trip through navtui, and navtui's own files carry
what pi's and omp's loaders require."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, Usage
from navtui.session.interop import TITLE_SLOT_BYTES, parse_title_slot
from navtui.session.manager import SessionManager
from tests.session.helpers import conversation_problems, user

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Case:
    file: str
    version: int
    entries: int
    model: tuple[str, str]
    thinking: str
    name: str | None


# What pi's and omp's own loaders make of each file (fixtures/check/*, run by hand on the fixtures).
CASES = [
    Case("pi-v1-before-compaction.jsonl", 1, 24, ("anthropic", "claude-opus-4-5"), "high", None),
    Case("pi-v1-large-session.jsonl", 1, 33, ("anthropic", "claude-sonnet-4-5"), "off", None),
    Case("pi-v2.jsonl", 2, 9, ("openai", "gpt-5.1-codex"), "low", None),
    Case("pi-v3.jsonl", 3, 17, ("openai", "gpt-4o"), "high", "File listing"),
    Case("omp-18.jsonl", 3, 11, ("anthropic", "claude-sonnet-4-5"), "medium", "Explaining main.py"),
]
IDS = [case.file.removesuffix(".jsonl") for case in CASES]


def copy_fixture(name: str, directory: Path) -> Path:
    target = directory / name
    shutil.copyfile(FIXTURES / name, target)
    return target


def records(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def navtui_answer(text: str) -> AssistantMessage:
    """An answer as navtui's loop makes it: provider and model, no api, no totals, no cost."""
    return AssistantMessage(
        content=[TextBlock(text=text)], provider="ollama", model="qwen3:4b", usage=Usage(input=10, output=3)
    )


def assert_pi_complete(record: dict[str, Any]) -> None:
    """The fields pi's AssistantMessage type requires and its footer reads unguarded."""
    message = record["message"]
    assert isinstance(message["api"], str) and isinstance(message["provider"], str)
    assert isinstance(message["model"], str) and isinstance(message["stopReason"], str)
    assert isinstance(message["timestamp"], int)
    usage = message["usage"]
    assert usage["totalTokens"] == usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
    assert set(usage["cost"]) == {"input", "output", "cacheRead", "cacheWrite", "total"}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_each_file_reads_as_its_own_tool_reads_it(case: Case, tmp_path: Path) -> None:
    path = copy_fixture(case.file, tmp_path)
    before = path.read_bytes()
    session = SessionManager.open(path)
    assert session.warnings == [] and session.read_only_reason is None
    assert len(session.entries) == case.entries
    assert session.migrated_from_version == (case.version if case.version < 3 else None)
    context = session.build_context()
    assert (context.provider, context.model) == case.model
    assert context.thinking_level == case.thinking and session.name == case.name
    assert context.messages and conversation_problems(context.messages) == []
    assert path.read_bytes() == before  # reading never writes


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_read_resume_append_reread_keeps_every_original_field(case: Case, tmp_path: Path) -> None:
    path = copy_fixture(case.file, tmp_path)
    original = path.read_bytes()
    session = SessionManager.open(path)
    leaf = session.leaf_id
    first = session.append_message(user("navtui was here"))
    session.append_message(navtui_answer("hello from navtui"))
    session.append_model_change("ollama", "qwen3:4b")
    session.sync()

    if case.version == 3:  # appended to in place: the original bytes are the file's prefix, untouched
        assert session.path == path and path.read_bytes().startswith(original)
        written = path.read_bytes()[len(original) :]
    else:  # never rewritten: the migrated history and the new entries went into a new v3 file beside it
        assert path.read_bytes() == original
        assert session.path.parent == path.parent and session.path != path
        header, *copied = records(session.path.read_bytes())
        assert header["version"] == 3 and header["parentSession"] == str(path)
        assert_migrated_faithfully(records(original), header, copied)
        written = b"".join(line + b"\n" for line in session.path.read_bytes().splitlines()[-3:])

    new_lines = records(written)
    assert [r["type"] for r in new_lines] == ["message", "message", "model_change"]
    assert new_lines[0]["parentId"] == leaf
    assert_pi_complete(new_lines[1])
    assert new_lines[2] | {"provider": "ollama", "modelId": "qwen3:4b", "model": "ollama/qwen3:4b"} == new_lines[2]

    reread = SessionManager.open(session.path)
    assert reread.warnings == [] and reread.leaf_id == new_lines[2]["id"]
    assert reread.get_entry(first).parent_id == leaf  # type: ignore[union-attr]
    context = reread.build_context()
    assert [m.text for m in context.messages[-2:]] == ["navtui was here", "hello from navtui"]
    assert (context.provider, context.model) == ("ollama", "qwen3:4b")


def assert_migrated_faithfully(
    original: list[dict[str, Any]], header: dict[str, Any], copied: list[dict[str, Any]]
) -> None:
    """Every field of the v1/v2 original is in its v3 copy, unchanged but for pi's own migration steps."""
    old_header, *old = original
    for key, value in old_header.items():
        if key not in ("id", "timestamp", "version"):
            assert header[key] == value, key
    by_index = {i: record for i, record in enumerate(copied)}
    for i, record in enumerate(old):
        new = by_index[i]
        expected = {**record, "id": new["id"], "parentId": new["parentId"]}
        if "firstKeptEntryIndex" in record:
            expected.pop("firstKeptEntryIndex")
            expected["firstKeptEntryId"] = new["firstKeptEntryId"]
        if record.get("message", {}).get("role") == "hookMessage":
            expected["message"] = {**record["message"], "role": "custom"}
        assert new == expected


def test_a_file_navtui_writes_has_what_pi_and_omp_require(tmp_path: Path) -> None:
    session = SessionManager.create(tmp_path, root=tmp_path / "sessions")
    session.append_message(user("list files"))
    bare = AssistantMessage(content=[ToolCall(id="c1", name="ls", arguments={})], provider="anthropic", model="m")
    session.append_message(bare)
    session.append_model_change("openai", "gpt-4o")
    session.append_thinking_level_change("high")
    lines = records(session.path.read_bytes())
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3
    assert_pi_complete(lines[2])
    assert lines[2]["message"]["api"] == "anthropic-messages" and lines[2]["message"]["stopReason"] == "stop"
    assert lines[3]["provider"] == "openai" and lines[3]["modelId"] == "gpt-4o" and lines[3]["model"] == "openai/gpt-4o"
    assert lines[4]["thinkingLevel"] == "high"
    assert all(isinstance(line["timestamp"], str) and len(line["id"]) == 8 for line in lines[1:])


def test_an_omp_title_slot_names_the_session_and_is_renamed_in_place(tmp_path: Path) -> None:
    path = copy_fixture("omp-18.jsonl", tmp_path)
    original = path.read_bytes()
    session = SessionManager.open(path)
    assert session.title_slot is not None and session.title_slot.source == "user"
    assert session.header.id == "01a20876-b7eb-7104-9531-e1a9e5b2c44e"
    session.set_name("Reading main.py again ✓")
    data = path.read_bytes()
    slot = json.loads(data[:TITLE_SLOT_BYTES])
    assert len(data[:TITLE_SLOT_BYTES]) == TITLE_SLOT_BYTES and data[TITLE_SLOT_BYTES - 1 : TITLE_SLOT_BYTES] == b"\n"
    assert parse_title_slot(slot) is not None and slot["title"] == "Reading main.py again ✓"
    assert data[TITLE_SLOT_BYTES : len(original)] == original[TITLE_SLOT_BYTES:]  # the rest is untouched
    change = records(data[len(original) :])[-1]
    assert change["type"] == "title_change" and change["source"] == "user"
    assert change["previousTitle"] == "Explaining main.py"
    assert SessionManager.open(path).name == "Reading main.py again ✓"


def test_a_long_title_is_cut_to_fit_the_slot(tmp_path: Path) -> None:
    path = copy_fixture("omp-18.jsonl", tmp_path)
    session = SessionManager.open(path)
    session.set_name("é" * 400)
    head = path.read_bytes()[:TITLE_SLOT_BYTES]
    title = json.loads(head)["title"]
    assert head.endswith(b"\n") and 0 < len(title) < 400 and set(title) == {"é"}


def test_read_tail_finds_the_header_after_the_title_slot(tmp_path: Path) -> None:
    tail = SessionManager.read_tail(copy_fixture("omp-18.jsonl", tmp_path), 3)
    assert tail.header is not None and tail.header.cwd == "/home/dev/omp-project"
    assert [e.type for e in tail.entries] == ["custom_message", "label", "title_change"]
    whole = SessionManager.read_tail(tmp_path / "omp-18.jsonl", 100)
    assert len(whole.entries) == 11 and all(e.type != "title" for e in whole.entries)


def test_branching_copies_unchanged_lines_byte_for_byte(tmp_path: Path) -> None:
    path = copy_fixture("pi-v3.jsonl", tmp_path)
    lines = path.read_bytes().splitlines()
    source = {r["id"]: line for line, r in zip(lines, records(path.read_bytes()), strict=True) if "id" in r}
    session = SessionManager.open(path)
    branched = session.create_branched_session(session.leaf_id)
    copied = 0
    for line in branched.path.read_bytes().splitlines()[1:]:
        record = json.loads(line)
        if record["type"] == "label":  # labels are re-created for the copied path
            continue
        original = source[record["id"]]
        if record["parentId"] == json.loads(original)["parentId"]:
            assert line == original
            copied += 1
        else:  # its parent (a label) was left out: only parentId differs
            assert record == {**json.loads(original), "parentId": record["parentId"]}
    assert copied >= 10
