"""Hot reload in a running app: a save recolours it, a bad save keeps the colours and says why once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Label
from textual.widgets._toast import Toast

from navtui.themes.live import ThemeReloader, register_themes
from navtui.themes.loader import ThemeRegistry
from navtui.themes.textual_theme import nav_variable_defaults
from tests.themes.conftest import skip_if_the_machine_has_no_watch_left, theme_json, write_theme

PATIENCE = 15.0  # hang guard, not a timing assertion


class ReloadApp(App[None]):
    CSS = "Label { color: $nav-accent; background: $nav-tool-success-bg; }"

    def __init__(self, start_theme: str) -> None:
        super().__init__()
        self.registry = ThemeRegistry()
        self.start_theme = start_theme
        self.notices: list[str] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # The CSS is parsed before on_mount switches to a navtui theme.
        return nav_variable_defaults()

    def compose(self):
        yield Label("accent text", id="accent")

    def on_mount(self) -> None:
        register_themes(self, self.registry)
        self.theme = self.start_theme
        self.run_worker(ThemeReloader(self, self.registry).run(), exclusive=True, group="theme-watcher")

    def notify(self, message: str, **kwargs: Any) -> None:
        self.notices.append(message)
        super().notify(message, **kwargs)


async def until(pilot: Pilot[None], condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(PATIENCE):
        while not condition():
            await pilot.pause(0.05)


async def sync_watcher(pilot: Pilot[None], app: ReloadApp, directory: Path, name: str) -> None:
    """Write a probe theme until the app has it: the watcher is live and earlier saves were applied."""
    async with asyncio.timeout(PATIENCE):
        while app.get_theme(name) is None:
            write_theme(directory / f"{name}.json", theme_json(name))
            for _ in range(6):
                await pilot.pause(0.05)
                if app.get_theme(name) is not None:
                    return
            stopped = [notice for notice in app.notices if notice.startswith("Theme files are not watched")]
            if stopped:  # the watch could not start: why, now
                skip_if_the_machine_has_no_watch_left(stopped[0])


async def test_saving_the_active_theme_recolours_the_app(user_themes: Path) -> None:
    path = write_theme(user_themes / "mine.json", theme_json("mine", accent="#cc5500"))
    app = ReloadApp("mine")
    async with app.run_test(size=(60, 10)) as pilot:
        await sync_watcher(pilot, app, user_themes, "probe")
        label = app.query_one("#accent", Label)
        assert app.theme_variables["nav-accent"] == "#cc5500"
        assert label.styles.color.hex.lower() == "#cc5500"

        write_theme(path, theme_json("mine", accent="#00aa77"))
        await until(pilot, lambda: app.theme_variables["nav-accent"] == "#00aa77")
        assert app.current_theme.accent == "#00aa77"
        await until(pilot, lambda: label.styles.color.hex.lower() == "#00aa77")
        assert app.theme == "mine"
        assert app.notices == []


async def test_a_bad_save_keeps_the_colours_and_shows_one_notice(user_themes: Path) -> None:
    path = write_theme(user_themes / "mine.json", theme_json("mine", accent="#cc5500"))
    app = ReloadApp("mine")
    async with app.run_test(size=(80, 20), notifications=True) as pilot:
        await sync_watcher(pilot, app, user_themes, "probe")
        before = dict(app.theme_variables)

        write_theme(path, '{"name": "mine", "colors": {')
        await until(pilot, lambda: len(app.notices) == 1)
        assert "not valid JSON" in app.notices[0] and str(path) in app.notices[0]
        await until(pilot, lambda: len(app.screen.query(Toast)) == 1)

        # The same bad save again: applied (the probe after it arrives) but no second notice.
        write_theme(path, '{"name": "mine", "colors": {')
        await sync_watcher(pilot, app, user_themes, "probe2")
        assert len(app.notices) == 1
        assert app.theme == "mine" and app.theme_variables["nav-accent"] == before["nav-accent"] == "#cc5500"

        # A fix recolours again; a different mistake later gets its own notice.
        write_theme(path, theme_json("mine", accent="#3366ff"))
        await until(pilot, lambda: app.theme_variables["nav-accent"] == "#3366ff")
        data = theme_json("mine")
        del data["colors"]["toolSuccessBg"]
        write_theme(path, data)
        await until(pilot, lambda: len(app.notices) == 2)
        assert 'colors.toolSuccessBg: missing — add a colour like "#1e3a2a"' in app.notices[1]
        assert app.theme_variables["nav-accent"] == "#3366ff"


async def test_deleting_the_active_theme_file_keeps_it(user_themes: Path) -> None:
    path = write_theme(user_themes / "mine.json", theme_json("mine", accent="#cc5500"))
    app = ReloadApp("mine")
    async with app.run_test(size=(60, 10)) as pilot:
        await sync_watcher(pilot, app, user_themes, "probe")
        path.unlink()
        await sync_watcher(pilot, app, user_themes, "probe2")
        assert app.theme == "mine" and app.theme_variables["nav-accent"] == "#cc5500"
        assert app.notices == []


async def test_saving_another_theme_leaves_the_active_one_alone(user_themes: Path) -> None:
    other = write_theme(user_themes / "other.json", theme_json("other", accent="#111111"))
    app = ReloadApp("dark")
    async with app.run_test(size=(60, 10)) as pilot:
        await sync_watcher(pilot, app, user_themes, "probe")
        dark_accent = app.theme_variables["nav-accent"]
        write_theme(other, theme_json("other", accent="#222222"))
        await until(pilot, lambda: app.get_theme("other").variables["nav-accent"] == "#222222")
        assert app.theme == "dark" and app.theme_variables["nav-accent"] == dark_accent


async def test_a_file_where_the_theme_folder_goes_is_said_and_the_app_goes_on(navtui_home: Path) -> None:
    # The watch makes the user's theme folder first; a file in its place stopped the app with a traceback.
    (navtui_home / "themes").write_text("not a folder\n")
    app = ReloadApp("dark")
    async with app.run_test(size=(60, 10)) as pilot:
        await until(pilot, lambda: bool(app.notices))
        assert app.is_running and app.theme == "dark"
        [notice] = app.notices
        assert f"{navtui_home / 'themes'}: File exists" in notice and "Make it a folder" in notice
