"""A key's edit in the prompt does what TextArea's does (widgets/prompt.py: the cursor placed once an edit, the
scrollbars left alone when the text's height did not change; app/app.py: no empty selection cleared): the same
keys in Textual's own TextArea and in the prompt leave the same text, cursor, remembered column, size, scrollbars
and undo history."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from navtui.app.app import NavtuiApp
from navtui.widgets.prompt import PromptEditor
from tests.app.test_key_path import typed

CSS = """
TextArea { height: auto; min-height: 3; max-height: 7; padding: 0 1; border: round white; width: 30; }
"""

KEYS = [
    *"hello there, a line long enough to wrap", "NL", *"short", "up", "end", "down", "up",
    "home", "right", "right", *"xy", "backspace", "delete", "ctrl+z", "ctrl+z", "ctrl+y", "NL", "NL",
    "NL", "NL", "NL", *"scrolled", "up", "up", "up", "shift+left", "shift+left", "q", "ctrl+w",
    "ctrl+z", "ctrl+u", "ctrl+z", "ctrl+y", "end", "down", "down", "ctrl+k", "backspace", "backspace",
]  # fmt: skip


class TwoApp(App[None]):
    CSS = CSS

    def compose(self) -> ComposeResult:
        yield TextArea(id="textual", soft_wrap=True, show_line_numbers=False, tab_behavior="focus", compact=True)
        yield PromptEditor(id="prompt")


def state(area: TextArea) -> tuple[Any, ...]:
    return (
        area.text,
        area.selection,
        area.navigator.last_x_offset,
        area._cursor_offset,
        area.virtual_size,
        area.show_vertical_scrollbar,
        area.scroll_offset,
        len(area.history.undo_stack),
        len(area.history.redo_stack),
    )


async def test_the_prompt_edits_as_textual_s_text_area_does() -> None:
    app = TwoApp()
    async with app.run_test(size=(40, 24)) as pilot:
        textual, prompt = app.query_one("#textual", TextArea), app.query_one(PromptEditor)
        states: dict[str, list[tuple[Any, ...]]] = {}
        for area in (textual, prompt):
            area.focus()
            await pilot.pause()
            states[area.id or ""] = seen = []
            for key in KEYS:
                if key == "NL":  # (Enter sends in the prompt, ctrl+j is no key of TextArea's: the same edit)
                    area.insert("\n")
                else:
                    await typed(app, key)
                await pilot.pause()
                seen.append(state(area))
        for number, (theirs, ours) in enumerate(zip(states["textual"], states["prompt"], strict=True)):
            assert ours == theirs, (number, KEYS[number])
        assert any(seen[5] for seen in states["prompt"])  # the text outgrew the prompt: a scrollbar


async def test_a_key_clears_a_selection_on_the_screen_and_leaves_none_alone() -> None:
    app = TwoApp()
    async with app.run_test(size=(40, 24)) as pilot:
        prompt = app.query_one(PromptEditor)
        prompt.focus()
        textual = app.query_one("#textual", TextArea)
        app.screen.selections = {textual: Selection((0, 0), (0, 1))}
        await typed(app, "a")
        await pilot.pause()
        assert app.screen.selections == {}
        assert app.screen._select_state is None  # (Textual's name, read by NavtuiApp.clear_selection)
        selections = app.screen.selections
        await typed(app, "b")
        assert app.screen.selections is selections  # nothing selected: left as it was
        assert prompt.text == "ab"
    assert "clear_selection" in NavtuiApp.__dict__
