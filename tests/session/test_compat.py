"""pi and omp files open in navtui: v3 unchanged, v1/v2 migrated in memory and rewritten as v3 before navtui writes."""

from __future__ import annotations

import json
from pathlib import Path

from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from navtui.session.context import COMPACTION_PREFIX
from navtui.session.entries import RawEntry
from navtui.session.manager import SessionManager
from tests.session.helpers import conversation_problems, user

# Written by hand from pi's docs/session.md (format v3); a branch, a compaction, pi's extended roles.
PI_V3 = [
    {"type": "session", "version": 3, "id": "e99116ac-a6da-48fc", "timestamp": "2026-01-24T16:22:26.831Z", "cwd": "/p"},
    {"type": "model_change", "id": "m0000001", "parentId": None, "timestamp": "2026-01-24T16:22:27.000Z",
     "provider": "anthropic", "modelId": "claude-sonnet-4-5"},
    {"type": "message", "id": "u0000001", "parentId": "m0000001", "timestamp": "2026-01-24T16:22:28.000Z",
     "message": {"role": "user", "content": "List the files", "timestamp": 1769271748000}},
    {"type": "message", "id": "a0000001", "parentId": "u0000001", "timestamp": "2026-01-24T16:22:29.000Z",
     "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "use bash"},
                                                  {"type": "toolCall", "id": "call_1", "name": "bash",
                                                   "arguments": {"command": "ls"}}],
                 "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                 "usage": {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
                           "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                 "stopReason": "toolUse", "timestamp": 1769271749000}},
    {"type": "message", "id": "t0000001", "parentId": "a0000001", "timestamp": "2026-01-24T16:22:30.000Z",
     "message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
                 "content": [{"type": "text", "text": "a.py\nb.py"}], "isError": False, "timestamp": 1769271750000}},
    {"type": "message", "id": "a0000002", "parentId": "t0000001", "timestamp": "2026-01-24T16:22:31.000Z",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "a.py and b.py"}],
                 "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop"}},
    {"type": "message", "id": "u0000002", "parentId": "a0000002", "timestamp": "2026-01-24T16:23:00.000Z",
     "message": {"role": "user", "content": "abandoned question"}},
    {"type": "branch_summary", "id": "s0000001", "parentId": "a0000002", "timestamp": "2026-01-24T16:24:00.000Z",
     "fromId": "a0000002", "summary": "Asked something, dropped it."},
    {"type": "thinking_level_change", "id": "k0000001", "parentId": "s0000001",
     "timestamp": "2026-01-24T16:24:01.000Z", "thinkingLevel": "high"},
    {"type": "message", "id": "x0000001", "parentId": "k0000001", "timestamp": "2026-01-24T16:24:02.000Z",
     "message": {"role": "bashExecution", "command": "git status", "output": "clean", "exitCode": 0,
                 "cancelled": False, "truncated": False, "timestamp": 1769271842000}},
    {"type": "message", "id": "x0000002", "parentId": "x0000001", "timestamp": "2026-01-24T16:24:03.000Z",
     "message": {"role": "bashExecution", "command": "secret", "output": "hidden", "exitCode": 0,
                 "cancelled": False, "truncated": False, "excludeFromContext": True}},
    {"type": "custom_message", "id": "c0000001", "parentId": "x0000002", "timestamp": "2026-01-24T16:24:04.000Z",
     "customType": "my-extension", "content": "Injected context", "display": True},
    {"type": "compaction", "id": "p0000001", "parentId": "c0000001", "timestamp": "2026-01-24T16:25:00.000Z",
     "summary": "User listed files.", "firstKeptEntryId": "a0000002", "tokensBefore": 50000,
     "details": {"readFiles": [], "modifiedFiles": []}},
    {"type": "label", "id": "l0000001", "parentId": "p0000001", "timestamp": "2026-01-24T16:25:01.000Z",
     "targetId": "u0000001", "label": "checkpoint-1"},
    {"type": "session_info", "id": "i0000001", "parentId": "l0000001", "timestamp": "2026-01-24T16:25:02.000Z",
     "name": "File listing"},
    {"type": "ttsr_injection", "id": "r0000001", "parentId": "i0000001", "timestamp": "2026-01-24T16:25:03.000Z",
     "injectedRules": ["ruleA"]},
    {"type": "message", "id": "u0000003", "parentId": "r0000001", "timestamp": "2026-01-24T16:26:00.000Z",
     "message": {"role": "user", "content": [{"type": "text", "text": "Now read a.py"}]}},
]  # fmt: skip


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_hand_written_pi_v3_file_loads_unchanged_and_builds_the_right_context(tmp_path: Path) -> None:
    path = _write(tmp_path / "pi.jsonl", PI_V3)
    before = path.read_bytes()
    session = SessionManager.open(path)
    assert session.warnings == [] and session.read_only_reason is None
    assert session.session_id == "e99116ac-a6da-48fc" and session.name == "File listing"
    assert session.leaf_id == "u0000003" and session.label_of("u0000001") == "checkpoint-1"
    assert isinstance(session.get_entry("r0000001"), RawEntry)
    context = session.build_context()
    texts = [m.text for m in context.messages]
    assert texts == [
        f"{COMPACTION_PREFIX}User listed files.\n</summary>",
        "a.py and b.py",
        texts[2],
        "Ran `git status`\n```\nclean\n```",
        "Injected context",
        "Now read a.py",
    ]
    assert "Asked something, dropped it." in texts[2]
    assert (context.provider, context.model, context.thinking_level) == ("anthropic", "claude-sonnet-4-5", "high")
    assert conversation_problems(context.messages) == []
    assert path.read_bytes() == before  # opening never rewrites a v3 file


