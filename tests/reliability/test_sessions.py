"""Session store scenarios S01-S13 in one process (the real-process ones are in test_session_crashes.py)."""

from __future__ import annotations

import base64
import errno
import json
import os
from pathlib import Path

import pytest
from pydantic import BaseModel

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.errors import NavtuiError
from navtui.core.messages import ImageBlock, TextBlock, UserMessage
from navtui.session import store
from navtui.session.manager import SessionManager
from navtui.session.store import encode_line
from navtui.tools.base import Tool, ToolContext, ToolResult
from tests.fakes import FakeServer, Text, ToolCall
from tests.session.helpers import assistant, user

SEPARATORS = "a\u2028b\u2029c\x85d\x0ce\x1cf\r\ng"
LAST = json.dumps(
    {"type": "message", "id": "torn0001", "parentId": None, "message": {"role": "user", "content": "né 🦀 ü"}},
    ensure_ascii=False,
).encode()


MODEL = "qwen2.5-coder:7b"


class _FloodArgs(BaseModel):
    pass


def _ids(manager: SessionManager) -> list[str]:
    return [entry.id for entry in manager.entries if entry.id is not None]


# ---------------------------------------------------------------------------------------------------- S01 torn tail
def test_s01_a_tail_torn_at_any_byte_loses_only_itself_and_never_fuses(session: SessionManager) -> None:
    kept = [session.append_message(user(f"kept {i}")) for i in range(3)]
    session.close()
    intact = session.path.read_bytes()
    for cut in range(1, len(LAST)):  # every offset, inside multibyte characters too
        session.path.write_bytes(intact + LAST[:cut])
        torn = SessionManager.open(session.path)
        assert _ids(torn) == kept, cut
        assert len(torn.warnings) == 1 and "cut short" in torn.warnings[0], (cut, torn.warnings)
        later = torn.append_message(user("after the crash"))
        torn.close()
        data = session.path.read_bytes()
        assert data.startswith(intact + LAST[:cut] + b"\n"), cut  # the torn bytes are kept, on their own line
        again = SessionManager.open(session.path)
        assert _ids(again) == [*kept, later] and len(again.warnings) == 1, cut
        assert again.get_entry(later).parent_id == kept[-1]  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------------------- S02 garbage
@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda line: b'{"type":"message","id":"brok', id="garbage-line"),
        pytest.param(lambda line: b"\x00" * 600, id="nul-run"),
        pytest.param(lambda line: line + line, id="two-records-fused"),
        pytest.param(lambda line: b"\x00" * 64 + b"\n" + b"\x00" * 8 + line, id="nul-run-before-a-good-line"),
    ],
)
def test_s02_garbage_mid_file_is_skipped_counted_and_hides_nothing_after_it(session: SessionManager, damage) -> None:
    ids = [session.append_message(user(f"prompt {i}")) for i in range(5)]
    session.close()
    lines = session.path.read_bytes().split(b"\n")
    lines[3] = damage(lines[3])  # the third entry (line 4)
    damaged = b"\n".join(lines)
    session.path.write_bytes(damaged)
    reopened = SessionManager.open(session.path)
    survived = _ids(reopened)
    assert survived[-2:] == ids[3:]  # what comes after the damage still loads: context is not cut short
    lost = [i for i in ids if i not in survived]
    if lost:
        assert lost == [ids[2]]
        assert len(reopened.warnings) == 1 and "(4)" in reopened.warnings[0]
    reopened.append_message(user("more"))
    assert session.path.read_bytes().startswith(damaged)  # the damaged bytes are preserved as they were


# ---------------------------------------------------------------------------------------------------- S03 header
def test_s03_a_corrupt_header_opens_read_only_and_the_file_stays_byte_identical(tmp_path: Path) -> None:
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
    copy = manager.create_branched_session("00000001")  # the recovery path: a fork in a new file
    assert copy.path != path and path.read_bytes() == content
    assert [e.id for e in SessionManager.open(copy.path).entries] == ["00000001"]


