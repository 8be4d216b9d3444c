"""An "allow always" rule per command prefix in the approval modal (p), saved in tools.allow as Claude Code saves
its permission rules; a rule only covers simple commands and never a destructive one."""

from __future__ import annotations

import json
from pathlib import Path

from navtui.app.screens.approval import ApprovalScreen
from navtui.tools.approval import ApprovalPolicy, command_rule, rule_allows
from navtui.widgets.items import ToolItem
from tests.app.conftest import main_screen, rendered_text, settle, transcript, wait_for
from tests.fakes import Text, ToolCall

SIZE = (100, 32)


def test_the_offered_rule_is_the_program_and_its_sub_command() -> None:
    assert command_rule("shell", "git status --short") == "shell(git status:*)"
    assert command_rule("shell", "pytest -q tests") == "shell(pytest:*)"
    assert command_rule("shell", "make lint") == "shell(make lint:*)"
    assert command_rule("shell", "python3 ./build.py") == "shell(python3:*)"  # a path is not a sub-command
    assert command_rule("shell", "git status && rm -rf ~") is None  # no rule covers a compound command


def test_a_rule_covers_simple_commands_with_its_words_only() -> None:
    rules = {"shell(git status:*)", "shell(make lint)"}
    assert rule_allows(rules, "shell", "git status") and rule_allows(rules, "shell", "git  status -s")
    assert rule_allows(rules, "shell", "make lint") and not rule_allows(rules, "shell", "make lint-fix")
    assert not rule_allows(rules, "shell", "git statusx")
    for sneaky in ("git status; rm -rf ~", "git status && curl x | sh", "git status > ~/.bashrc", "git status $(id)",
                   "git status `id`", "git status\nrm -rf ~"):  # fmt: skip
        assert not rule_allows(rules, "shell", sneaky), sneaky
    assert not rule_allows(rules, "python", "git status")
    policy = ApprovalPolicy(mode="ask", allow=rules)
    assert policy.decide("shell", "exec", command="git status").verdict == "allow"
    assert policy.decide("shell", "exec", danger="deletes files", command="git status").verdict == "ask"
    assert ApprovalPolicy(mode="ask").decide("shell", "exec", command="git status").verdict == "ask"


async def test_p_allows_the_commands_rule_and_saves_it(
    make_app, fake_server, workspace: Path, navtui_home: Path
) -> None:
    fake_server.script(ToolCall("shell", {"command": "echo -n one"}))
    fake_server.script(ToolCall("shell", {"command": "echo -e two"}))  # the same rule: runs without asking
    fake_server.script(ToolCall("shell", {"command": "echo three > out.txt"}))  # not simple: asks
    fake_server.script(Text("done"))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        modal = app.screen
        rule = modal.request.rule
        assert rule == "shell(echo:*)"
        modal.GRACE = 0.0
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen is not modal, seconds=30)
        assert app.screen.request.summary.startswith("echo three")  # the second call did not ask
        app.screen.GRACE = 0.0
        await pilot.press("escape")
        await settle(app, pilot)
        saved = json.loads((navtui_home / "settings.json").read_text())
        assert saved["tools"]["allow"] == [rule]
        statuses = [e.status for e in transcript(app).items if isinstance(e, ToolItem)]
        assert statuses == ["success", "success", "error"]


def test_the_modal_offers_the_rule(snap_compare) -> None:
    from navtui.app.app import NavtuiApp
    from navtui.tools.approval import ApprovalRequest
    from tests.app.scripted_runtime import ScriptedRuntime

    request = ApprovalRequest(
        tool="shell",
        tier="exec",
        summary="npm test -- --watch=false",
        reason="runs a command",
        rule="shell(npm test:*)",
    )

    async def open_modal(pilot) -> None:
        await pilot.pause()
        pilot.app.push_screen(ApprovalScreen(request))
        await pilot.pause()

    app = NavtuiApp(ScriptedRuntime(), animate=False, check_provider=True, watch_themes=False)
    assert snap_compare(app, terminal_size=(100, 30), run_before=open_modal)


async def test_a_shell_approval_shows_the_command_once(make_app, fake_server) -> None:
    """The command is the preview ($ command, with its folder); the summary above it would repeat it."""
    fake_server.script(ToolCall("shell", {"command": "echo first-marker > out.txt\necho second-marker"}))
    fake_server.script(Text("done"))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await wait_for(pilot, lambda: "second-marker" in _modal_text(app.screen))  # the preview laid out
        shown = _modal_text(app.screen)
        assert shown.count("first-marker") == 1, shown
        assert "$ echo first-marker > out.txt" in shown and "second-marker" in shown, shown
        assert "runs a command" in shown or "command" in shown.lower(), shown  # still says why it asks
        app.screen.GRACE = 0.0
        await pilot.press("escape")
        await settle(app, pilot)


async def test_an_approval_keeps_a_summary_the_preview_does_not_repeat(make_app, fake_server, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("old line\n")
    fake_server.script(ToolCall("edit", {"path": "notes.txt", "old_text": "old line", "new_text": "new line"}))
    fake_server.script(Text("done"))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await wait_for(pilot, lambda: "+new line" in _modal_text(app.screen))  # the preview laid out
        shown = _modal_text(app.screen)
        assert "notes.txt" in shown, shown
        app.screen.GRACE = 0.0
        await pilot.press("escape")
        await settle(app, pilot)


def _modal_text(modal) -> str:
    """What the approval dialog shows: its parts' visible lines, top to bottom."""
    return "\n".join(rendered_text(part) for part in modal.query("#approval Static") if part.display)


async def test_an_edit_that_cannot_apply_says_so_in_its_approval(make_app, fake_server, workspace: Path) -> None:
    # The text to replace is not in the file: the dialog showed the path alone ("changes files · notes.txt"), the
    # user allowed it, and the edit failed. It now says why it will fail, so the user can deny it with a reason.
    (workspace / "notes.txt").write_text("old line\n")
    fake_server.script(ToolCall("edit", {"path": "notes.txt", "old_text": "no such line", "new_text": "new line"}))
    fake_server.script(Text("done"))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await wait_for(pilot, lambda: "notes.txt" in _modal_text(app.screen) and "\n" in _modal_text(app.screen))
        await pilot.pause()
        shown = _modal_text(app.screen)
        assert "This edit cannot be applied as it is: old_text was not found in notes.txt" in shown, shown
        app.screen.GRACE = 0.0
        await pilot.press("escape")
        await settle(app, pilot)
