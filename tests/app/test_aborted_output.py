"""Esc on a running shell command keeps what it printed: in its card and in the result the model reads."""

from __future__ import annotations

from navtui.core.messages import ToolResultMessage
from navtui.widgets.items import ToolItem
from navtui.widgets.status_line import StatusLine
from navtui.widgets.tool_card import ToolCard
from tests.app.conftest import main_screen, rendered_text, settle, transcript, wait_for
from tests.fakes import Text, ToolCall

SIZE = (100, 32)


async def test_escape_on_a_running_command_keeps_its_output(make_app, fake_server) -> None:
    fake_server.script(ToolCall("shell", {"command": "echo first line; echo second line; sleep 60", "wait_ms": 120000}))
    fake_server.script(Text("I see the output."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        main.submit("run it")

        def card() -> ToolItem | None:
            return next((e for e in transcript(app).items if isinstance(e, ToolItem)), None)

        await wait_for(pilot, lambda: card() is not None and "second line" in "".join(card().output), seconds=30)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not main.running, seconds=30)
        await settle(app, pilot)
        item = card()
        assert item is not None and item.status == "error"
        assert item.result.startswith("Aborted by the user before this tool ran to completion. Its output so far:")
        assert "first line\nsecond line" in item.result
        shown = rendered_text(transcript(app).widgets_of(ToolCard)[0])
        assert "second line" in shown  # the card shows it, not only the notice
        result = app.runtime.agent.messages[-1]
        assert isinstance(result, ToolResultMessage) and "first line\nsecond line" in result.text
        main.submit("what happened?")
        await wait_for(pilot, lambda: len(fake_server.chat_requests) == 2 and not main.running, seconds=30)
        sent = fake_server.chat_requests[-1].json["messages"]
        assert any(m["role"] == "tool" and "second line" in m["content"] for m in sent)  # the model reads it


async def test_a_job_that_ends_leaves_the_status_line_at_once(make_app, fake_server, workspace) -> None:
    command = "while [ ! -e stop ]; do sleep 0.05; done"  # goes on in the background until the test says
    fake_server.script(ToolCall("shell", {"command": command, "wait_ms": 10}))
    fake_server.script(Text("It runs in the background."))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        status = main.query_one(StatusLine)
        main.submit("start it")
        await wait_for(pilot, lambda: not main.running and len(fake_server.chat_requests) == 2, seconds=30)
        await wait_for(pilot, lambda: status.data.background_jobs == 1)  # the turn ended with the job running
        (workspace / "stop").touch()
        await wait_for(pilot, lambda: status.data.background_jobs == 0)  # it ended: no turn needed to say so
        assert "⚙" not in rendered_text(status)
