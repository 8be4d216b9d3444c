"""Every built-in slash command, typed into the prompt of the real app."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.app.screens.help import HelpScreen
from navtui.app.screens.main import MainScreen
from navtui.app.screens.models import ModelsScreen
from navtui.config.paths import exports_dir
from navtui.widgets.items import AssistantItem, ErrorItem, NoticeItem, UserItem
from navtui.widgets.status_line import StatusLine
from tests.app.conftest import main_screen, rendered_text, settle, transcript, wait_for
from tests.fakes import Text, Usage

SIZE = (100, 32)


def notices(app) -> list[str]:
    return [e.text for e in transcript(app).items if isinstance(e, NoticeItem)]


async def run(app, pilot, text: str) -> None:
    main_screen(app).submit(text)
    await settle(app, pilot)


async def test_unknown_command_says_how_to_get_help(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "/frobnicate now")
        assert notices(app)[-1] == "Unknown command: /frobnicate. Type /help"


async def test_an_unknown_command_names_the_one_most_likely_meant(make_app) -> None:
    # A typo, or a command of Claude Code's or Codex's: "Type /help" alone left the user to read the whole list.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        for typed, meant in (("/comapct", "/compact"), ("/cost", "/context"), ("/status", "/context"),
                             ("/rewind", "/tree"), ("/exti", "/quit"), ("/permissions", "/approval"),
                             ("/stauts", "/context")):  # fmt: skip
            await run(app, pilot, typed)
            assert notices(app)[-1] == f"Unknown command: {typed}. Did you mean {meant}? Type /help for every one"
        await run(app, pilot, "/xyzzy")
        assert notices(app)[-1] == "Unknown command: /xyzzy. Type /help"


async def test_help_lists_every_command_and_closes_with_escape(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/help", "enter")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        names = {c.name for c in app.screen.commands}
        assert {
            "help",
            "clear",
            "new",
            "model",
            "models",
            "context",
            "approval",
            "name",
            "copy",
            "export",
            "quit",
        } <= names
        # Each command's help reads on one or two lines beside it: /mcp's long synopsis is a line of its own, its
        # help under it (kept whole beside it, every help text got a column 16 cells wide; cut to 32 cells, 45).
        rows = rendered_text(app.screen.query_one("#help-commands")).splitlines()  # (scrolled down to, or not)
        assert any(row.startswith("/help ") and "list commands and keys" in row for row in rows), rows
        mcp = next(n for n, row in enumerate(rows) if row.startswith("/mcp [list|reconnect NAME|approve NAME|login"))
        assert rows[mcp + 1].lstrip().startswith("MCP servers: list them"), rows
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_help_at_100_columns_gives_the_help_texts_the_width(make_app) -> None:
    """At 100 columns the help texts had 45 cells beside a commands' column held to /mcp's synopsis, and wrapped
    with room to spare."""
    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted)
        await pilot.pause()
        rows = rendered_text(app.screen.query_one("#help-commands")).splitlines()
        label = next(row for row in rows if row.startswith("/label [text]"))
        assert label.rstrip().endswith("label the current point of the session (empty clears)"), rows
        assert any(row.startswith("/thinking [level]") and row.rstrip().endswith("(shift+tab)") for row in rows)
        assert max(len(row.rstrip()) for row in rows) <= 94
        # A column of its own for the five keys took 11 cells from every help: this one wrapped its last word.
        branch = next(row for row in rows if row.startswith("/branch "))
        assert branch.rstrip().endswith("continue from one of your messages in a new session file"), rows
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_help_at_80_columns_puts_each_help_under_its_command(make_app) -> None:
    # At 80 columns the help texts had a column 20 cells wide beside the 32 of the commands: three or four lines
    # of two words each. Narrow, each command's help goes under it, as wide as the box.
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted)
        await pilot.pause()
        rows = [" ".join(row.split()) for row in rendered_text(app.screen.query_one("#help-commands")).splitlines()]
        assert "/compact [instructions]" in rows, rows
        assert "summarise older history to free context" in rows, rows
        assert "/help f1" in rows and "list commands and keys" in rows, rows
        assert any(row.startswith("show or set when tools ask first: ask, write, yolo") for row in rows), rows
        assert max(len(row) for row in rendered_text(app.screen.query_one("#help-commands")).splitlines()) <= 80


@pytest.mark.parametrize(("size", "width"), [((80, 24), 78), ((60, 20), 58), ((140, 40), 100)])
async def test_help_takes_the_width_of_a_narrow_terminal(make_app, size: tuple[int, int], width: int) -> None:
    # At 80 columns the help box was 72 wide (90 %), four columns of the screen left empty on each side while its
    # texts wrapped; it now leaves one column each side, as the prompt's box does, and stops at 100 columns.
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted)
        await pilot.pause()
        box = app.screen.query_one("#help").region
        assert (box.width, box.x) == (width, (size[0] - width) // 2), (size, box)


async def test_f1_opens_help_and_its_keys_list_f1_and_ctrl_q(make_app) -> None:
    # docs/ui.md lists both keys; /help's key list left them out
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen.is_mounted)
        await pilot.pause()
        rows = [" ".join(row.split()) for row in rendered_text(app.screen.query_one("#help-keys")).splitlines()]
        assert "ctrl+d quit (on an empty prompt)" in rows
        assert "ctrl+q quit (at any time)" in rows
        assert "F1 this help (F1, Esc or q closes it)" in rows
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))


async def test_the_palette_runs_a_command_or_leaves_one_that_needs_arguments_in_the_prompt(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p", *"help", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"/name", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.screen.query_one("#prompt").text == "/name "


async def test_clear_empties_the_context_and_the_transcript(make_app, fake_server) -> None:
    fake_server.script(Text("first"))
    fake_server.script(Text("second"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "remember 42")
        assert len(app.runtime.agent.messages) == 2
        await run(app, pilot, "/clear")
        assert app.runtime.agent.messages == []
        assert [type(e) for e in transcript(app).items] == [NoticeItem]
        await run(app, pilot, "what did I say?")
        sent = fake_server.chat_requests[-1].json["messages"]
        assert [m["content"] for m in sent if m["role"] == "user"] == ["what did I say?"]


async def test_new_starts_a_new_session_file_with_fresh_counters(make_app, fake_server) -> None:
    fake_server.script(Text("hi"), Usage(input=1200, output=80))
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "hello")
        status = app.screen.query_one(StatusLine)
        assert (status.data.tokens_in, status.data.tokens_out) == (1200, 80)
        assert "↑1.2k" in rendered_text(status)
        first = app.runtime.session.path
        await run(app, pilot, "/new")
        assert app.runtime.session.path != first and app.runtime.agent.messages == []
        assert "New session started." in notices(app)
        assert (status.data.tokens_in, status.data.tokens_out) == (0, 0)
        assert "↑" not in rendered_text(status) and "↓" not in rendered_text(status)


async def test_model_shows_and_switches_keeping_history(make_app, fake_server) -> None:
    fake_server.set_model("qwen2.5-coder:7b")
    fake_server.set_model("llama3.2:3b", context_length=8192)
    fake_server.script(Text("one"))
    fake_server.script(Text("two"), model="llama3.2:3b")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "/model")
        assert "Model: qwen2.5-coder:7b (ollama)" in notices(app)[-1]
        await run(app, pilot, "hello")
        await run(app, pilot, "/model llama3.2:3b")
        assert app.runtime.provider.model == "llama3.2:3b"
        assert "Switched to llama3.2:3b" in notices(app)[-1]
        assert app.screen.query_one(StatusLine).data.model == "llama3.2:3b"
        await run(app, pilot, "and now?")
        request = fake_server.chat_requests[-1]
        assert request.model == "llama3.2:3b"
        assert [m["content"] for m in request.json["messages"] if m["role"] == "user"] == ["hello", "and now?"]


async def test_models_picker_lists_the_servers_models_and_switches(make_app, fake_server) -> None:
    fake_server.set_model("qwen2.5-coder:7b")
    fake_server.set_model("llama3.2:3b")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelsScreen))
        picker = app.screen
        await wait_for(pilot, lambda: picker.query_one("#models-options").option_count == 2)
        options = picker.query_one("#models-options")
        assert {options.get_option_at_index(i).id for i in range(2)} == {"qwen2.5-coder:7b", "llama3.2:3b"}
        options.highlighted = [options.get_option_at_index(i).id for i in range(2)].index("llama3.2:3b")
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, MainScreen) and app.runtime.provider.model == "llama3.2:3b"


async def test_context_reports_what_is_in_the_context(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "/context")
        report = transcript(app).items[-1]
        assert isinstance(report, NoticeItem) and report.title == "Context"
        assert "System prompt" in report.text and "Messages: 0" in report.text


async def test_approval_shows_and_sets_the_mode(make_app) -> None:
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "/approval")
        assert notices(app)[-1].startswith("Approval mode: ask")
        await run(app, pilot, "/approval yolo")
        assert app.runtime.policy.mode == "yolo"
        assert app.screen.query_one(StatusLine).data.approval == "yolo"
        await run(app, pilot, "/approval sometimes")
        assert "Unknown approval mode 'sometimes'" in notices(app)[-1]


async def test_name_names_the_session(make_app) -> None:
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "/name")
        assert notices(app)[-1].startswith("Usage: /name NAME")
        await run(app, pilot, "/name parser fix")
        assert app.runtime.session.name == "parser fix"


async def test_name_takes_a_name_typed_on_the_next_line(make_app) -> None:
    """Typed "/name", Alt+Enter, the name: any whitespace ends a command's name (it was "Unknown command: /name\\ngamma")."""
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/name", "alt+enter", *"parser", "alt+enter", *"fix")
        assert app.screen.query_one("#prompt").text == "/name\nparser\nfix"
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.runtime.session.name == "parser fix"
        assert notices(app)[-1] == "Session named “parser fix”."


