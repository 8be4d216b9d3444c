"""Entry models: every v3 type parses, writes back in pi's shape, and unknown lines survive untouched."""

from __future__ import annotations

import re

from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from navtui.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    new_entry_id,
    now_iso,
    parse_entry,
    share_field_names,
)

BASE = {"id": "a1b2c3d4", "parentId": None, "timestamp": "2026-02-16T10:21:00.000Z"}


def test_message_entries_parse_their_message_with_the_core_models() -> None:
    user = parse_entry({**BASE, "type": "message", "message": {"role": "user", "content": "Hello"}})
    assistant = parse_entry(
        {
            **BASE,
            "type": "message",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Done."}, {"type": "toolCall", "id": "c1", "name": "read"}],
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "stopReason": "toolUse",
            },
        }
    )
    result = parse_entry(
        {
            **BASE,
            "type": "message",
            "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [], "isError": True},
        }
    )
    assert isinstance(user, MessageEntry) and isinstance(user.message, UserMessage)
    assert user.message.text == "Hello"
    assert isinstance(assistant, MessageEntry) and isinstance(assistant.message, AssistantMessage)
    assert assistant.message.stop_reason == "tool_use" and assistant.message.tool_calls[0].name == "read"
    assert isinstance(result, MessageEntry) and isinstance(result.message, ToolResultMessage)
    assert result.message.is_error


def test_every_entry_type_round_trips_in_pi_shape() -> None:
    lines = [
        {**BASE, "type": "model_change", "provider": "openai", "modelId": "gpt-4o", "role": "default"},
        {**BASE, "type": "thinking_level_change", "thinkingLevel": "high"},
        {
            **BASE,
            "type": "compaction",
            "summary": "S",
            "firstKeptEntryId": "00000001",
            "tokensBefore": 42000,
            "details": {"readFiles": ["a.py"]},
        },
        {**BASE, "type": "branch_summary", "fromId": "root", "summary": "abandoned"},
        {**BASE, "type": "custom_message", "customType": "handover", "content": "notes", "display": True},
        {**BASE, "type": "custom", "customType": "ext", "data": {"state": 1}},
        {**BASE, "type": "label", "targetId": "00000001", "label": "checkpoint"},
        {**BASE, "type": "session_info", "name": "Refactor auth"},
    ]
    kinds = [
        ModelChangeEntry,
        ThinkingLevelChangeEntry,
        CompactionEntry,
        BranchSummaryEntry,
        CustomMessageEntry,
        CustomEntry,
        LabelEntry,
        SessionInfoEntry,
    ]
    for line, kind in zip(lines, kinds, strict=True):
        entry = parse_entry(line)
        assert isinstance(entry, kind), line
        assert entry.to_json() == line


def test_extra_fields_of_known_entries_are_kept() -> None:
    line = {
        **BASE,
        "type": "compaction",
        "summary": "S",
        "firstKeptEntryId": "x",
        "tokensBefore": 1,
        "fromExtension": True,
    }
    assert parse_entry(line).to_json()["fromExtension"] is True


def test_unknown_entry_types_are_kept_verbatim() -> None:
    line = {**BASE, "type": "mode_change", "mode": "plan", "data": {"planFile": "/tmp/plan.md"}}
    entry = parse_entry(line)
    assert isinstance(entry, RawEntry)
    assert (entry.type, entry.id, entry.parent_id) == ("mode_change", "a1b2c3d4", None)
    assert entry.to_json() == line


def test_unreadable_known_entries_and_extended_roles_stay_raw() -> None:
    broken_label = {**BASE, "type": "label"}  # no targetId
    bash = {**BASE, "type": "message", "message": {"role": "bashExecution", "command": "ls", "output": "a"}}
    bad_message = {**BASE, "type": "message", "message": {"role": "user", "content": 5}}
    # a stop reason that is a list, not a string: the alias lookup once raised TypeError (a crash, not raw)
    bad_stop = {**BASE, "type": "message", "message": {"role": "assistant", "content": [], "stopReason": []}}
    for line in (broken_label, bash, bad_message, bad_stop):
        entry = parse_entry(line)
        assert isinstance(entry, RawEntry)
        assert entry.to_json() == line


def test_a_label_without_text_clears_and_is_written_without_the_key() -> None:
    entry = LabelEntry(id="00000002", parent_id="00000001", target_id="00000001", label=None)
    assert "label" not in entry.to_json()
    assert parse_entry(entry.to_json()) == entry


def test_root_entries_write_a_null_parent() -> None:
    entry = CustomEntry(id="00000001", custom_type="x")
    assert list(entry.to_json())[:4] == ["type", "id", "parentId", "timestamp"]
    assert entry.to_json()["parentId"] is None


