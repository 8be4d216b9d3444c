"""The /resume picker names a session folder it cannot list, as `navtui sessions` and `-c` do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from navtui.app.app import NavtuiApp
from navtui.app.screens.sessions import SessionPickerScreen
from navtui.session.listing import project_sessions_dir
from tests.app.conftest import wait_for
from tests.app.scripted_runtime import ScriptedRuntime


class PickerApp(NavtuiApp):
    """navtui's app (its theme variables style the picker), recording what it is asked to notify."""

    def __init__(self) -> None:
        super().__init__(ScriptedRuntime(), animate=False, check_provider=True, watch_themes=False)
        self.notes: list[tuple[str, str]] = []

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        self.notes.append((message, kwargs.get("severity", "information")))


@pytest.fixture
def looped(workspace: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A sessions root whose folder for the workspace is a loop of links: every reader fails, root too."""
    root = tmp_path / "sessions"
    folder = project_sessions_dir(workspace.resolve(), root)
    folder.parent.mkdir(parents=True)
    folder.symlink_to(folder)
    return root, folder


async def test_a_folder_the_picker_cannot_list_is_named_once(workspace: Path, looped: tuple[Path, Path]) -> None:
    # The picker showed an empty list: the user's sessions looked lost.
    root, folder = looped
    app = PickerApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        picker = SessionPickerScreen(workspace, root=root)
        app.push_screen(picker)
        await wait_for(pilot, lambda: bool(app.notes))
        ((text, severity),) = app.notes
        assert text.startswith(f"Cannot read the session folder {folder} (Too many levels of symbolic links)")
        assert "remove it or point it at a folder" in text and severity == "warning"
        picker._loaded([], set(), None, [text])  # a reload (after a delete) does not say it again
        await pilot.pause()
        assert len(app.notes) == 1
