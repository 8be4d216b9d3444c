"""Asking the model once (``agent/ask.py``) and what the one-shot callers build on it."""

from __future__ import annotations

import pytest

from navtui.agent.ask import ask_model, ask_text
from navtui.agent.branch_summary import summarize_branch
from navtui.core.errors import NavtuiError, ProviderError
from navtui.core.events import ErrorEvent, StopEvent, TextDelta, ToolCallEvent
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, UserMessage
from navtui.session.entries import BranchSummaryEntry, MessageEntry
from tests.agent.scripted import ScriptedProvider


async def test_the_reply_is_read_to_its_end_and_the_stream_closed() -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "a.py"})
    provider = ScriptedProvider(
        [TextDelta(text=" Sum"), TextDelta(text="mary. "), ToolCallEvent(call=call), StopEvent(reason="tool_use")]
    )
    reply = await ask_model(provider, system="sys", messages=[UserMessage(content="hi")], max_tokens=50)
    assert (reply.text, reply.tool_calls) == ("Summary.", [call])
    assert provider.closed_streams == 1
    sent = provider.requests[0]
    assert (sent.system, sent.max_tokens, sent.think, list(sent.tools)) == ("sys", 50, False, [])


async def test_until_stops_reading_at_the_call_it_accepts() -> None:
    first = ToolCall(id="1", name="read", arguments={})
    wanted = ToolCall(id="2", name="handover", arguments={})
    provider = ScriptedProvider(
        [ToolCallEvent(call=first), ToolCallEvent(call=wanted), TextDelta(text="never read"), StopEvent(reason="stop")]
    )
    reply = await ask_model(provider, system="s", messages=[], until=lambda call: call.name == "handover")
    assert reply.tool_calls == [first, wanted] and reply.text == ""
    assert provider.closed_streams == 1


async def test_a_failed_request_raises_with_its_kind_and_hint() -> None:
    provider = ScriptedProvider(
        [TextDelta(text="so far"), ErrorEvent(message="too long", kind="overflow", hint="compact")]
    )
    with pytest.raises(ProviderError) as caught:
        await ask_text(provider, "s", "text", max_tokens=10)
    assert (caught.value.message, caught.value.kind, caught.value.hint) == ("too long", "overflow", "compact")


def _assistant(*calls: ToolCall) -> MessageEntry:
    return MessageEntry(id="a" * 8, parent_id=None, message=AssistantMessage(content=[TextBlock(text="ok"), *calls]))


async def test_a_branch_summary_lists_its_files_as_compaction_does() -> None:
    entries = [
        BranchSummaryEntry(id="b" * 8, parent_id=None, summary="earlier\n\n<files>\nold.py (Read)\n</files>"),
        MessageEntry(id="c" * 8, parent_id=None, message=UserMessage(content="fix it")),
        _assistant(
            ToolCall(id="1", name="read", arguments={"path": "a.py"}),
            ToolCall(id="2", name="edit", arguments={"path": "a.py", "old_text": "x", "new_text": "y"}),
        ),
    ]
    provider = ScriptedProvider([TextDelta(text="## Goal\nFix it."), StopEvent(reason="stop")])
    summary = await summarize_branch(provider, entries)
    assert summary == "## Goal\nFix it.\n\n<files>\na.py (RW)\nold.py (Read)\n</files>"
    assert "<conversation>" in provider.requests[0].messages[0].text


async def test_a_failed_branch_summary_says_so() -> None:
    provider = ScriptedProvider([ErrorEvent(message="model exploded")])
    with pytest.raises(NavtuiError, match="The branch summary failed: model exploded"):
        await summarize_branch(provider, [MessageEntry(id="c" * 8, parent_id=None, message=UserMessage(content="q"))])
