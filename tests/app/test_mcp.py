"""MCP servers in the app: started after the first frame with the status line saying so, a repository's
server approved in a modal, tool calls approved like shell, Esc cancelling a call, /mcp."""

from __future__ import annotations

from pathlib import Path

from navtui.app.screens.approval import ApprovalScreen
from navtui.app.screens.main import MainScreen
from navtui.app.screens.mcp_approval import McpApprovalScreen
from navtui.config.paths import user_settings_path
from navtui.widgets.items import NoticeItem, ToolItem
from navtui.widgets.status_line import StatusLine
from tests.app.conftest import SIZE, main_screen, settle, transcript, wait_for
from tests.fakes import Text, ToolCall
from tests.mcp.conftest import gone, server_pid, stdio_entry, write_servers
from tests.mcp.test_servers import pytestmark  # noqa: F401  (Linux process handling)


def user_file() -> Path:
    return user_settings_path().parent / "mcp.json"


def notices(app) -> list[str]:
    return [entry.text for entry in transcript(app).items if isinstance(entry, NoticeItem)]


def tool_items(app) -> list[ToolItem]:
    return [entry for entry in transcript(app).items if isinstance(entry, ToolItem)]


def ready(app, name: str) -> bool:
    manager = main_screen(app).runtime.mcp
    return manager is not None and manager.connections[name].state == "ready"


async def test_servers_start_in_the_background_and_the_status_line_says_so(make_app, traces: Path) -> None:
    write_servers(user_file(), {"test": stdio_entry(traces)})
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        status = main_screen(app).query_one(StatusLine)
        await wait_for(pilot, lambda: status.data.mcp == "mcp starting: test")
        assert "mcp starting: test" in status.render().plain
        await wait_for(pilot, lambda: ready(app, "test") and status.data.mcp is None)
        assert "mcp__test__echo" in main_screen(app).runtime.tools
        pid = server_pid(traces)
    await wait_for_gone(pid)


async def wait_for_gone(pid: int) -> None:
    from tests.mcp.conftest import eventually

    await eventually(lambda: gone(pid), "the server to stop with the app")


async def test_a_failing_server_is_a_notice_with_its_stderr(make_app) -> None:
    write_servers(user_file(), {"broken": {"command": "navtui-missing-server"}})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any("'broken' failed" in text for text in notices(app)))
        text = next(text for text in notices(app) if "'broken' failed" in text)
        assert (
            "it exited during start-up" in text
            and "navtui: cannot run navtui-missing-server: No such file or directory" in text
        )
        status = main_screen(app).query_one(StatusLine)
        await wait_for(pilot, lambda: status.data.mcp == "mcp 1 failed")


async def test_a_repository_server_starts_only_after_approval(make_app, traces: Path, workspace: Path) -> None:
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces)})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, McpApprovalScreen))
        assert not (traces / "pid").exists()
        assert "runs " in str(app.screen.query_one("#approval-summary").render())
        await pilot.press("a")  # inside the grace period: ignored
        await pilot.pause(McpApprovalScreen.GRACE + 0.05)
        await pilot.press("a")
        await wait_for(pilot, lambda: ready(app, "repo"))
        assert isinstance(app.screen, MainScreen)
        await wait_for(pilot, lambda: "MCP server 'repo' started: 11 tools." in notices(app))
    again = make_app()
    async with again.run_test(size=SIZE) as pilot:  # remembered: no question this time
        await wait_for(pilot, lambda: ready(again, "repo"))
        assert not isinstance(again.screen, McpApprovalScreen)


async def test_a_denied_repository_server_stays_off_until_asked_again(make_app, traces: Path, workspace: Path) -> None:
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces)})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, McpApprovalScreen))
        await pilot.pause(McpApprovalScreen.GRACE + 0.05)
        await pilot.press("n")
        await settle(app, pilot)
        assert main_screen(app).runtime.mcp.connections["repo"].state == "denied"
        assert "/mcp approve repo asks again" in notices(app)[-1]
        main_screen(app).submit("/mcp approve repo")
        await wait_for(pilot, lambda: isinstance(app.screen, McpApprovalScreen))
        await pilot.pause(McpApprovalScreen.GRACE + 0.05)
        await pilot.press("y")
        await wait_for(pilot, lambda: ready(app, "repo"))
        assert not (traces / "cancelled").exists()


