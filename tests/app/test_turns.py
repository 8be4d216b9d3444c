"""Whole turns through the app against the fake Ollama server: streaming, interrupting, queueing."""

from __future__ import annotations

import threading

from navtui.widgets.items import AssistantItem, NoticeItem, UserItem
from navtui.widgets.prompt import PromptEditor
from navtui.widgets.status_line import StatusLine
from navtui.widgets.transcript import AssistantView
from tests.app.conftest import main_screen, rendered_text, settle, transcript, wait_for
from tests.fakes import Text, Usage

SIZE = (100, 32)


async def test_a_prompt_streams_an_answer_into_markdown(make_app, fake_server) -> None:
    chunks = ["Here is ", "the **fix**:\n\n", "```python\n", "def f():\n", "    return 1\n", "```\n\nDone."]
    fake_server.script(*(Text(c, delay=0.01) for c in chunks), Usage(input=120, output=30))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"fix it", "enter")
        await settle(app, pilot)
        entries = transcript(app).items
        assert [type(e).__name__ for e in entries[1:]] == ["UserItem", "AssistantItem"]
        assert entries[1].text == "fix it"
        assert entries[2].text == "".join(chunks)
        shown = rendered_text(transcript(app).widgets_of(AssistantView)[0])
        assert "the fix:" in shown and "def f():" in shown and "Done." in shown
        assert "```" not in shown and "**" not in shown  # rendered, not raw Markdown
        status = app.screen.query_one(StatusLine)
        assert status.data.tokens_out == 30 and not status.working
        assert fake_server.chat_requests[-1].json["messages"][-1]["content"] == "fix it"


async def test_escape_interrupts_and_keeps_the_partial_answer(make_app, fake_server) -> None:
    fake_server.script(Text("partial answer "), Text("that never comes", delay=30))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        main.submit("write a lot")
        await wait_for(pilot, lambda: any(isinstance(e, AssistantItem) for e in transcript(app).items))
        await wait_for(pilot, lambda: "partial" in rendered_text(transcript(app).widgets_of(AssistantView)[0]))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not main.running, seconds=5)
        await settle(app, pilot)
        entries = transcript(app).items
        answer = next(e for e in entries if isinstance(e, AssistantItem))
        assert answer.text == "partial answer "
        assert any(isinstance(e, NoticeItem) and "Interrupted" in e.text for e in entries)
        history = app.runtime.agent.messages
        assert history[-1].stop_reason == "aborted" and history[-1].text == "partial answer "


async def test_a_message_typed_while_working_is_queued_and_sent_after_the_turn(make_app, fake_server) -> None:
    answer_may_end = threading.Event()
    fake_server.script(Text("first "), Text("answer", until=answer_may_end))
    fake_server.script(Text("second answer"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        main.submit("one")
        await wait_for(pilot, lambda: main.running)
        await pilot.press(*"two", "enter")
        queued = app.screen.query_one("#queued")
        assert main.queued == ["two"] and queued.display
        assert "two" in str(queued.render())
        assert len(fake_server.chat_requests) == 1
        answer_may_end.set()
        await wait_for(pilot, lambda: len(fake_server.chat_requests) == 2 and not main.running)
        await settle(app, pilot)
        users = [e.text for e in transcript(app).items if isinstance(e, UserItem)]
        assert users == ["one", "two"]
        answers = [e.text for e in transcript(app).items if isinstance(e, AssistantItem)]
        assert answers == ["first answer", "second answer"]
        assert not queued.display and main.queued == []
        assert fake_server.chat_requests[1].json["messages"][-1]["content"] == "two"


async def test_the_prompt_is_cleared_after_sending(make_app, fake_server) -> None:
    fake_server.script(Text("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"hello", "enter")
        await settle(app, pilot)
        assert app.screen.query_one(PromptEditor).text == ""


async def test_after_an_interrupt_queued_messages_come_back_to_the_prompt(make_app, fake_server) -> None:
    fake_server.script(Text("slow "), Text("answer", delay=30))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        main.submit("one")
        await wait_for(pilot, lambda: main.running and any(isinstance(e, AssistantItem) for e in transcript(app).items))
        await pilot.press(*"two", "enter")
        assert main.queued == ["two"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not main.running, seconds=5)
        await settle(app, pilot)
        assert main.queued == [] and app.screen.query_one(PromptEditor).text == "two"
        assert len(fake_server.chat_requests) == 1  # nothing was sent behind the user's back


async def test_up_on_an_empty_prompt_takes_the_queued_messages_back_to_edit(make_app, fake_server) -> None:
    # As in Claude Code: a message queued by mistake (or to be reworded) comes back with Up. Up showed it from the
    # history instead and left it queued: sent again after editing, it went twice.
    answer_may_end = threading.Event()
    fake_server.script(Text("first "), Text("answer", until=answer_may_end))
    fake_server.script(Text("second answer"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        main.submit("one")
        await wait_for(pilot, lambda: main.running)
        await pilot.press(*"two", "enter", *"three", "enter")
        assert main.queued == ["two", "three"] and "↑ edits" in str(app.screen.query_one("#queued").render())
        await pilot.press("up")
        prompt = app.screen.query_one(PromptEditor)
        assert prompt.text == "two\n\nthree" and main.queued == []
        assert not app.screen.query_one("#queued").display
        await pilot.press("up")  # the prompt is not empty now: Up moves in it (then the history), as before
        assert prompt.text == "two\n\nthree" and main.queued == []
        await pilot.press("end", "down", "down", "end", *["backspace"] * len("\n\nthree"), *", reworded", "enter")
        assert main.queued == ["two, reworded"]
        answer_may_end.set()
        await wait_for(pilot, lambda: len(fake_server.chat_requests) == 2 and not main.running)
        await settle(app, pilot)
        users = [e.text for e in transcript(app).items if isinstance(e, UserItem)]
        assert users == ["one", "two, reworded"]
