"""/advisor, /compact, /handover and /index in the real app, and how advisor and context cards look."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from navtui.agent.advisor import Advisor
from navtui.core.events import AdvisorNote, ContextInjected, TextDelta
from navtui.tools.base import ToolContext, ToolRegistry
from navtui.tools.files.filestate import FileStateTracker
from navtui.tools.files.workspace import Workspace
from navtui.tools.shell.jobs import JobRegistry
from navtui.widgets.cards import AdvisorCard, ContextCard
from navtui.widgets.items import AdvisorItem, ContextItem, DividerItem, NoticeItem, UserItem
from navtui.widgets.status_line import StatusLine
from tests.agent.scripted import ScriptedProvider
from tests.app.conftest import main_screen, settle, transcript, wait_for
from tests.app.scripted_runtime import ScriptedRuntime
from tests.app.test_snapshots import SIZE, app_with, submit
from tests.fakes import Text, ToolCall

ADVISOR = "advisor-model"
PRIMARY = "qwen2.5-coder:7b"


def entries(app: Any, kind: type) -> list[Any]:
    return [e for e in transcript(app).items if isinstance(e, kind)]


async def command(app: Any, pilot: Any, line: str) -> None:
    main_screen(app).submit(line)
    await settle(app, pilot)


async def test_advisor_on_marks_the_status_and_a_concern_wakes_the_idle_agent(make_app, fake_server) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await command(app, pilot, f"/advisor on {ADVISOR}")
        assert entries(app, NoticeItem)[-1].text == f"Advisor enabled (ollama:{ADVISOR})."
        assert main_screen(app).runtime.status(with_git=False).advisor_on
        status = main_screen(app).query_one(StatusLine)
        await wait_for(pilot, lambda: status.data.advisor_on)
        assert f"{PRIMARY}++" in status.render().plain
        fake_server.script(ToolCall("advise", {"note": "You skipped the tests.", "severity": "concern"}), model=ADVISOR)
        fake_server.script(Text("ok"), model=ADVISOR)
        fake_server.script(Text("Done, shipped it."), model=PRIMARY)
        fake_server.script(Text("Running the tests now."), model=PRIMARY)
        await command(app, pilot, "ship it")
        await wait_for(pilot, lambda: any(e.severity == "concern" for e in entries(app, AdvisorItem)))
        await wait_for(pilot, lambda: len([r for r in fake_server.chat_requests if r.model == PRIMARY]) == 2)
        await settle(app, pilot)
        woken = [r for r in fake_server.chat_requests if r.model == PRIMARY][1].json["messages"]
        assert "[concern] You skipped the tests." in woken[-1]["content"]
        assert isinstance(app.screen.query(AdvisorCard).last(), AdvisorCard)
        # Shown once: the card, not also the steering message the advice becomes for the model.
        shown = [e for e in transcript(app).items if "You skipped the tests." in str(getattr(e, "note", e))]
        assert len(shown) == 1 and isinstance(shown[0], AdvisorItem)
        assert not any(e.kind == "steer" for e in entries(app, UserItem))
        await command(app, pilot, "/advisor status")
        assert "Advisor is enabled (ollama/advisor-model)" in entries(app, NoticeItem)[-1].text
        await command(app, pilot, "/advisor off")
        assert entries(app, NoticeItem)[-1].text == "Advisor disabled."


async def test_compact_shows_a_divider_and_the_next_request_carries_the_summary(make_app, fake_server) -> None:
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        fake_server.script(Text("First answer, long enough to be worth summarising. " * 20))
        await command(app, pilot, "first question")
        fake_server.script(Text("Second answer."))
        await command(app, pilot, "second question")
        fake_server.script(Text("## Goal\nAnswer two questions.\n## Progress\nBoth answered."))
        await command(app, pilot, "/compact keep it short")
        dividers = entries(app, DividerItem)
        assert dividers and "context compacted" in dividers[-1].label
        assert "Both answered." in (dividers[-1].detail or "")
        summary_request = fake_server.chat_requests[-1].json["messages"]
        assert "keep it short" in summary_request[-1]["content"]
        fake_server.script(Text("third"))
        await command(app, pilot, "third question")
        sent = " ".join(m["content"] for m in fake_server.chat_requests[-1].json["messages"])
        assert "Both answered." in sent and "third question" in sent


async def test_handover_restarts_the_context_from_notes(make_app, fake_server) -> None:
    app = make_app(enable_handover=True)
    async with app.run_test(size=(100, 32)) as pilot:
        fake_server.script(Text("Working on the parser."))
        await command(app, pilot, "fix the parser")
        fake_server.script(ToolCall("handover", {"summary": "Parser half fixed.", "next_steps": "Add tests."}))
        fake_server.script(Text("Continuing: adding tests."))
        await command(app, pilot, "/handover")
        dividers = entries(app, DividerItem)
        assert dividers and "handover" in dividers[-1].label and "Parser half fixed." in (dividers[-1].detail or "")
        last = fake_server.chat_requests[-1].json["messages"]
        assert "<handover_notes>" in last[0]["content"] and "Parser half fixed." in last[0]["content"]
        assert all("fix the parser" not in m["content"] for m in last[1:])
        assert main_screen(app).runtime.status(with_git=False).handover_count == 1
        assert any("a turn starts; Esc stops it" in notice.text for notice in entries(app, NoticeItem))


async def test_handover_with_nothing_to_hand_over_announces_no_turn(make_app, fake_server) -> None:
    app = make_app(enable_handover=True)
    async with app.run_test(size=(100, 32)) as pilot:
        await command(app, pilot, "/handover")
        notices = [notice.text for notice in entries(app, NoticeItem)]
        assert "Nothing to hand over yet." in notices
        assert not any("a turn starts" in text for text in notices)  # it said one would, then none did
        assert fake_server.chat_requests == []


async def test_index_builds_in_the_background_and_the_first_prompt_shows_the_context_card(
    make_app, fake_server, workspace: Path
) -> None:
    (workspace / ".git").mkdir()
    (workspace / "billing.py").write_text("def compute_invoice_total(lines):\n    return sum(lines)\n")
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await command(app, pilot, "/index")
        assert entries(app, NoticeItem)[-1].text.startswith("Index updated")
        assert (workspace / ".navtui" / "index.sqlite").exists()
        fake_server.script(Text("It sums the lines."))
        await command(app, pilot, "how is the invoice total computed?")
        cards = entries(app, ContextItem)
        assert cards and cards[0].files == ["billing.py"]
        card = app.screen.query_one(ContextCard)
        assert not card.item.expanded
        await pilot.press("ctrl+o")
        assert card.item.expanded


# ------------------------------------------------------------------ looks


def test_advisor_cards_of_each_severity_and_a_context_card(snap_compare: Any) -> None:
    runtime = ScriptedRuntime(
        scripts=[
            [
                ContextInjected(
                    source="index",
                    text="<repository_context>...</repository_context>",
                    files=["src/config.py", "tests/test_config.py"],
                    tokens=412,
                ),
                TextDelta(text="I will change `parse_line` to split once."),
                AdvisorNote(note="Name the magic number 3 in retry().", severity="nit"),
                AdvisorNote(
                    note="You are editing config.py but the failing test imports settings.py.", severity="concern"
                ),
                AdvisorNote(note="This deletes the migrations folder; stop and ask the user.", severity="blocker"),
            ]
        ]
    )
    assert snap_compare(app_with(runtime), terminal_size=SIZE, run_before=lambda pilot: submit(pilot, "fix parsing"))


async def _real_advisor(cwd: Path) -> Advisor:
    """A real Advisor after one update on a scripted model (fixed numbers)."""
    from navtui.core.events import StopEvent, UsageEvent
    from navtui.core.messages import Usage, UserMessage

    provider = ScriptedProvider(
        [TextDelta(text="ok"), UsageEvent(usage=Usage(input=5120, output=38)), StopEvent(reason="stop")]
    )
    ctx = ToolContext(Workspace(cwd), FileStateTracker(), JobRegistry(), cwd / "artifacts")
    advisor = Advisor(provider, cwd=cwd, tools=ToolRegistry(), ctx=ctx, steer=lambda _t: None, emit=lambda _e: None)
    advisor.agent.budget.window = 32768
    advisor.on_turn_end([UserMessage(content="refactor the parser")])
    await advisor.wait_for_catch_up(1, cap=10)
    return advisor


def test_advisor_status(snap_compare: Any, tmp_path: Path) -> None:
    runtime = ScriptedRuntime()

    async def run_before(pilot: Any) -> None:
        runtime.advisor = await _real_advisor(tmp_path)
        await submit(pilot, "/advisor status")

    assert snap_compare(app_with(runtime), terminal_size=SIZE, run_before=run_before)