async def test_an_mcp_tool_asks_like_shell_and_its_result_is_shown(make_app, fake_server, traces: Path) -> None:
    write_servers(user_file(), {"test": stdio_entry(traces)})
    fake_server.script(ToolCall("mcp__test__echo", {"text": "[bold]hi[/bold]", "times": 2}))
    fake_server.script(Text("Echoed."))
    app = make_app(approval="write")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: ready(app, "test"))
        main_screen(app).submit("echo")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        request = app.screen.request
        assert (
            request.tool == "mcp__test__echo" and request.reason == "calls echo on the MCP server 'test' (user server)"
        )
        assert '"text": "[bold]hi[/bold]"' in (request.preview or "")
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(tool_items(app)) and tool_items(app)[0].status == "success")
        assert tool_items(app)[0].result == "[bold]hi[/bold][bold]hi[/bold]"
        await wait_for(pilot, lambda: not main_screen(app).running)


async def test_tools_allow_by_server_glob_skips_the_prompt(make_app, fake_server, traces: Path) -> None:
    write_servers(user_file(), {"test": stdio_entry(traces)})
    user_settings_path().write_text('{"tools": {"allow": ["mcp__test__*"]}}')
    fake_server.script(ToolCall("mcp__test__echo", {"text": "ok"}))
    fake_server.script(Text("Done."))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: ready(app, "test"))
        main_screen(app).submit("echo")
        await wait_for(pilot, lambda: bool(tool_items(app)) and tool_items(app)[0].status == "success")
        assert not isinstance(app.screen, ApprovalScreen)
        await wait_for(pilot, lambda: not main_screen(app).running)


async def test_escape_cancels_a_running_mcp_call(make_app, fake_server, traces: Path) -> None:
    write_servers(user_file(), {"test": stdio_entry(traces)})
    fake_server.script(ToolCall("mcp__test__slow", {"seconds": 120}))
    app = make_app(approval="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: ready(app, "test"))
        main_screen(app).submit("wait")
        await wait_for(pilot, lambda: (traces / "slow-started").exists())
        await pilot.press("escape")
        await wait_for(pilot, lambda: (traces / "cancelled").exists())
        await wait_for(pilot, lambda: not main_screen(app).running)
        assert tool_items(app)[0].status == "error" and "Aborted" in tool_items(app)[0].result
        assert ready(app, "test")  # the server lives on


async def test_slash_mcp_lists_and_reconnects(make_app, traces: Path) -> None:
    write_servers(user_file(), {"test": stdio_entry(traces)})
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: ready(app, "test"))
        main_screen(app).submit("/mcp")
        await settle(app, pilot)
        listing = notices(app)[-1]
        assert listing.startswith("test  user     stdio  ready")
        assert "tools (11): echo, place, fail, slow, crash, picture, flood, environment, header, roots, grow" in listing
        first = server_pid(traces)
        main_screen(app).submit("/mcp reconnect test")
        await settle(app, pilot)
        assert notices(app)[-1] == "MCP server 'test' reconnected: 11 tools."
        assert server_pid(traces) != first and gone(first)
        main_screen(app).submit("/mcp reconnect nope")
        await settle(app, pilot)
        main_screen(app).submit("/mcp frobnicate")
        await settle(app, pilot)
        assert notices(app)[-1].startswith("Usage: /mcp [list]")


async def test_slash_mcp_arguments_complete(make_app, traces: Path, workspace: Path) -> None:
    from navtui.app.commands.mcp import mcp_arguments

    write_servers(user_file(), {"test": stdio_entry(traces)})
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces)})
    app = make_app(mcp_trust=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: ready(app, "test") and ready(app, "repo"))
        arguments = await mcp_arguments(main_screen(app))
        assert arguments == ["list", "reconnect test", "reconnect repo", "approve repo"]


