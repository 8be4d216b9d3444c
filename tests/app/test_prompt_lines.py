"""The prompt's plain rows drawn by navtui (widgets/prompt_lines.py) are what Textual draws, in every state; any
other row still goes through Textual; the private names of Textual's it relies on are where it expects them."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.document._wrapped_document import WrappedDocument
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from navtui.widgets.prompt import PromptEditor
from navtui.widgets.prompt_lines import PlainRows

CSS = """
PromptEditor { height: auto; min-height: 3; max-height: 8; margin: 0 1; padding: 0 1; border: round $secondary; }
PromptEditor:focus { border: round $accent; }
PromptEditor.-mode { border: round red; }
"""


class LinesApp(App[None]):
    CSS = CSS

    def compose(self) -> ComposeResult:
        yield PromptEditor(id="prompt")
        yield TextArea(id="other")  # somewhere for the focus to go

    @property
    def prompt(self) -> PromptEditor:
        return self.query_one(PromptEditor)


def textual_rows(prompt: PromptEditor) -> list[Strip]:
    """Each row as Textual draws it: TextArea's lines through Textual's styles cache, nothing kept from before."""
    prompt._styles_cache.clear()
    prompt._line_cache.clear()
    width, height = prompt.region.size
    return [TextArea.render_lines(prompt, Region(0, y, width, 1))[0] for y in range(height)]


def navtui_rows(prompt: PromptEditor) -> tuple[list[Strip], int]:
    """Each row as the prompt draws it one at a time (as a key's frame asks for it), and how many rows navtui drew."""
    plain = prompt._plain
    assert plain is not None
    drawn = plain.drawn
    width, height = prompt.region.size
    rows = []
    for y in range(height):
        prompt._styles_cache.set_dirty(Region(0, y, width, 1))  # (as a key's repaint of that row does)
        rows.append(prompt.render_lines(Region(0, y, width, 1))[0])
    return rows, plain.drawn - drawn


async def compare(app: LinesApp, pilot: object, what: str, *, plain_rows: int | None = None) -> None:
    prompt = app.prompt
    await app.workers.wait_for_complete()
    for _ in range(3):
        await pilot.pause()  # type: ignore[attr-defined]
    shown = prompt.render_lines(Region(0, 0, *prompt.region.size))  # a whole repaint: Textual's, edges learnt
    ours, drawn = navtui_rows(prompt)
    theirs = textual_rows(prompt)
    assert [list(strip) for strip in ours] == [list(strip) for strip in theirs], what
    assert [list(strip) for strip in shown] == [list(strip) for strip in theirs], what
    if plain_rows is not None:
        assert drawn == plain_rows, (what, drawn)


async def test_a_plain_row_drawn_by_navtui_is_what_textual_draws_in_every_state() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 16)) as pilot:
        prompt = app.prompt
        prompt.focus()
        await compare(app, pilot, "empty", plain_rows=1)
        prompt.insert("hello world")
        for column in range(len("hello world") + 1):
            prompt.move_cursor((0, column))
            await compare(app, pilot, f"cursor at {column}", plain_rows=1)
        prompt.insert("\nsecond line\nthird")
        await compare(app, pilot, "three lines, the cursor on the last", plain_rows=3)
        prompt.move_cursor((1, 3))
        await compare(app, pilot, "the cursor on the middle line", plain_rows=3)
        prompt.selection = Selection((1, 2), (1, 6))
        await compare(app, pilot, "a selection: Textual's rows", plain_rows=0)
        prompt.selection = Selection((0, 2), (2, 1))
        await compare(app, pilot, "a selection over lines", plain_rows=0)
        prompt.move_cursor((2, 0))

        prompt.load_text("wide 日本語 and é\nplain\ttab\nplain")
        await compare(app, pilot, "wide characters and a tab: Textual's rows", plain_rows=1)
        prompt.load_text("a line long enough to wrap in a prompt this narrow\nshort")
        await compare(app, pilot, "a wrapped line: Textual's rows", plain_rows=1)
        prompt.load_text("x" * 33)  # the cursor's cell after it is the row's last
        await compare(app, pilot, "a line that fills the row", plain_rows=1)
        prompt.load_text("x" * 34)
        await compare(app, pilot, "no room for the cursor's cell after the line: Textual's", plain_rows=0)
        prompt.load_text("x" * 35)
        await compare(app, pilot, "a line one cell too long: wrapped", plain_rows=0)

        prompt.load_text("call(x)\nand [y]")
        prompt.move_cursor((0, 4))  # on "(": it and its match are highlighted
        await compare(app, pilot, "a matched bracket's row: Textual's", plain_rows=1)
        prompt.move_cursor((1, 1))
        await compare(app, pilot, "brackets, none matched", plain_rows=2)

        prompt.load_text("")
        prompt.placeholder = "Ask anything"
        await compare(app, pilot, "the placeholder: Textual's", plain_rows=0)
        prompt.placeholder = ""
        prompt.load_text("focus\nmoves")

        app.query_one("#other").focus()
        await compare(app, pilot, "not focused: no cursor, another border", plain_rows=2)
        prompt.focus()
        await compare(app, pilot, "focused again", plain_rows=2)
        prompt._cursor_visible = False  # the blink's off phase
        await compare(app, pilot, "the cursor blinked off", plain_rows=2)
        prompt._cursor_visible = True

        prompt.add_class("-mode")
        await compare(app, pilot, "a class: another border", plain_rows=2)
        prompt.remove_class("-mode")
        for theme in ("textual-light", "nord", "textual-dark"):
            app.theme = theme
            await compare(app, pilot, f"the app's theme {theme}", plain_rows=2)
        for editor_theme in ("monokai", "github_light", "css"):  # with a cursor line style, and without
            prompt.theme = editor_theme
            await compare(app, pilot, f"the editor's theme {editor_theme}", plain_rows=2)
        prompt.highlight_cursor_line = False
        prompt.theme = "monokai"
        await compare(app, pilot, "no cursor line highlight", plain_rows=2)
        prompt.theme = "css"
        prompt.highlight_cursor_line = True
        app.screen.styles.background = "darkblue"  # an ancestor's style: the prompt's colours beneath change
        await compare(app, pilot, "the screen's background", plain_rows=2)
        app.screen.styles.color = "yellow"
        await compare(app, pilot, "the screen's colour", plain_rows=2)

        prompt.load_text("\n".join(f"line {n}" for n in range(12)))
        await compare(app, pilot, "more lines than the prompt shows: scrolled, Textual's", plain_rows=0)
        prompt.load_text("short again")
        await compare(app, pilot, "short again", plain_rows=1)


