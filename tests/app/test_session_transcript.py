"""A resumed session's transcript items: the newest made at load, the older ones made from the session's lines
when scrolled to, and every item equal to what making them all at once gives."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from navtui.app.session_view import session_transcript, transcript_items
from navtui.core.messages import (
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from navtui.session.entries import CompactionEntry, CustomMessageEntry, Entry, MessageEntry, ModelChangeEntry
from navtui.session.manager import SessionManager
from navtui.widgets.items import ToolItem, TranscriptItems, UserItem
from tests.app.conftest import screen_text, settle, transcript, wait_for

SIZE = (100, 32)

_CALLS = ["c1", "c2", "c3"]


def _entry(kind: int, n: int, call: str) -> Entry:
    entry_id = f"e{n}"
    if kind == 0:
        return MessageEntry(id=entry_id, message=UserMessage(content=f"question {n}"))
    if kind == 1:
        return MessageEntry(id=entry_id, message=UserMessage(content=f"[advisor]\n- [concern] note {n}"))
    if kind == 2:
        blocks: list[Any] = [ThinkingBlock(thinking=f"thought {n}"), TextBlock(text=f"answer {n}")]
        return MessageEntry(id=entry_id, message=AssistantMessage(content=blocks))
    if kind == 3:
        tool = ToolCall(id=call, name="read", arguments={"path": f"f{n}.py"})
        return MessageEntry(id=entry_id, message=AssistantMessage(content=[tool], stop_reason="tool_use"))
    if kind == 4:
        result = ToolResultMessage(tool_call_id=call, tool_name="read", content=[TextBlock(text=f"out {n}")])
        return MessageEntry(id=entry_id, message=result)
    if kind == 5:
        return ModelChangeEntry(id=entry_id, provider="ollama", model_id=f"m{n % 2}")
    if kind == 6:
        return CompactionEntry(id=entry_id, summary=f"summary {n}", tokens_before=n)
    if kind == 7:
        return CustomMessageEntry(id=entry_id, custom_type="note", content=f"custom {n}", display=True)
    return MessageEntry(id=entry_id, message=AssistantMessage(content=[TextBlock(text=f" more {n}")]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# A model change before a chunk and another in it: the chunk starts on the model the path was on.
@example([(5, "c1"), (0, "c1"), (2, "c1"), (0, "c1"), (0, "c1"), (5, "c1"), (0, "c1")], 2, 0, random.Random(0))
@given(
    st.lists(st.tuples(st.integers(0, 8), st.sampled_from(_CALLS)), max_size=60),
    st.integers(1, 6),
    st.integers(0, 8),
    st.randoms(use_true_random=False),
)
def test_items_made_a_chunk_at_a_time_equal_those_made_at_once(
    kinds: list[tuple[int, str]], chunk: int, keep: int, order: Any
) -> None:
    entries = [_entry(kind, n, call) for n, (kind, call) in enumerate(kinds)]
    eager = transcript_items(entries)
    lazy = session_transcript(entries, chunk_entries=chunk, keep_items=keep)
    assert len(lazy) == len(eager)
    positions = list(range(len(eager)))
    order.shuffle(positions)  # read in any order, as scrolling back and the window's loads do
    for position in positions:
        assert lazy[position] == eager[position]
        assert lazy[position - len(eager)] is lazy[position]  # a made item is kept: its widget writes into it
    assert list(lazy) == eager and lazy[1:-1] == eager[1:-1]


def _long_session(turns: int) -> list[Entry]:
    entries: list[Entry] = []
    for n in range(turns):
        tool = ToolCall(id=f"call{n}", name="read", arguments={"path": f"src/file{n}.py"})
        entries += [
            MessageEntry(id=f"u{n}", message=UserMessage(content=f"question {n}")),
            MessageEntry(id=f"a{n}", message=AssistantMessage(content=[tool], stop_reason="tool_use")),
            MessageEntry(
                id=f"r{n}",
                message=ToolResultMessage(tool_call_id=f"call{n}", tool_name="read", content=[TextBlock(text="x")]),
            ),
            MessageEntry(id=f"b{n}", message=AssistantMessage(content=[TextBlock(text=f"answer number {n}")])),
        ]
    return entries


def test_a_long_session_holds_only_its_newest_items() -> None:
    entries = _long_session(1000)
    lazy = session_transcript(entries)
    assert isinstance(lazy, TranscriptItems) and len(lazy) == 3000  # (a result completes its call's card)
    assert 2800 <= lazy.unmade < 2880  # the newest 120+ and the chunk being filled are made
    assert lazy[5] == transcript_items(entries)[5] and lazy.unmade < 2800
    lazy.append(UserItem("new prompt"))
    assert len(lazy) == 3001 and lazy[-1] == UserItem("new prompt")


def test_a_result_whose_call_is_chunks_back_makes_every_item_at_once() -> None:
    entries = _long_session(100)
    entries.append(
        MessageEntry(
            id="late", message=ToolResultMessage(tool_call_id="call3", tool_name="read", content=[TextBlock(text="y")])
        )
    )
    items = session_transcript(entries)
    assert isinstance(items, list) and items == transcript_items(entries)
    card = items[3 * 3 + 1]
    assert isinstance(card, ToolItem) and card.result == "y"  # the late result completed the old card


async def test_scrolling_back_through_a_resumed_session_shows_what_a_full_load_shows(
    make_app, fake_server, workspace: Path
) -> None:
    session = SessionManager.create(workspace)
    for n in range(150):  # 600 entries, 450 items: ~250 of them made only when scrolled to
        for entry in _long_session(n + 1)[-4:]:
            assert isinstance(entry, MessageEntry)
            session.append_message(entry.message)
    session.sync()
    session.close()
    shown: list[list[str]] = []
    for lazy in (True, False):
        app = make_app(ephemeral=False, continue_session=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            view = transcript(app)
            if not lazy:  # every item made at load, as before
                view.load(transcript_items(app.runtime.path_entries()))
                await settle(app, pilot)
            assert isinstance(view.items, TranscriptItems) is lazy
            if lazy:
                assert view.items.unmade >= 150
            screens = [screen_text(app)]
            while view.first > 0:  # scroll back to the start, a batch at a time, as the user would
                first = view.first
                view.scroll_home(animate=False)
                await wait_for(pilot, lambda view=view, first=first: view.first < first)
                await settle(app, pilot)
                screens.append(f"{view.virtual_size.height} {view.scroll_y} {screen_text(app)}")
            view.scroll_home(animate=False)
            await settle(app, pilot)
            screens.append(screen_text(app))
            assert "question 0" in screens[-1]
            if lazy:
                assert view.items.unmade == 0  # type: ignore[attr-defined]
            shown.append(screens)
    assert shown[0] == shown[1]


async def test_resume_in_the_app_reads_the_path_once_off_the_loop(make_app, fake_server, workspace: Path) -> None:
    """/resume builds the session's context and its transcript's items in one pass in a worker thread: each line
    parsed once (the context was built on the loop, then every line parsed again for the items, and again for the
    title the notice names: ~1.6 s of CPU with the screen frozen for a 20,000-entry session). What it shows is what
    making the items apart gives."""
    from dataclasses import replace

    session = SessionManager.create(workspace)
    for entry in _long_session(75):  # 300 entries: more than the index keeps parsed (tree.RECENT)
        assert isinstance(entry, MessageEntry)
        session.append_message(entry.message)
    session.close()
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        transcript(app).app.screen.submit(f"/resume {session.session_id}")  # type: ignore[attr-defined]
        await wait_for(pilot, lambda: getattr(app.runtime.session, "session_id", None) == session.session_id)
        await settle(app, pilot)
        resumed = app.runtime.session
        assert resumed is not None and len(resumed.get_branch()) == 300
        assert resumed._index.lines_parsed == 300 + 1  # and the first prompt again, for the notice's title
        shown = [replace(i, title=None) if isinstance(i, ToolItem) else i for i in transcript(app).items]  # (titled)
        assert shown[:225] == transcript_items(resumed.get_branch())
        assert shown[225].text == "Resumed “question 0”."  # (the notices after the path)
        assert app.runtime.agent.messages[-1].text == "answer number 74"
