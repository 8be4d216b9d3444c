"""Answers far above the screen let go of their rendered lines, and show the same text when scrolled back to."""

from __future__ import annotations

from navtui.widgets.transcript import AssistantView
from tests.app.conftest import main_screen, screen_text, settle, transcript, wait_for
from tests.fakes import Text

SIZE = (100, 32)


def _answer(tag: str, count: int) -> str:
    return "".join(f"{tag} paragraph {n} with `code` and **bold** words.\n\n" for n in range(count))


async def test_an_old_answer_released_off_screen_shows_its_text_when_scrolled_back_to(make_app, fake_server) -> None:
    fake_server.script(Text(_answer("first", 60)))
    fake_server.script(Text(_answer("second", 60)))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        main_screen(app).submit("one")
        await settle(app, pilot)
        main_screen(app).submit("two")
        await settle(app, pilot)
        await wait_for(pilot, lambda: "second paragraph 59" in screen_text(app))
        first, second = view.widgets_of(AssistantView)
        drawn = [first.render_line(y).text for y in range(first.size.height)]  # everything, before the release

        released = view.trim_offscreen()

        # Every block of the first answer (the last one too: a finished answer has no open block); the second
        # keeps the blocks near the screen.
        assert first._document.released == len(first._document.blocks) == 60
        assert 0 < second._document.released < 60 and released > 60
        # the blocks' sources are read from the answer's own text, not kept a second time
        assert first._document.blocks.text is first.item.text
        assert "second paragraph 59" in screen_text(app)
        height = first.size.height
        view.scroll_to(y=first.virtual_region.y, animate=False, immediate=True)
        await wait_for(pilot, lambda: "first paragraph 0 with code and bold words." in screen_text(app))
        assert first.size.height == height
        assert [first.render_line(y).text for y in range(first.size.height)] == drawn
        assert "first paragraph 59 with code and bold words." in drawn[-1]


async def test_a_finished_answer_keeps_the_recorded_messages_text_not_a_copy(make_app, fake_server) -> None:
    # in pieces, as a model streams it: the view and the agent each join them into an equal string of their own
    fake_server.script(*(Text(_answer(f"only {n}", 1)) for n in range(40)))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("one")
        await settle(app, pilot)
        (view,) = transcript(app).widgets_of(AssistantView)
        message = app.runtime.agent.messages[-1]
        (block,) = message.content
        # one string for the context's message, the transcript's item, the view and its blocks' sources
        assert view.text is block.text and view.item.text is block.text
        assert view._document.blocks.text is block.text
        assert "only 39 paragraph 0 with code and bold words." in screen_text(app)
