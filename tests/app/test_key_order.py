"""Keys that arrive faster than the UI loop handles them act in the order they were typed.

The terminal hands a burst of keys (a fast typist, a key repeat, a terminal sending a sequence) to the app one
after another; the app forwards each to the focused prompt. Textual ran the prompt's own bindings (the arrows,
home and end, backspace) only once the key had come back up to the app, so a printable key sent right after
``end`` was inserted before the cursor moved: ``end``, ``\\``, ``enter`` typed quickly sent the prompt instead of
starting a new line. The prompt now runs its bindings where the key lands (widgets/prompt.py).
"""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.command import CommandInput, CommandPalette

from navtui.app.screens.sessions import SessionPickerScreen
from navtui.app.screens.tree import TreeScreen
from navtui.session.manager import SessionManager
from navtui.widgets.prompt import PromptEditor
from tests.app.conftest import AppFactory, main_screen, settle, wait_for
from tests.app.test_sessions_picker import make_sessions
from tests.app.tree_sessions import NOW, HostApp, two_branch_session


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


async def test_a_burst_edits_the_tree_search_in_the_order_typed(workspace: Path) -> None:
    # The tree's search took a letter where the key landed (the screen's on_key) but Backspace through a binding,
    # looked up once the key had bubbled on to the app: "abc" ⌫ ⌫ "x" typed quickly searched "abcx"[:-2].
    path, _ids = two_branch_session(workspace)
    app = HostApp(TreeScreen(SessionManager.open(path), now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, TreeScreen)
        for event in burst(*"abc", "backspace", "backspace", "x"):
            app.post_message(event)
        await wait_for(pilot, lambda: len(screen.model.query) == 2)  # every key handled (in any order)
        await pilot.pause()
        assert screen.model.query == "ax"


async def test_a_burst_edits_the_session_filter_in_the_order_typed(workspace: Path, tmp_path: Path) -> None:
    make_sessions(workspace, tmp_path / "other")
    app = HostApp(SessionPickerScreen(workspace, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, SessionPickerScreen)
        for event in burst(*"vex", "backspace", "backspace", "r"):
            app.post_message(event)
        await wait_for(pilot, lambda: len(screen.query_text) == 2)  # every key handled (in any order)
        await pilot.pause()
        assert screen.query_text == "vr"


async def test_a_burst_edits_an_input_field_in_the_order_typed(make_app: AppFactory) -> None:
    # Textual's Input (the command palette's search, the reason of a denial, a label) inserts a letter where the
    # key lands but runs Backspace, the arrows and Enter once the key has bubbled on to the app: typed quickly,
    # the letters after such a key went in before it ran ("abc" ⌫ ⌫ "x" searched the palette for "ab").
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        field = app.screen.query_one(CommandInput)
        for event in burst(*"abc", "backspace", "backspace", "x", "left", "Y", "home", "Z"):
            app.post_message(event)
        # in the order typed, four letters only at the end; in another, "abcx" at once (and at the end)
        await wait_for(pilot, lambda: len(field.value) == 4)
        await pilot.pause()
        assert field.value == "ZaYx"


async def test_shift_tab_pressed_quickly_steps_once_per_press(make_app: AppFactory) -> None:
    # Each shift+tab ran /thinking in a worker and read the level the last one had not set yet: three quick
    # presses from "off" all went to "minimal".
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        for event in burst("shift+tab", "shift+tab", "shift+tab"):
            app.post_message(event)
        await settle(app, pilot)
        assert app.runtime.thinking_level == "medium"
        assert main_screen(app).query_one(PromptEditor).has_class("-thinking-medium")


async def test_shift_tab_updates_one_notice_instead_of_adding_one_per_press(make_app: AppFactory) -> None:
    from navtui.widgets.cards import NoticeCard
    from navtui.widgets.items import NoticeItem
    from tests.app.conftest import rendered_text, transcript

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        for _ in range(3):
            await pilot.press("shift+tab")
        await settle(app, pilot)
        notices = [item for item in transcript(app).items if isinstance(item, NoticeItem)]
        assert [notice.text for notice in notices] == ["Thinking: medium."]
        cards = transcript(app).widgets_of(NoticeCard)
        assert len(cards) == 1 and "Thinking: medium." in rendered_text(cards[0])
        main_screen(app).notice("something else")  # another notice in between: the next press starts a new one
        await pilot.press("shift+tab")
        await settle(app, pilot)
        texts = [item.text for item in transcript(app).items if isinstance(item, NoticeItem)]
        assert texts == ["Thinking: medium.", "something else", "Thinking: high."]


async def test_a_picker_key_pressed_twice_quickly_opens_one_picker(make_app: AppFactory) -> None:
    # ctrl+l, ctrl+t and F1 ran their command in a worker: a second press before it had run opened a second
    # picker over the first, and Esc seemed not to close it.
    from navtui.app.screens.help import HelpScreen
    from navtui.app.screens.models import ModelsScreen

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        for key, screen in (("ctrl+l", ModelsScreen), ("f1", HelpScreen)):
            for event in burst(key, key):
                app.post_message(event)
            await settle(app, pilot)
            assert [type(s) for s in app.screen_stack[1:]] == [screen]
            await pilot.press("escape")
            await settle(app, pilot)
            assert len(app.screen_stack) == 1


def test_the_input_module_the_app_looks_for_is_textual_s() -> None:
    # NavtuiApp._input_binding_in_order does nothing until Textual's Input module is loaded (sys.modules, by its
    # private name): were it renamed, the fix would be off without an error, and only the burst above would say so.
    from textual.widgets import Input

    from navtui.app.app import INPUT_MODULE

    assert Input.__module__ == INPUT_MODULE
