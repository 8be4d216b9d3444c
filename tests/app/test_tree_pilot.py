"""The tree, /branch and /resume in the full app: a session with two branches built through the real agent loop
against the fake Ollama server, then navigated with the keyboard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.app.app import NavtuiApp
from navtui.app.screens.branch_summary import BranchSummaryScreen, SummaryProgressScreen
from navtui.app.screens.main import MainScreen
from navtui.app.screens.sessions import SessionPickerScreen
from navtui.app.screens.tree import TreeScreen
from navtui.core.messages import UserMessage
from navtui.session.entries import BranchSummaryEntry, MessageEntry
from navtui.widgets.prompt import PromptEditor
from navtui.widgets.tree_view import TreeView
from tests.fakes import Stall, Text, ToolCall

MODEL = "qwen2.5-coder:7b"
SIZE = (100, 32)


def make_app(fake_server: Any, workspace: Path, **settings: Any) -> NavtuiApp:
    options = LaunchOptions(cwd=workspace, provider="ollama", base_url=fake_server.url, model=MODEL)
    runtime = Runtime.create(options)
    for key, value in settings.items():
        setattr(runtime.settings.ui, key, value)
    return NavtuiApp(runtime, animate=False, check_provider=False, watch_themes=False)


async def wait_for(pilot: Any, condition: Any, what: str = "the condition", tries: int = 500) -> None:
    """Let the app run until ``condition()`` holds (workers, screens and the fake server are asynchronous)."""
    for _ in range(tries):
        await pilot.pause()
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def idle(app: NavtuiApp) -> bool:
    """No turn, navigation, resume or slash command is still running."""
    busy = {"agent", "command", "tree-navigate", "resume", "session-list"}
    if isinstance(app.screen, SummaryProgressScreen):
        return False
    return not any(worker.group in busy and worker.is_running for worker in app.workers)


async def send(app: NavtuiApp, pilot: Any, text: str) -> None:
    main = app.screen
    assert isinstance(main, MainScreen)
    main.query_one(PromptEditor).load_text(text)  # as if typed (replacing any prefilled text), then Enter
    await pilot.press("enter")
    await wait_for(pilot, lambda: idle(app) and not main.running, f"{text!r} to finish")


async def screen_is(app: NavtuiApp, pilot: Any, kind: type) -> None:
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and idle_or_waiting(app), kind.__name__)


def idle_or_waiting(app: NavtuiApp) -> bool:
    """Idle, or only waiting for a dialog on screen."""
    return idle(app) or isinstance(app.screen, BranchSummaryScreen | SessionPickerScreen | TreeScreen)


def user_id(app: NavtuiApp, text: str) -> str:
    for entry in app.runtime.session.entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage) and entry.message.text == text:
            return entry.id
    raise AssertionError(text)


def prompt_text(app: NavtuiApp) -> str:
    return app.screen.query_one(PromptEditor).text


def last_request(fake_server: Any) -> str:
    return json.dumps(fake_server.chat_requests[-1].json["messages"])


async def two_branches(app: NavtuiApp, pilot: Any, fake_server: Any, workspace: Path) -> None:
    """first question (a read, then an answer) -> second question | alternative question, built with the keys."""
    (workspace / "a.py").write_text("print('hi')\n")
    fake_server.script(ToolCall("read", {"path": "a.py"}))
    fake_server.script(Text("first answer"))
    await send(app, pilot, "first question")
    fake_server.script(Text("second answer"))
    await send(app, pilot, "second question")
    await pilot.press("escape", "escape")
    assert isinstance(app.screen, TreeScreen)
    await pilot.press("up", "enter")  # the leaf is the second answer; one up is the second question
    await screen_is(app, pilot, BranchSummaryScreen)
    await pilot.press("enter")  # no summary
    await screen_is(app, pilot, MainScreen)
    await wait_for(pilot, lambda: idle(app))
    assert prompt_text(app) == "second question"
    fake_server.script(Text("alternative answer"))
    await send(app, pilot, "alternative question")


async def test_esc_esc_opens_the_tree_and_enter_on_the_first_message_drops_the_abandoned_branch(
    fake_server: Any, workspace: Path
) -> None:
    app = make_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await two_branches(app, pilot, fake_server, workspace)
        session = app.runtime.session
        second, alternative = (
            session.get_entry(user_id(app, "second question")),
            session.get_entry(user_id(app, "alternative question")),
        )
        assert second.parent_id == alternative.parent_id  # two branches from the first answer
        await pilot.press("escape", "escape")
        tree = app.screen
        assert isinstance(tree, TreeScreen)
        view = tree.query_one(TreeView)
        assert view.cursor_row.id == session.leaf_id
        rows = [tree.model.describe(row).text for row in view.rows]
        assert rows[:3] == ["first question", "read a.py", "first answer"]
        assert "second question" in rows and "alternative question" in rows
        await pilot.press("home", "enter")
        await screen_is(app, pilot, BranchSummaryScreen)
        await pilot.press("enter")  # the summary dialog: no summary
        await screen_is(app, pilot, MainScreen)
        await wait_for(pilot, lambda: idle(app))
        assert prompt_text(app) == "first question"
        shown = [getattr(entry, "text", "") for entry in app.screen.transcript.items]
        assert not any("answer" in text or "question" in text for text in shown)  # the path ends before it
        fake_server.script(Text("a fresh start"))
        await send(app, pilot, "first question, asked again")
        sent = last_request(fake_server)
        assert "first question, asked again" in sent
        for gone in ("first answer", "second question", "alternative question", "alternative answer"):
            assert gone not in sent
        transcript = app.screen.transcript
        assert [type(e).__name__ for e in transcript.items][:1] == ["UserItem"]


async def test_tree_keys_fold_filter_and_label_in_the_app(fake_server: Any, workspace: Path) -> None:
    app = make_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await two_branches(app, pilot, fake_server, workspace)
        session = app.runtime.session
        second = user_id(app, "second question")
        await pilot.press("escape", "escape")
        tree = app.screen
        view = tree.query_one(TreeView)
        count = len(view.rows)
        await pilot.press("home", "down", "down", "down")
        assert view.cursor_row.id == second
        await pilot.press("left")  # fold the first branch
        assert len(view.rows) == count - 1
        await pilot.press("right", "ctrl+o", "ctrl+o")  # unfold; user-only
        assert [tree.model.describe(row).text for row in view.rows] == [
            "first question",
            "second question",
            "alternative question",
        ]
        await pilot.press(*"alt")
        assert [row.id for row in view.rows] == [user_id(app, "alternative question")]
        await pilot.press("backspace", "backspace", "backspace", "L", *"try B", "enter")
        assert session.label_of(user_id(app, "alternative question")) == "try B"
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await send(app, pilot, "/label keep this")
        answer = [entry for entry in session.get_branch() if isinstance(entry, MessageEntry)][-1]
        assert answer.message.text == "alternative answer" and session.label_of(answer.id) == "keep this"


async def test_branch_summary_is_written_and_sent_with_the_next_request(fake_server: Any, workspace: Path) -> None:
    app = make_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await two_branches(app, pilot, fake_server, workspace)
        session = app.runtime.session
        await pilot.press("escape", "escape")
        tree = app.screen
        tree.query_one(TreeView).select_entry(user_id(app, "second question"))
        await pilot.press("enter")
        await screen_is(app, pilot, BranchSummaryScreen)
        fake_server.script(Text("## Goal\nAsked the alternative question; it was answered."))
        await pilot.press("down", "down", "enter", *"keep it short", "enter")  # summarize with instructions
        await screen_is(app, pilot, MainScreen)
        await wait_for(pilot, lambda: idle(app), "the summary")
        summary = session.get_entry(session.leaf_id)
        assert isinstance(summary, BranchSummaryEntry)
        assert "Asked the alternative question" in summary.summary
        summary_request = fake_server.chat_requests[-1].json
        assert "keep it short" in summary_request["messages"][-1]["content"] and not summary_request.get("tools")
        assert prompt_text(app) == "second question"
        fake_server.script(Text("ok"))
        await send(app, pilot, "second question, again")
        sent = last_request(fake_server)
        assert "Asked the alternative question; it was answered." in sent and "alternative answer" not in sent


async def test_branch_summary_setting_never_skips_the_dialog(fake_server: Any, workspace: Path) -> None:
    app = make_app(fake_server, workspace, branch_summary="never")
    async with app.run_test(size=SIZE) as pilot:
        fake_server.script(Text("one"))
        await send(app, pilot, "question one")
        fake_server.script(Text("two"))
        await send(app, pilot, "question two")
        await pilot.press("escape", "escape", "up", "enter")
        await wait_for(pilot, lambda: idle(app) and prompt_text(app) == "question two", "the prefill")
        assert isinstance(app.screen, MainScreen)


@pytest.mark.parametrize("action", ["branch", "none"])
async def test_double_escape_action_setting(fake_server: Any, workspace: Path, action: str) -> None:
    app = make_app(fake_server, workspace, double_escape_action=action)
    async with app.run_test(size=SIZE) as pilot:
        fake_server.script(Text("one"))
        await send(app, pilot, "question one")
        await pilot.press("escape", "escape")
        if action == "none":
            assert isinstance(app.screen, MainScreen)
        else:
            assert isinstance(app.screen, TreeScreen) and app.screen.mode == "branch"


async def test_branch_creates_a_second_file_and_resume_reopens_the_first(fake_server: Any, workspace: Path) -> None:
    app = make_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await two_branches(app, pilot, fake_server, workspace)
        runtime = app.runtime
        first_path = runtime.session.path
        await send(app, pilot, "/branch")
        tree = app.screen
        assert isinstance(tree, TreeScreen) and tree.mode == "branch"
        tree.query_one(TreeView).select_entry(user_id(app, "alternative question"))
        await pilot.press("enter")
        await screen_is(app, pilot, MainScreen)
        assert runtime.session.path != first_path
        assert prompt_text(app) == "alternative question"
        fake_server.script(Text("answer in the branch"))
        await send(app, pilot, "alternative question, in its own file")
        assert sorted(p.name for p in first_path.parent.glob("*.jsonl")) == sorted(
            [first_path.name, runtime.session.path.name]
        )
        sent = last_request(fake_server)
        assert "first answer" in sent and "second question" not in sent
        await send(app, pilot, "/resume")
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_for(pilot, lambda: len(picker.shown) == 2, "the session list")
        assert [s.path for s in picker.shown] == [runtime.session.path, first_path]  # newest first
        assert [s.name for s in picker.shown] == ["first question (branch)", "first question"]
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: idle(app) and runtime.session.path == first_path, "the resume")
        assert isinstance(app.screen, MainScreen)
        fake_server.script(Text("back in the first"))
        await send(app, pilot, "continue the first session")
        sent = last_request(fake_server)
        assert "alternative answer" in sent and "in its own file" not in sent


async def test_an_empty_session_has_no_tree_to_open(fake_server: Any, workspace: Path) -> None:
    app = make_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/tree")
        assert isinstance(app.screen, MainScreen)
        assert any("Nothing to go back to yet" in getattr(entry, "text", "") for entry in app.screen.transcript.items)


async def test_esc_cancels_a_slow_summary_and_nothing_moves(fake_server: Any, workspace: Path) -> None:
    app = make_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await two_branches(app, pilot, fake_server, workspace)
        session = app.runtime.session
        leaf, count = session.leaf_id, len(session.entries)
        await pilot.press("escape", "escape", "home", "enter")
        await screen_is(app, pilot, BranchSummaryScreen)
        fake_server.script(Stall(5))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryProgressScreen), "the progress dialog")
        await pilot.press("escape")
        await wait_for(pilot, lambda: idle(app), "the cancellation")
        assert isinstance(app.screen, MainScreen)
        assert session.leaf_id == leaf and len(session.entries) == count
        assert prompt_text(app) == ""
        assert any("cancelled" in getattr(entry, "text", "") for entry in app.screen.transcript.items)


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ("tree", "Nothing to go back to yet: this session has no messages (Esc Esc opens its tree once it has)."),
        ("branch", "Nothing to branch from yet: this session has no messages (Esc Esc picks one once it has)."),
    ],
)
async def test_esc_esc_in_an_empty_session_says_there_is_nothing_to_go_back_to(
    fake_server: Any, workspace: Path, action: str, said: str
) -> None:
    # Esc Esc opens the tree to go back to an earlier point; in a new session it said "nothing to navigate the
    # tree yet", and /branch "nothing to branch yet": neither said what the keys are for nor when they will work.
    app = make_app(fake_server, workspace, double_escape_action=action)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.runtime is not None, "the runtime")
        await pilot.press("escape", "escape")
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_for(pilot, lambda: any(getattr(e, "text", "") == said for e in screen.transcript.items), said)
