"""The theme picker in a tiny app: live preview, Esc restores, Enter chooses, new files appear."""

from __future__ import annotations

from textual.app import App
from textual.widgets import OptionList

from navtui.app.screens.theme_picker import ThemePickerScreen
from navtui.themes.live import ThemeNamesListener, ThemeReloader, register_themes
from navtui.themes.loader import ThemeRegistry
from tests.themes.conftest import theme_json, write_theme

NAMES = ["dark", "light", "nord", "tokyo-night"]


class PickerApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.registry = ThemeRegistry()
        self.results: list[str | None] = []

    def on_mount(self) -> None:
        register_themes(self, self.registry)
        self.theme = "light"

    def open_picker(self, names: list[str] = NAMES) -> ThemePickerScreen:
        screen = ThemePickerScreen(names)
        self.push_screen(screen, self.results.append)
        return screen


async def test_cursor_previews_and_escape_restores() -> None:
    app = PickerApp()
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_picker()
        await pilot.pause()
        assert isinstance(app.screen, ThemePickerScreen)
        assert app.theme == "light"  # opening does not change anything
        await pilot.press("down")
        assert app.theme == "nord"
        assert app.theme_variables["nav-accent"] == app.get_theme("nord").variables["nav-accent"]
        await pilot.press("down")
        assert app.theme == "tokyo-night"
        await pilot.press("escape")
        await pilot.pause()
        assert app.theme == "light"
        assert app.results == [None]
        assert not isinstance(app.screen, ThemePickerScreen)


async def test_enter_chooses_the_highlighted_theme() -> None:
    app = PickerApp()
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_picker()
        await pilot.pause()
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.results == ["dark"]
        assert app.theme == "dark"


async def test_a_current_theme_missing_from_the_list_is_listed_first() -> None:
    app = PickerApp()
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_picker(["dark", "nord"])
        await pilot.pause()
        assert app.theme == "light"
        await pilot.press("down")
        assert app.theme == "dark"
        await pilot.press("escape")
        await pilot.pause()
        assert app.theme == "light"


async def test_new_theme_files_appear_while_open(user_themes) -> None:
    app = PickerApp()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.open_picker(app.registry.names())
        await pilot.pause()
        await pilot.press("down")  # cursor on the theme after "light"
        highlighted = app.theme
        assert isinstance(screen, ThemeNamesListener)
        write_theme(user_themes / "aaa-added.json", theme_json("aaa-added"))
        ThemeReloader(app, app.registry).apply(app.registry.reload_file(user_themes / "aaa-added.json"))
        await pilot.pause()
        options = screen.query_one(OptionList)
        assert options.get_option_at_index(0).id == "aaa-added"
        assert app.theme == highlighted  # the cursor stays on the same theme
        await pilot.press("home")
        assert app.theme == "aaa-added"
