"""How each built-in theme looks on the main surfaces, and the picker (review with ``--snapshot-update``)."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from navtui.app.screens.theme_picker import ThemePickerScreen
from navtui.themes.loader import builtin_themes
from tests.themes.preview_app import ThemePreviewApp

SIZE = (100, 38)


@pytest.mark.parametrize("name", sorted(builtin_themes()))
def test_builtin_theme_on_the_main_surfaces(snap_compare, name: str) -> None:
    assert snap_compare(ThemePreviewApp(name), terminal_size=SIZE)


def test_picker_previews_the_highlighted_theme(snap_compare) -> None:
    app = ThemePreviewApp("dark")

    async def open_picker(pilot: Pilot[None]) -> None:
        app.push_screen(ThemePickerScreen(app.registry.names()))
        await pilot.pause()

    # Two steps down from "dark": the screen behind the modal is drawn in "high-contrast".
    assert snap_compare(app, run_before=open_picker, press=["down", "down"], terminal_size=SIZE)