# ---------------------------------------------------------------------------------------------------- S04 graph
def test_s04_orphans_cycles_and_duplicate_ids_keep_every_entry_reachable(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    lines = [
        '{"type":"session","version":3,"id":"s","cwd":"/w"}',
        '{"type":"custom","id":"aaaaaaaa","parentId":"bbbbbbbb","timestamp":"1","customType":"x"}',
        '{"type":"custom","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2","customType":"x"}',
        '{"type":"custom","id":"cccccccc","parentId":"missing0","timestamp":"3","customType":"x"}',
        '{"type":"custom","id":"cccccccc","parentId":null,"timestamp":"4","customType":"duplicate"}',
    ]
    path.write_text("\n".join(lines) + "\n")
    manager = SessionManager.open(path)
    seen = []
    stack = list(manager.get_tree())
    while stack:
        node = stack.pop()
        seen.append(node.entry.id)
        stack.extend(node.children)
    assert sorted(seen) == ["aaaaaaaa", "bbbbbbbb", "cccccccc"]
    assert [e.id for e in manager.get_branch("bbbbbbbb")] == ["aaaaaaaa", "bbbbbbbb"]
    assert any("repeat an earlier id" in w for w in manager.warnings)
    assert manager.leaf_id is not None and manager.get_entry(manager.leaf_id) is not None
    assert manager.build_context().messages == []  # no infinite walk, and custom entries are not messages


# ---------------------------------------------------------------------------------------------------- S05 framing
def test_s05_unicode_line_separators_stay_inside_one_record(session: SessionManager) -> None:
    entry_id = session.append_message(user(SEPARATORS))
    session.append_message(assistant(SEPARATORS))
    raw = session.path.read_bytes()
    assert raw.count(b"\n") == 3  # header + two entries: U+2028 and friends never split a record
    reopened = SessionManager.open(session.path)
    assert reopened.warnings == []
    assert reopened.get_entry(entry_id).message.text == SEPARATORS  # type: ignore[union-attr]
    assert reopened.entries[1].message.text == SEPARATORS  # type: ignore[union-attr]


def test_s05_a_lone_surrogate_is_escaped_not_fatal() -> None:
    line = encode_line({"text": "bad \udcff byte"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line)["text"] == "bad \udcff byte"


# ---------------------------------------------------------------------------------------------------- S07 ENOSPC
def test_s07_a_failed_append_is_rolled_back_kept_in_memory_and_written_when_space_returns(
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
    assert "the disk is full" in session.warnings[-1]
    with pytest.raises(NavtuiError, match="Could not save the session"):
        session.sync()
    monkeypatch.setattr(store, "_write_all", real_write_all)
    third = session.append_message(user("disk has room again"))
    session.sync()
    assert session.unsaved_count == 0 and session.write_error is None
    assert _ids(SessionManager.open(session.path)) == [first, second, third]


# ---------------------------------------------------------------------------------------------------- S09 rewrite
def test_s09_entries_another_process_appended_survive_a_compaction(session: SessionManager) -> None:
    """navtui's compaction appends a summary entry; it never rewrites the file, so nothing can be erased."""
    first = session.append_message(user("one"))
    session.append_message(assistant("two"))
    other = SessionManager.open(session.path)  # another navtui on the same file
    theirs = other.append_message(user("written by the other process"))
    other.close()
    compaction = session.append_compaction("one and two happened", first, 1234)
    session.sync()
    reloaded = SessionManager.open(session.path)
    assert reloaded.warnings == []
    assert reloaded.get_entry(theirs) is not None and reloaded.get_entry(compaction) is not None
    assert len(reloaded.entries) == 4


# ---------------------------------------------------------------------------------------------------- S12 huge
class _Flood(Tool[_FloodArgs]):
    name = "flood"
    description = "Return a lot of text."
    Args = _FloodArgs

    async def run(self, args: _FloodArgs, ctx: ToolContext) -> ToolResult:
        return ToolResult("start " + "y" * (50 * 1024 * 1024) + " end")


async def test_s12_a_50_mb_tool_result_and_a_20_mb_image_keep_every_session_line_small(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    fake_server.script(ToolCall("flood", {}))
    fake_server.script(Text("got it"))
    runtime = Runtime.create(LaunchOptions(cwd=workspace, provider="ollama", base_url=fake_server.url, model=MODEL))
    runtime.tools.add(_Flood())
    events = [event async for event in runtime.run("flood me")]
    image = base64.b64encode(os.urandom(15 * 1024 * 1024)).decode()  # 20 MB of base64
    runtime.session.append_message(UserMessage(content=[TextBlock(text="look"), ImageBlock(data=image)]))
    await runtime.aclose()
    assert events[-1].text == "got it"
    lines = runtime.session.path.read_bytes().split(b"\n")
    assert max(len(line) for line in lines) < 1024 * 1024
    sent = [m["content"] for m in fake_server.chat_requests[-1].json["messages"] if m["role"] == "tool"][0]
    assert sent.startswith("start ") and sent.endswith(" end") and "characters of" in sent
    kept = os.stat(sent.split("The whole result is in ", 1)[1].split(" ...]", 1)[0].rstrip("."))
    assert kept.st_size == 50 * 1024 * 1024 + len("start  end") and kept.st_mode & 0o077 == 0
    reopened = SessionManager.open(runtime.session.path)
    [message] = [
        e.message
        for e in reopened.entries
        if e.type == "message" and e.message.role == "user" and not isinstance(e.message.content, str)
    ]  # type: ignore[union-attr]
    assert message.content[1].data.startswith("blob:sha256:")  # type: ignore[union-attr]
