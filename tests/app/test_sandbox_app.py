"""The sandbox in the app: its mode beside the approval mode, /sandbox, the warning when it is missing, and the
offer to run a command the sandbox blocked once more without it."""

from __future__ import annotations

import pytest

from navtui.app.screens.approval import ApprovalScreen
from navtui.app.screens.main import MainScreen
from navtui.tools.sandbox.exec import kernel_abi
from navtui.widgets.items import NoticeItem, ToolItem
from navtui.widgets.status_line import StatusLine
from tests.app.conftest import main_screen, rendered_text, screen_text, settle, transcript, wait_for
from tests.fakes import Text, ToolCall
from tests.tools.sandbox.support import Canary

SIZE = (120, 32)


def notices(app) -> list[str]:
    return [e.text for e in transcript(app).items if isinstance(e, NoticeItem)]


@pytest.mark.skipif(kernel_abi()[0] < 1, reason="the kernel has no Landlock")
async def test_the_status_line_shows_the_mode_and_sandbox_switches_it(make_app) -> None:
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        status = app.screen.query_one(StatusLine)
        assert rendered_text(status).rstrip().endswith("ask · workspace-write")
        main_screen(app).submit("/sandbox")
        await settle(app, pilot)
        assert "Sandbox: workspace-write" in notices(app)[-1] and "Network: blocked" in notices(app)[-1]
        main_screen(app).submit("/sandbox read-only")
        await settle(app, pilot)
        assert "Sandbox: read-only" in notices(app)[-1] and "For this session only" in notices(app)[-1]
        await wait_for(pilot, lambda: rendered_text(status).rstrip().endswith("ask · read-only"))


async def test_a_missing_landlock_is_shown_at_start_and_in_the_status_line(
    make_app, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NAVTUI_LANDLOCK_ABI", "0")
    app = make_app(approval="write")
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        said = [n for n in notices(app) if "sandbox is not available" in n]
        assert len(said) == 1
        assert rendered_text(app.screen.query_one(StatusLine)).rstrip().endswith("write · sandbox off!")


@pytest.mark.skipif(kernel_abi()[0] < 4, reason="Landlock TCP rules need ABI 4")
async def test_a_blocked_command_offers_an_unsandboxed_run_and_a_remembers_it(make_app, fake_server) -> None:
    canary = Canary()
    try:
        fake_server.script(ToolCall("shell", {"command": canary.connect_command()}))
        # Not the identical call: a repeat of a call that succeeded is not run again (agent/guards.py).
        fake_server.script(ToolCall("shell", {"command": canary.connect_command() + " # again"}))
        fake_server.script(Text("Both connected."))
        app = make_app(approval="write")
        async with app.run_test(size=SIZE) as pilot:
            main_screen(app).submit("reach the server")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.request.tool == "shell")
            await pilot.pause(ApprovalScreen.GRACE + 0.05)
            await pilot.press("y")  # the command itself
            await wait_for(
                pilot,
                lambda: (
                    isinstance(app.screen, ApprovalScreen)
                    and app.screen.request.unsandboxed
                    and bool(app.screen.query("#approval"))
                ),  # composed, not only pushed
            )
            modal = app.screen
            assert modal.query_one("#approval").border_title == "Run without the sandbox?"
            assert "network is blocked" in modal.request.reason and canary.connections == 0
            await pilot.pause(ApprovalScreen.GRACE + 0.05)
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and not app.screen.request.unsandboxed)
            await pilot.pause(ApprovalScreen.GRACE + 0.05)
            await pilot.press("y")  # the second command; its unsandboxed re-run needs no question now
            await settle(app, pilot)
            assert isinstance(app.screen, MainScreen) and canary.connections == 2
            tools = [e for e in transcript(app).items if isinstance(e, ToolItem)]
            assert [t.status for t in tools] == ["success", "success"]
            assert all("second run without the sandbox" in t.result for t in tools)
    finally:
        canary.close()


@pytest.mark.skipif(kernel_abi()[0] < 1, reason="the kernel has no Landlock")
async def test_a_change_the_guard_undid_can_be_kept_from_a_dialog(
    make_app, fake_server, workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NAVTUI_SANDBOX_NAMESPACES", "0")  # the fallback: the change is made, then undone
    fake_server.script(ToolCall("shell", {"command": "echo '{\"mcpServers\": {}}' > .mcp.json"}))
    fake_server.script(Text("Added."))
    app = make_app(approval="write")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("add an mcp config")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen) and not app.screen.request.keep_change)
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("y")  # the command itself
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ApprovalScreen)
                and app.screen.request.keep_change
                and bool(app.screen.query("#approval-why"))
            ),  # composed
        )
        modal = app.screen
        box = modal.query_one("#approval")
        assert box.border_title == "Keep the command's change?" and "y keep the change" in str(box.border_subtitle)
        assert not (workspace / ".mcp.json").exists()  # undone while the user decides
        await wait_for(pilot, lambda: "mcpServers" in screen_text(app))  # the diff of what it wrote
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("a")  # nothing to allow for the session: ignored
        assert app.screen is modal
        await pilot.press("y")
        await settle(app, pilot)
        assert (workspace / ".mcp.json").read_text() == '{"mcpServers": {}}\n'
        [tool] = [e for e in transcript(app).items if isinstance(e, ToolItem)]
        assert "the user chose to keep the change" in tool.result
        said = [n for n in notices(app) if "stronger sandbox is not available" in n]
        assert len(said) == 1  # once, at start
