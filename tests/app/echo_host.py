"""navtui as ``python -m navtui`` runs it, with its UI loop held when a test says so (tests/app/test_local_echo.py).

``NAVTUI_TEST_HOLD`` names a folder with two FIFOs, ``held`` and ``release``. On SIGUSR1 the UI loop, at its next
callback (between two, never inside a frame), says ``held`` and blocks until the test writes ``release``: the
driver's input thread runs on, the loop does not. On SIGUSR2 the loop first binds backspace to the bell with priority, with no frame in between (a
backspace then typed is echoed, and the binding takes it: a wrong echo, on purpose), then holds the same way. On SIGRTMIN the loop holds inside the next frame that paints the row of an echo (its state
decided: a key read meanwhile is echoed or not by what it decided), the same way.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import navtui.app.app as app_module
from navtui.cli import main

FOLDER = Path(os.environ["NAVTUI_TEST_HOLD"])
APPS: list[Any] = []


class HeldApp(app_module.NavtuiApp):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        APPS.append(self)
        echo = self.local_echo
        if echo is not None:  # held inside the next frame that paints an echo's row, once asked (SIGRTMIN)
            render_begins = echo.render_begins

            def hold_in_frame(rows: Any, band: Any = None) -> None:
                render_begins(rows, band)
                if IN_FRAME and rows is not None and echo._paints:
                    IN_FRAME.clear()
                    hold()

            echo.render_begins = hold_in_frame  # type: ignore[method-assign]


IN_FRAME: list[bool] = []  # SIGRTMIN: hold the loop inside the next frame that paints an echo's row


def hold() -> None:
    with open(FOLDER / "held", "w", encoding="utf-8") as held:
        held.write("h")
    with open(FOLDER / "release", encoding="utf-8") as release:
        release.read(1)


def on_usr1(signum: int, frame: object) -> None:
    asyncio.get_running_loop().call_soon_threadsafe(hold)


def make_wrong_then_hold() -> None:
    APPS[0]._bindings.bind("backspace", "bell", priority=True)
    hold()


def on_usr2(signum: int, frame: object) -> None:
    asyncio.get_running_loop().call_soon_threadsafe(make_wrong_then_hold)


def on_rtmin(signum: int, frame: object) -> None:
    IN_FRAME.append(True)


app_module.NavtuiApp = HeldApp  # type: ignore[misc]
signal.signal(signal.SIGUSR1, on_usr1)
signal.signal(signal.SIGUSR2, on_usr2)
signal.signal(signal.SIGRTMIN, on_rtmin)
sys.exit(main(sys.argv[1:]))