async def test_copy_puts_the_last_answer_on_the_clipboard(make_app, fake_server) -> None:
    fake_server.script(Text("the answer is 42"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "/copy")
        assert "Nothing to copy yet" in notices(app)[-1]
        await run(app, pilot, "question")
        await run(app, pilot, "/copy")
        assert app.clipboard == "the answer is 42"
        assert "Copied the last answer (16 characters)" in notices(app)[-1]


def files(folder: Path, pattern: str) -> list[Path]:
    return sorted(folder.glob(pattern))


def read(path: Path) -> str:
    return path.read_text()


async def test_export_writes_to_the_exports_folder_unless_given_a_path(make_app, fake_server, workspace: Path) -> None:
    fake_server.script(Text("exported answer"))
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "please export")
        await run(app, pilot, "/export")
        html = exports_dir() / f"navtui-{app.runtime.session.session_id[:8]}.html"
        assert "exported answer" in read(html)
        assert notices(app)[-1] == f"Exported the session to {html}"  # the path is printed
        assert files(workspace, "navtui-*") == []  # the repository stays clean
        await run(app, pilot, "/export out.md")  # a path: relative to the working directory, as asked
        text = read(workspace / "out.md")
        assert "please export" in text and "exported answer" in text
        await run(app, pilot, "/export .")  # a folder: the default name inside it
        assert files(workspace, "navtui-*.html") == [workspace / html.name]
        await run(app, pilot, "/export out.md/x.html")  # a file where a folder should be
        errors = [e for e in transcript(app).items if isinstance(e, ErrorItem)]
        assert errors and "Could not export" in errors[-1].message and "writable" in (errors[-1].hint or "")
        (workspace / "notes.html").write_text("mine")
        await run(app, pilot, "/export notes.html")  # a file that is not an export: refused with its own hint only
        errors = [e for e in transcript(app).items if isinstance(e, ErrorItem)]
        assert (
            errors[-1].message
            == f"Could not export: {workspace / 'notes.html'} exists and is not an earlier export; nothing was written"
        )
        assert errors[-1].hint == "give another name, or remove that file first"  # not also "check the folder ..."
        assert (workspace / "notes.html").read_text() == "mine"


async def test_export_without_a_session_file_writes_the_transcript(make_app, fake_server, workspace: Path) -> None:
    fake_server.script(Text("only on screen"))
    app = make_app(ephemeral=True)
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "hi")
        await run(app, pilot, "/export")
        [written] = files(exports_dir(), "navtui-transcript-*.md")
        assert "only on screen" in read(written) and str(written) in notices(app)[-1]


async def test_quit_exits(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/quit", "enter")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


async def test_a_double_slash_sends_a_message_starting_with_a_slash(make_app, fake_server) -> None:
    fake_server.script(Text("a path"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run(app, pilot, "//etc/hosts is what?")
        assert [e.text for e in transcript(app).items if isinstance(e, UserItem)] == ["/etc/hosts is what?"]
        assert any(isinstance(e, AssistantItem) for e in transcript(app).items)
        assert not any(isinstance(e, ErrorItem) for e in transcript(app).items)