async def test_slash_mcp_without_servers_says_how_to_add_one(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("/mcp")
        await settle(app, pilot)
        assert "navtui mcp add NAME -- COMMAND" in notices(app)[-1]
        assert main_screen(app).runtime.mcp is None


async def test_prompts_are_commands_and_resources_complete_and_attach(make_app, fake_server, traces: Path) -> None:
    from navtui.app.commands.registry import COMMANDS

    write_servers(user_file(), {"test": stdio_entry(traces)})
    fake_server.script(Text("Reviewed."))
    fake_server.script(Text("Noted."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await wait_for(pilot, lambda: ready(app, "test") and COMMANDS.get("mcp__test__review") is not None)
        commands = await screen._complete("/mcp__test__r", 13)
        assert commands is not None and [c.value for c in commands.candidates] == ["/mcp__test__review"]
        assert commands.candidates[0].detail == "MCP prompt of test: Review a file for one kind of problem."
        resources = await screen._complete("see @test:no", 12)
        assert resources is not None
        assert [c.value for c in resources.candidates] == ["@test:notes://today", "@test:notes://logo"]
        screen.submit("/mcp__test__review")  # FILE is required: the usage, nothing sent
        await settle(app, pilot)
        assert notices(app)[-1].startswith("Usage: /mcp__test__review FILE [FOCUS]")
        screen.submit("/mcp__test__review app.py")
        await wait_for(pilot, lambda: len(fake_server.chat_requests) == 1 and not screen.running)
        assert fake_server.chat_requests[0].json["messages"][-1]["content"] == "Review app.py, looking for bugs."
        screen.submit("plan with @test:notes://today")
        await wait_for(pilot, lambda: len(fake_server.chat_requests) == 2 and not screen.running)
        sent = fake_server.chat_requests[1].json["messages"][-1]["content"]
        assert '<mcp_resource server="test" uri="notes://today">\nbuy milk\ncall Ann\n</mcp_resource>' in sent
        assert "Attached @test:notes://today." in notices(app)


async def test_a_servers_prompt_text_attaches_nothing_the_user_did_not_name(
    make_app, fake_server, traces: Path, workspace: Path, tmp_path: Path
) -> None:
    """A prompt's text is the server's words: an @file or @server:uri in it is sent as text, never attached (a remote
    server would have the model read ~/.netrc); an @file the user gave as an argument still attaches."""
    from navtui.app.commands.registry import COMMANDS

    secret = tmp_path / "netrc"
    secret.write_text("machine example.com password hunter2\n")
    (workspace / "notes.md").write_text("the user's notes")
    write_servers(
        user_file(), {"test": stdio_entry(traces, env={"MCP_TEST_DIR": str(traces), "MCP_TEST_MENTION": str(secret)})}
    )
    fake_server.script(Text("Briefed."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await wait_for(pilot, lambda: ready(app, "test") and COMMANDS.get("mcp__test__brief") is not None)
        screen.submit("/mcp__test__brief @notes.md")
        await wait_for(pilot, lambda: len(fake_server.chat_requests) == 1 and not screen.running)
        sent = fake_server.chat_requests[0].json["messages"][-1]["content"]
        assert sent.startswith(f"Brief me on @notes.md. Context: `@{secret}` and `@test:notes://today`")
        assert "hunter2" not in sent and "buy milk" not in sent
        assert '<attached_file path="notes.md">' in sent and "the user's notes" in sent


async def test_a_servers_prompt_description_is_inert_in_help_and_the_palette(make_app, traces: Path) -> None:
    from textual.command import CommandPalette

    from navtui.app.commands.registry import COMMANDS
    from navtui.app.screens.help import HelpScreen
    from tests.app.conftest import terminal_output
    from tests.app.test_untrusted_text import CLIPBOARD, assert_inert

    hostile = f'review {CLIPBOARD} [link="https://evil.example"]here[/link]'
    write_servers(
        user_file(), {"test": stdio_entry(traces, env={"MCP_TEST_DIR": str(traces), "MCP_TEST_HOSTILE": hostile})}
    )
    app = make_app()
    async with app.run_test(size=(140, 48)) as pilot:
        await wait_for(pilot, lambda: ready(app, "test") and COMMANDS.get("mcp__test__odd") is not None)
        assert "review ␛]52;c;" in COMMANDS.get("mcp__test__odd").help
        main_screen(app).submit("/help")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await settle(app, pilot)
        assert_inert(terminal_output(app))
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"odd")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await settle(app, pilot)
        assert_inert(terminal_output(app))


async def test_slash_mcp_login_signs_in_with_the_url_shown(make_app, traces: Path, monkeypatch) -> None:
    """An OAuth server in the app: 'needs sign-in' in /mcp and the status line; /mcp login shows the URL (no
    browser here, as over SSH); the test's browser opens it; the server's tools join."""
    import re

    import httpx

    from tests.mcp.test_oauth import OAuthServer

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    server = OAuthServer(traces)
    try:
        write_servers(user_file(), {"web": {"url": server.url}})
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            manager = lambda: main_screen(app).runtime.mcp  # noqa: E731
            await wait_for(pilot, lambda: manager() is not None and manager().connections["web"].state == "signin")
            status = main_screen(app).query_one(StatusLine)
            await wait_for(pilot, lambda: status.data.mcp == "mcp 1 to sign in")
            main_screen(app).submit("/mcp")
            await settle(app, pilot)
            assert "web  user     http   needs sign-in" in notices(app)[-1]
            main_screen(app).submit("/mcp login web")
            found = re.compile(r"open (http://\S+)")
            await wait_for(pilot, lambda: any(found.search(text) for text in notices(app)))
            url = next(m.group(1) for text in notices(app) if (m := found.search(text)))
            async with httpx.AsyncClient(follow_redirects=True) as browser:
                assert (await browser.get(url)).status_code == 200
            await wait_for(pilot, lambda: ready(app, "web"))
            await wait_for(pilot, lambda: "Signed in to 'web': 1 tool." in notices(app))
            assert "mcp__web__secret" in main_screen(app).runtime.tools
            assert status.data.mcp is None
    finally:
        server.stop()