def test_the_pi_branch_before_the_compaction_reaches_the_model_whole(tmp_path: Path) -> None:
    session = SessionManager.open(_write(tmp_path / "pi.jsonl", PI_V3))
    messages = session.build_context("u0000002").messages
    assert [type(m) for m in messages] == [
        UserMessage,
        AssistantMessage,
        ToolResultMessage,
        AssistantMessage,
        UserMessage,
    ]
    assert messages[1].tool_calls[0].arguments == {"command": "ls"}  # type: ignore[union-attr]
    assert messages[-1].text == "abandoned question"


def test_appending_to_a_pi_v3_file_keeps_its_lines(tmp_path: Path) -> None:
    path = _write(tmp_path / "pi.jsonl", PI_V3)
    before = path.read_bytes()
    session = SessionManager.open(path)
    new = session.append_message(user("from navtui"))
    after = path.read_bytes()
    assert after.startswith(before)
    assert SessionManager.open(path).get_entry(new).parent_id == "u0000003"  # type: ignore[union-attr]


V1 = [
    {"type": "session", "id": "old-session", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p",
     "provider": "anthropic", "modelId": "claude-3-5-sonnet", "thinkingLevel": "off"},
    {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z", "message": {"role": "user", "content": "first"}},
    {"type": "message", "timestamp": "2025-01-01T00:00:02.000Z",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "reply"}], "stopReason": "stop"}},
    {"type": "message", "timestamp": "2025-01-01T00:00:03.000Z", "message": {"role": "user", "content": "second"}},
    {"type": "compaction", "timestamp": "2025-01-01T00:00:04.000Z", "summary": "S", "firstKeptEntryIndex": 3,
     "tokensBefore": 10},
    {"type": "message", "timestamp": "2025-01-01T00:00:05.000Z",
     "message": {"role": "hookMessage", "customType": "hook", "content": "hook says hi", "display": True}},
]  # fmt: skip


def test_a_v1_file_is_migrated_in_memory(tmp_path: Path) -> None:
    path = _write(tmp_path / "v1.jsonl", V1)
    before = path.read_bytes()
    session = SessionManager.open(path)
    assert path.read_bytes() == before  # nothing written just by opening
    assert session.migrated_from_version == 1
    entries = session.entries
    assert [e.parent_id for e in entries] == [None] + [e.id for e in entries[:-1]]
    assert entries[3].first_kept_entry_id == entries[2].id  # type: ignore[union-attr]
    assert isinstance(entries[4], RawEntry) and entries[4].raw["message"]["role"] == "custom"  # as pi migrates it
    context = session.build_context()
    assert [m.text for m in context.messages] == [f"{COMPACTION_PREFIX}S\n</summary>", "second", "hook says hi"]
    assert (context.provider, context.model) == ("anthropic", "claude-3-5-sonnet")  # from the v1 header


def test_a_migrated_file_continues_in_a_new_v3_file_and_the_original_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "v2.jsonl"
    lines = [json.dumps(line) for line in V1]
    lines.insert(3, "{not json")
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()
    session = SessionManager.open(path)
    assert len(session.warnings) == 1
    new = session.append_message(user("third"))
    assert path.read_bytes() == before
    assert session.path != path and session.path.parent == path.parent
    assert "left as it was" in session.warnings[-1]
    header = json.loads(session.path.read_text().split("\n")[0])
    assert header["version"] == 3 and header["parentSession"] == str(path)
    assert header["modelId"] == "claude-3-5-sonnet" and header["cwd"] == "/p"  # the v1 header's fields are kept
    reopened = SessionManager.open(session.path)
    assert reopened.migrated_from_version is None and reopened.warnings == []
    assert [(e.type, e.id, e.parent_id) for e in reopened.entries] == [
        (e.type, e.id, e.parent_id) for e in session.entries
    ]
    assert reopened.get_entry(new).parent_id == session.entries[-2].id  # type: ignore[union-attr]
    copied = [json.loads(line) for line in session.path.read_text().splitlines()[1:-1]]
    for original, record in zip(V1[1:], copied, strict=True):  # nothing added, nothing lost
        expected = {**original, "id": record["id"], "parentId": record["parentId"]}
        if original["type"] == "compaction":
            del expected["firstKeptEntryIndex"]
            expected["firstKeptEntryId"] = copied[2]["id"]
        if original.get("message", {}).get("role") == "hookMessage":
            expected["message"] = {**original["message"], "role": "custom"}
        assert record == expected


def test_a_migrated_file_changed_by_someone_else_keeps_their_lines(tmp_path: Path) -> None:
    path = _write(tmp_path / "v1.jsonl", V1)
    session = SessionManager.open(path)
    with open(path, "a") as handle:
        handle.write(json.dumps({"type": "message", "message": {"role": "user", "content": "pi wrote this"}}) + "\n")
    changed = path.read_bytes()
    session.append_message(user("navtui"))
    assert path.read_bytes() == changed and session.unsaved_count == 0