def test_model_change_reads_both_pi_and_omp_spellings() -> None:
    pi = parse_entry({**BASE, "type": "model_change", "provider": "openai", "modelId": "gpt-4o"})
    omp = parse_entry({**BASE, "type": "model_change", "model": "anthropic/claude-opus-4", "role": "default"})
    assert isinstance(pi, ModelChangeEntry) and pi.resolved == ("openai", "gpt-4o")
    assert isinstance(omp, ModelChangeEntry) and omp.resolved == ("anthropic", "claude-opus-4")


def test_ids_are_eight_hex_and_avoid_taken_ones() -> None:
    ids = {new_entry_id() for _ in range(200)}
    assert all(re.fullmatch(r"[0-9a-f]{8}", i) for i in ids)
    taken = set(ids)
    assert new_entry_id(taken) not in taken


def test_header_and_timestamps() -> None:
    header = SessionHeader(id="abc", cwd="/w", parent_session="/old.jsonl")
    assert header.to_json()["type"] == "session" and header.to_json()["version"] == 3
    assert header.to_json()["parentSession"] == "/old.jsonl"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", now_iso())


def test_models_share_their_field_names_and_still_behave_as_their_own() -> None:
    line = {
        **BASE,
        "type": "message",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "hi"}],
            "provider": "ollama",
            "model": "qwen3",
            "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 3, "cost": {"total": 0}},
            "stopReason": "stop",
            "timestamp": 5,
        },
    }
    first, second = parse_entry(json_copy(line)), parse_entry(json_copy(line))
    assert isinstance(first, MessageEntry) and isinstance(second, MessageEntry)
    assert first.message.model_fields_set is not second.message.model_fields_set  # pydantic's own, each
    share_field_names(first)
    share_field_names(second)
    one, two = first.message, second.message
    assert isinstance(one, AssistantMessage) and isinstance(two, AssistantMessage)
    assert one.usage is not None and two.usage is not None
    # One object of names for all models given the same fields (pydantic keeps a set per model otherwise).
    assert one.model_fields_set is two.model_fields_set
    assert one.usage.model_fields_set is two.usage.model_fields_set
    assert one.content[0].model_fields_set is two.content[0].model_fields_set
    assert "total_tokens" in one.usage.model_fields_set

    one.error_message = "boom"  # assigning to one model changes nothing of another
    one.usage.output = 7
    assert two.error_message is None and two.usage.output == 2
    assert second.to_json() == parse_entry(json_copy(line)).to_json()
    assert first.to_json()["message"]["errorMessage"] == "boom"

    copy = two.model_copy(update={"model": "other"})  # a copy has names of its own, updated
    assert "model" in copy.model_fields_set and copy.model_fields_set is not two.model_fields_set
    assert copy.model == "other" and two.model == "qwen3"


def test_a_shared_model_drops_its_empty_extras_and_copies_of_names_and_zeros_and_dumps_the_same() -> None:
    line = {
        **BASE,
        "type": "message",
        "message": {
            "role": "assistant",
            # pi's textSignature: a field beyond navtui's own, which must stay
            "content": [{"type": "text", "text": "hi", "textSignature": "sig"}, {"type": "text", "text": "more"}],
            "api": "ollama-chat",
            "provider": "ollama",
            "model": "qwen3",
            "usage": {
                "input": 1,
                "output": 2,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 3,
                "cost": {"input": -0.0, "output": 0.0, "cacheRead": 0.5, "cacheWrite": 0, "total": 0.5},
            },
            "stopReason": "stop",
            "timestamp": 5,
        },
    }
    first, second = parse_entry(json_copy(line)), parse_entry(json_copy(line))
    assert isinstance(first, MessageEntry) and isinstance(first.message, AssistantMessage)
    assert isinstance(second, MessageEntry) and isinstance(second.message, AssistantMessage)
    assert first.message.model is not second.message.model  # each line's parse makes its own copy
    share_field_names(first.message)
    share_field_names(second.message)
    one, two = first.message, second.message
    assert one.model is two.model and one.provider is two.provider and one.api is two.api
    assert one.usage is not None and one.usage.cost is not None and two.usage is not None and two.usage.cost is not None
    assert one.usage.cost.output is two.usage.cost.output  # one 0.0
    assert str(one.usage.cost.input) == "-0.0"  # a negative zero is not made positive
    assert one.model_extra is None and one.usage.model_extra is None and one.content[1].model_extra is None
    assert one.content[0].model_extra == {"textSignature": "sig"}
    # The same message as the line's: dumped, compared, copied.
    fresh = parse_entry(json_copy(line))
    assert first.to_json() == fresh.to_json() == line
    assert first == fresh and one == fresh.message  # type: ignore[union-attr]
    copy = one.model_copy(update={"model": "other"})
    assert copy.model == "other" and copy.to_json() == {**line["message"], "model": "other"}
    one.model = "changed"  # and each still its own
    assert two.model == "qwen3"
    assert parse_entry(json_copy(line)) == second


def json_copy(value: dict) -> dict:
    import json

    return json.loads(json.dumps(value))
