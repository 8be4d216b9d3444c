"""A key's echo painted from the prompt's own idle handler (``MainScreen.echo_now``): no message to the screen's
queue, the same frame; a repaint that is no key's echo, and one that changes the prompt's height, reach the screen
as Textual sends them."""

from __future__ import annotations

from textual import events, messages

from navtui.widgets.prompt import PromptEditor
from tests.app.conftest import AppFactory, main_screen, settle
from tests.app.test_echo_frames import recorded_frames, rows_of, until


async def test_a_keys_echo_is_painted_from_the_prompt_without_a_message_to_the_screen(make_app: AppFactory) -> None:
    updates: list[object] = []
    app = make_app()

    def hook(message: object) -> None:
        if isinstance(message, (messages.Update, messages.Layout)):
            updates.append(message)

    async with app.run_test(size=(100, 32), message_hook=hook) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        screen._update_timer.stop()  # only the echo paints
        frames = recorded_frames(app)
        prompt = screen.query_one(PromptEditor)
        text_row = prompt.content_region.y
        for key, character, text in (("x", "x", "x"), ("y", "y", "xy"), ("left", None, "xy"), ("backspace", None, "y")):
            updates.clear()
            frames.clear()
            app.post_message(events.Key(key, character))
            await until(lambda text=text: bool(frames) and prompt.text == text and not app.pacer.echo_pending)
            assert not [u for u in updates if getattr(u, "widget", None) is prompt], key
            assert rows_of(frames[0]) == {text_row}, key
            row = screen._compositor.render_strips()[text_row].text
            assert text in row, (key, row)

        # A new line grows the prompt: its layout goes through the screen, as before, and is painted whole.
        frames.clear()
        app.post_message(events.Key("ctrl+j", None))
        await until(lambda: bool(frames) and prompt.text == "\ny" and not app.pacer.echo_pending)
        assert prompt.outer_size.height == 4

        # No key waits (the text set by the app): the prompt tells the screen by a message, as Textual does.
        updates.clear()
        prompt.load_text("from the app")
        await pilot.pause()
        await pilot.pause()
        assert any(getattr(u, "widget", None) is prompt for u in updates)
        assert "from the app" in screen._compositor.render_strips()[text_row].text
