"""Keys that arrive faster than the UI loop handles them act in the order they were typed.

The terminal hands a burst of keys (a fast typist, a key repeat, a terminal sending a sequence) to the app one
after another; the app forwards each to the focused prompt. Textual ran the prompt's own bindings (the arrows,
home and end, backspace) only once the key had come back up to the app, so a printable key sent right after
``end`` was inserted before the cursor moved: ``end``, ``\\``, ``enter`` typed quickly sent the prompt instead of
starting a new line. The prompt now runs its bindings where the key lands (widgets/prompt.py).
"""

from __future__ import annotations

from textual import events

from navtui.widgets.prompt import PromptEditor
from tests.app.conftest import AppFactory, main_screen, settle, wait_for


def burst(*keys: str) -> list[events.Key]:
    """Key events as the terminal driver makes them: a printable key carries its character."""
    return [events.Key(key, key if len(key) == 1 else ("\r" if key == "enter" else None)) for key in keys]


async def test_a_burst_of_keys_acts_in_the_order_typed(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        prompt = main_screen(app).query_one(PromptEditor)
        for event in burst(*"hello world", "home", "X", "end", "!", "left", "left", "backspace", "Y"):
            app.post_message(event)  # all queued before the first is handled
        await wait_for(pilot, lambda: len(prompt.text) == 13)  # every key handled (in any order)
        await pilot.pause()
        assert prompt.text == "Xhello worYd!"
        for event in burst("end", "\\", "enter", *"next"):  # a continued line, not a prompt sent
            app.post_message(event)
        await wait_for(pilot, lambda: "t" in prompt.text)
        await pilot.pause()
        assert prompt.text == "Xhello worYd!\nnext"  # a prompt sent would have emptied it
        assert prompt.cursor_location == (1, 4)
