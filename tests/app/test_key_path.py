"""A key's own path through the prompt: the rows a key repaints, the prompt's own bindings run where the key
lands, the priority bindings looked up without building the binding chain; what the prompt shows and does is the
same as before (widgets/prompt.py, app/app.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import TextArea

from navtui.app.local_echo import binds_with_priority
from navtui.widgets.prompt import PromptEditor

CSS = "PromptEditor { height: auto; min-height: 3; max-height: 12; padding: 0 1; border: round white; }"


class RecordingPrompt(PromptEditor):
    """A prompt that notes each refresh: ``None`` for the whole widget, else the rows asked for."""

    def __init__(self) -> None:
        self.refreshes: list[tuple[int, int] | None] = []
        super().__init__(id="prompt")

    def refresh(self, *regions: Region, **options: Any) -> Any:
        if regions:
            self.refreshes.extend((region.y, region.height) for region in regions)
        else:
            self.refreshes.append(None)
        return super().refresh(*regions, **options)


class PromptApp(App[None]):
    CSS = CSS
    BINDINGS = [Binding("f5", "noted('f5')"), Binding("f6", "noted('f6 (priority)')", priority=True)]

    def __init__(self, prompt: type[RecordingPrompt] = RecordingPrompt) -> None:
        super().__init__()
        self.bubbled: list[str] = []  # keys that came back up to the app, after the prompt
        self.noted: list[str] = []
        self.prompt_class = prompt

    def compose(self) -> ComposeResult:
        yield self.prompt_class()

    @property
    def prompt(self) -> RecordingPrompt:
        return self.query_one(RecordingPrompt)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and event.is_forwarded:
            self.bubbled.append(event.key)
        await super().on_event(event)

    def action_noted(self, what: str) -> None:
        self.noted.append(what)


async def test_a_key_repaints_the_rows_it_changed_and_a_change_across_lines_the_whole_prompt() -> None:
    app = PromptApp()
    async with app.run_test(size=(40, 12)) as pilot:
        prompt = app.prompt
        await pilot.press("a")
        await pilot.pause()

        def after(*keys: str) -> list[tuple[int, int] | None]:
            prompt.refreshes.clear()
            return prompt.refreshes

        refreshes = after()
        await pilot.press("b", "c", "backspace", "left", "delete")
        assert prompt.text == "a"
        assert refreshes and set(refreshes) == {(0, 1)}  # the first line, nothing else (not the border rows)

        refreshes = after()
        await pilot.press("ctrl+j", "x")  # a new line: the prompt grows
        assert prompt.text == "a\nx"
        assert None in refreshes

        refreshes = after()
        await pilot.press("up")  # the cursor's old and new lines
        assert set(refreshes) == {(0, 1), (1, 1)}

        for keys in (("shift+right",), ("ctrl+z",), ("ctrl+y",)):  # a selection; undo, redo
            refreshes = after()
            await pilot.press(*keys)
            assert None in refreshes, keys


def key_event(key: str) -> events.Key:
    return events.Key(key, key if len(key) == 1 else None)


async def typed(app: App[None], *keys: str) -> None:
    """Each key as the terminal driver posts it to the app, handled to the end (faster than the pilot, whose
    presses wait for the whole process to go idle)."""
    for key in keys:
        app.post_message(key_event(key))
        quiet = 0
        while quiet < 3:
            await asyncio.sleep(0)
            pumps = [app, *app.screen.walk_children(with_self=True)]
            quiet = quiet + 1 if all(pump._message_queue.empty() for pump in pumps) else 0


def shown(prompt: PromptEditor) -> list[Strip]:
    return prompt.render_lines(Region(0, 0, *prompt.outer_size))


async def test_what_the_prompt_shows_after_each_key_is_what_a_whole_repaint_shows() -> None:
    # Rows a key did not repaint keep what they showed (the widget's line cache, as the terminal keeps them): if
    # a key changed a row it did not repaint, the row would differ from a whole repaint.
    keys = [
        "(", "ctrl+j", *"x)", "left",  # onto a bracket: its match, a line up, is highlighted
        "right", "up", "down", "left",  # and no longer, and again
        "delete", ")", "left", "x",  # the bracket deleted (its match no longer highlighted), typed again
        *"]) and a longer line that wraps in the narrow prompt", "home", "right",
        "up", "home", "right", "shift+right", "shift+down", "x",
        "ctrl+z", "ctrl+z", "ctrl+y", "end", "backspace", "ctrl+w", "down", "ctrl+u", "backspace",
        "ctrl+k", "(", "left", "ctrl+e", "ctrl+a", "delete",
    ]  # fmt: skip
    app = PromptApp()
    async with app.run_test(size=(30, 14)) as pilot:
        prompt = app.prompt
        for number, key in enumerate(keys):
            await typed(app, key)
            if prompt.outer_size.height != min(prompt.virtual_size.height, 10) + 2:
                await pilot.pause()  # the prompt grew or shrank: laid out again (at the screen's next frame)
            kept = shown(prompt)
            prompt.refresh()
            assert shown(prompt) == kept, (number, key, prompt.text)
        app.post_message(events.Paste("pasted (text)\nover two lines"))
        await typed(app)
        await pilot.pause()
        kept = shown(prompt)
        prompt.refresh()
        assert shown(prompt) == kept


EDITING = [*"hello world", "backspace", "left", "left", "delete", "ctrl+w", "ctrl+z", "ctrl+right", "ctrl+y"]
EDITING += ["home", "shift+right", "shift+right", "ctrl+x", "end", "ctrl+v", "ctrl+left", "ctrl+k", "ctrl+z"]


async def edited(keys: list[str], *, keymap: bool) -> tuple[str, tuple[int, int], list[str], list[str]]:
    """The prompt's text and cursor after ``keys``, the keys that bubbled up to the app and the app's actions run;
    with ``keymap``, any keymap set: Textual then looks the prompt's bindings up itself, as it always did."""
    app = PromptApp()
    async with app.run_test(size=(40, 12)):
        if keymap:
            app.set_keymap({"app.noted": "f7"})
        await typed(app, *keys)
        return app.prompt.text, app.prompt.cursor_location, app.bubbled, app.noted


