"""Following the transcript: new output scrolls into view while the user is at the bottom, never while they read
above; reaching the bottom again resumes; sending always jumps down; a hint says when output arrived below."""

from __future__ import annotations

import threading

from navtui.widgets.items import NoticeItem
from navtui.widgets.transcript import AssistantView
from tests.app.conftest import main_screen, rendered_text, screen_text, settle, transcript, wait_for
from tests.fakes import Text

SIZE = (100, 32)


def _lines(count: int, tag: str) -> str:
    return "".join(f"{tag} line {n}\n\n" for n in range(count))


async def test_scrolling_back_to_the_bottom_resumes_following(make_app, fake_server) -> None:
    later = threading.Event()  # the rest of the answer waits for the user to have scrolled up (no race with load)
    fake_server.script(Text(_lines(40, "first")), Text(_lines(30, "later"), until=later))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        hint = app.screen.query_one("#new-output")
        main_screen(app).submit("go")
        await wait_for(pilot, lambda: view.max_scroll_y > 20 and "first line 39" in screen_text(app))
        assert view.following and not hint.display
        await pilot.press("pageup")
        later.set()
        await wait_for(pilot, lambda: "↓ new output" in screen_text(app), seconds=5)  # "later ..." arrived below
        assert view.scroll_y < view.max_scroll_y
        for _ in range(12):  # more presses than pages: the extra ones at the bottom must not stop following
            await pilot.press("pagedown")
        await wait_for(pilot, lambda: view.following and "↓ new output" not in screen_text(app))
        await settle(app, pilot)
        view.add(NoticeItem("after the stream"))
        await wait_for(pilot, lambda: "after the stream" in screen_text(app))
        assert view.scroll_y == view.max_scroll_y


async def test_sending_while_scrolled_up_jumps_to_the_bottom(make_app, fake_server) -> None:
    fake_server.script(Text(_lines(40, "long")))
    fake_server.script(Text("second answer"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        main_screen(app).submit("first")
        await settle(app, pilot)
        await pilot.press("pageup", "pageup")
        await wait_for(pilot, lambda: not view.following and view.scroll_y < view.max_scroll_y - 20)
        await pilot.press(*"next", "enter")
        await settle(app, pilot)
        assert view.following
        assert "second answer" in rendered_text(transcript(app).widgets_of(AssistantView)[-1])
        assert "second answer" in screen_text(app)
        assert not app.screen.query_one("#new-output").display


async def test_clicking_the_hint_follows_again(make_app, fake_server) -> None:
    two = threading.Event()
    fake_server.script(Text(_lines(40, "one")), Text(_lines(10, "two"), until=two))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        hint = app.screen.query_one("#new-output")
        main_screen(app).submit("go")
        await wait_for(pilot, lambda: view.max_scroll_y > 20 and "one line 39" in screen_text(app))
        await pilot.press("pageup")
        two.set()
        await wait_for(pilot, lambda: "↓ new output" in screen_text(app), seconds=5)
        await pilot.click("#new-output")
        await wait_for(pilot, lambda: view.following and not hint.display)
        await settle(app, pilot)
        assert "two line 9" in screen_text(app)