async def test_each_key_typed_shows_what_textual_draws() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 16)) as pilot:
        prompt = app.prompt
        prompt.focus()
        keys = [*"type (it) here", "left", "left", "backspace", "home", "delete", "end", "ctrl+j", *"next", "up"]
        for key in keys:
            await pilot.press(key)
            await compare(app, pilot, key)
        assert prompt.text == "ype (it) hre\nnext"


async def test_the_rows_a_key_repaints_are_drawn_by_navtui_and_the_edges_by_textual() -> None:
    app = LinesApp()
    async with app.run_test(size=(40, 16)) as pilot:
        prompt = app.prompt
        prompt.focus()
        await pilot.press("a")
        await pilot.pause()
        plain = prompt._plain
        assert plain is not None and plain.edges is not None  # learnt from Textual's first drawing
        drawn = plain.drawn
        await pilot.press(*"bcd", "backspace", "left")
        await pilot.pause()
        assert plain.drawn > drawn
        assert prompt.text == "abc"
        prompt.add_class("-mode")  # a class changes the border: the edges are forgotten, and learnt again
        assert plain.edges is None
        await pilot.pause()
        assert plain.edges is not None


def test_the_private_names_of_textual_the_prompt_relies_on_are_there() -> None:
    # widgets/prompt_lines.py and widgets/prompt.py read or override these; a Textual that renames them must fail
    # here, not draw wrong rows or skip a repaint.
    area = TextArea("x")
    for name in ("_theme", "_has_cursor", "_draw_cursor", "_highlights", "_matching_bracket_location", "_line_cache"):
        assert hasattr(area, name), name
    for name in ("_repaint_required", "_layout_required", "_scroll_required", "_refresh_styles_required"):
        assert isinstance(getattr(area, name), bool), name
    assert isinstance(area._recompose_required, bool) and isinstance(area._closing, bool)
    assert isinstance(area._cursor_offset, tuple) and isinstance(area.navigator.last_x_offset, int)
    assert hasattr(area._styles_cache, "_cache") and hasattr(area._styles_cache, "_dirty_lines")
    assert isinstance(area.styles._cache_key, int)
    document = WrappedDocument(area.document, width=10)
    assert document._offset_to_line_info == [(0, 0)]
    for name in ("_render_line", "render_line", "_refresh_size", "record_cursor_width", "_watch_selection"):
        assert name in TextArea.__dict__, name
    assert "_check_refresh" in Widget.__dict__ and "_select_state" in Screen.__dict__
    assert PlainRows().edges is None


async def test_an_ancestors_style_change_counts_up_its_styles_cache_key() -> None:
    # PromptEditor._rich_style keeps rich_style while each ancestor's ``styles._cache_key`` stays the same.
    app = LinesApp()
    async with app.run_test(size=(40, 16)) as pilot:
        prompt = app.prompt
        before = prompt._rich_style()
        key = app.screen.styles._cache_key
        app.screen.styles.text_style = "italic"  # (the prompt's own background hides the screen's)
        assert app.screen.styles._cache_key != key
        assert prompt._rich_style() == prompt.rich_style != before
        app.theme = "textual-light"
        await pilot.pause()
        assert prompt._rich_style() == prompt.rich_style
