"""Long pastes: collapsed in the prompt and in the transcript, expandable, always sent in full."""

from __future__ import annotations

from textual import events

from navtui.app.session_view import transcript_items
from navtui.core.messages import UserMessage
from navtui.session.entries import MessageEntry
from navtui.widgets.cards import UserMessageView
from navtui.widgets.items import UserItem
from navtui.widgets.pasted import PromptPastes, collapse, long_blocks
from navtui.widgets.prompt import PromptEditor
from tests.app.conftest import main_screen, rendered_text, screen_text, settle, transcript
from tests.fakes import Text

SIZE = (100, 32)
LOG = "".join(f"FAILED tests/test_{n}.py::test_case - AssertionError\n" for n in range(500))


def prompt(app) -> PromptEditor:
    return main_screen(app).query_one(PromptEditor)


async def paste(pilot, text: str) -> None:
    pilot.app.post_message(events.Paste(text))  # as the terminal driver does: the app forwards it to the focus
    await pilot.pause()


async def test_a_500_line_paste_is_one_line_in_the_prompt_and_the_transcript_and_sent_whole(
    make_app, fake_server
) -> None:
    fake_server.script(Text("500 failures, one cause"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"why do these fail? ")
        await paste(pilot, LOG.replace("\n", "\r"))  # a terminal sends pasted newlines as CR
        assert prompt(app).text == "why do these fail? [pasted #1 · 500 lines]"
        await pilot.press("enter")
        await settle(app, pilot)
        sent = fake_server.chat_requests[-1].json["messages"][-1]["content"]
        assert sent == "why do these fail? " + LOG  # the model gets every line
        [item] = [e for e in transcript(app).items if isinstance(e, UserItem)]
        assert item.text == "why do these fail? " + LOG and item.pasted == [LOG]
        view = transcript(app).widgets_of(UserMessageView)[0]
        shown = rendered_text(view)
        assert "why do these fail?" in shown and "[pasted 500 lines]" in shown
        assert "test_3.py" not in shown and view.size.height <= 2
        await pilot.click(UserMessageView)  # expands in place
        await settle(app, pilot)
        assert view.size.height > 400 and "test_499.py" in view.item.text
        await pilot.press("ctrl+o")  # every expandable item folds again
        await settle(app, pilot)
        assert view.size.height <= 2 and not item.expanded


async def test_ctrl_o_opens_a_paste_in_the_prompt_and_short_pastes_stay_as_they_are(make_app, fake_server) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await paste(pilot, "one line")
        assert prompt(app).text == "one line"
        await paste(pilot, "\n".join(f"line {n}" for n in range(20)))
        assert prompt(app).text == "one line[pasted #1 · 20 lines]"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert prompt(app).text == "one line" + "\n".join(f"line {n}" for n in range(20))
        assert "line 19" in screen_text(app)
        prompt(app).clear()
        await paste(pilot, "x" * 3000)  # one very long line counts too
        assert prompt(app).text == "[pasted #1 · 1 line]"
        await pilot.press("ctrl+c")  # clearing the prompt forgets it
        assert prompt(app).text == "" and not prompt(app).pastes.texts


def test_placeholders_typed_by_hand_stay_text() -> None:
    pastes = PromptPastes()
    mark = pastes.placeholder("a\nb\n")
    assert mark == "[pasted #1 · 2 lines]"
    text, used = pastes.expand(f"x {mark} and [pasted #7 · 3 lines]")
    assert text == "x a\nb\n and [pasted #7 · 3 lines]" and used == ["a\nb\n"]


def test_a_replayed_long_message_folds_after_its_first_line() -> None:
    body = "\n".join(f"row {n}" for n in range(40))
    message = f"summarise this table\n{body}"
    assert long_blocks(message) == [body] and long_blocks("short\nmessage") == []
    [item] = transcript_items([MessageEntry(id="a", parent_id=None, message=UserMessage(content=message))])
    assert isinstance(item, UserItem) and item.pasted is None  # not recorded: the view decides
    assert collapse(message, [body]) == [("summarise this table\n", None), (body, "[pasted 40 lines]")]