async def test_the_prompt_runs_its_own_bindings_where_the_key_lands_as_textual_did() -> None:
    # Textual ran them once the key had bubbled up to the app: two more message hops and the binding chain.
    ours = await edited(EDITING, keymap=False)
    textuals = await edited(EDITING, keymap=True)
    assert ours[:2] == textuals[:2]
    assert ours[2] == []
    assert {"backspace", "delete", "ctrl+w", "ctrl+z", "ctrl+x"} <= set(textuals[2])
    # A key the prompt does not bind still goes up: the app's bindings, priority or not.
    assert (await edited([*"ab", "f5", "f6"], keymap=False))[1:] == ((0, 2), ["f5"], ["f5", "f6 (priority)"])


async def test_the_prompt_posts_no_selection_changes_and_still_its_changes() -> None:
    seen: list[str] = []

    class Watching(PromptApp):
        def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
            seen.append("selection")

        def on_text_area_changed(self, event: TextArea.Changed) -> None:
            seen.append("changed")

    app = Watching()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.press("a", "left")
        assert seen == ["changed"]


class PriorityScreen(Screen[None]):
    BINDINGS = [Binding("f2", "noop", priority=True), Binding("f3", "noop")]

    def compose(self) -> ComposeResult:
        yield PromptEditor()


class PriorityApp(App[None]):
    BINDINGS = [Binding("f4", "noop", priority=True), Binding("f8", "noop")]

    def on_mount(self) -> None:
        self.push_screen(PriorityScreen())


def chain_binds_with_priority(screen: Screen[Any], key: str) -> bool:
    """Textual's own answer: a priority binding for ``key`` in the screen's binding chain."""
    return any(
        binding.priority for _, bindings in screen._binding_chain for binding in bindings.key_to_bindings.get(key, ())
    )


async def test_a_key_with_no_priority_binding_in_the_chain_is_found_so_without_building_it() -> None:
    # Pins what the app's shortcut assumes of Textual's binding chain: it holds the focused widget's, its
    # ancestors' and the app's bindings (else the screen's and the app's), never a binding the nodes lack.
    app = PriorityApp()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        screen = app.screen
        keys = {"a", "x", "backspace", "tab", "ctrl+c", "f2", "f3", "f4", "f8", "ctrl+p", "ctrl+q", "ctrl+z"}
        for focused in (True, False):
            if not focused:
                screen.set_focus(None)
                await pilot.pause()
            for key in keys:
                assert binds_with_priority(screen, key) == chain_binds_with_priority(screen, key), (key, focused)
            assert {key for key in keys if binds_with_priority(screen, key)} == {"f2", "f4", "ctrl+p", "ctrl+q"}


class ScrollingPrompt(RecordingPrompt):
    """A prompt that counts the times it asks to scroll a region into view."""

    scrolls = 0

    def scroll_to_region(self, *args: Any, **kwargs: Any) -> Any:
        self.scrolls += 1
        return super().scroll_to_region(*args, **kwargs)


async def test_the_cursor_is_scrolled_into_view_only_when_the_prompt_can_scroll() -> None:
    app = PromptApp(ScrollingPrompt)
    async with app.run_test(size=(40, 20)) as pilot:
        prompt = app.query_one(ScrollingPrompt)
        await typed(app, *"abc", "left")
        assert prompt.scrolls == 0  # the whole text in view: nowhere to scroll to
        content = prompt.content_region
        assert prompt.cursor_screen_offset == (content.x + 2, content.y) == app.cursor_position  # the terminal's
        prompt.insert("".join(f"\nline {number}" for number in range(15)))  # more than the prompt shows (10)
        await pilot.pause()
        assert prompt.scrolls > 0
        assert prompt.scroll_offset.y == 6 and prompt.cursor_location == (15, 7)
        scrolls = prompt.scrolls
        await typed(app, *["up"] * 9)
        assert prompt.scroll_offset.y == 6 and prompt.scrolls > scrolls
        await typed(app, "up")  # the first line shown: the next line up scrolls into view
        assert prompt.scroll_offset.y == 5
        assert prompt.cursor_screen_offset.y == prompt.content_region.y == app.cursor_position.y


async def test_composed_and_wide_characters_are_typed_and_shown_as_a_whole_repaint_shows() -> None:
    # An input method's characters arrive as keys named by the character itself (Textual's parser).
    app = PromptApp()
    async with app.run_test(size=(30, 12)):
        prompt = app.prompt
        await typed(app, "x")
        prompt.refreshes.clear()
        for key in ("é", "日", "本", "ü", "backspace", "left", "ß"):
            await typed(app, key)
            kept = shown(prompt)
            prompt.refresh()
            assert shown(prompt) == kept, key
        assert (prompt.text, prompt.cursor_location) == ("xé日ß本", (0, 4))
        assert app.bubbled == []
        assert (0, 1) in prompt.refreshes and all(refresh in ((0, 1), None) for refresh in prompt.refreshes)
