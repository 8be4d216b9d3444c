"""Fixtures for the app's pilot tests: a real Runtime on the fake Ollama server, and helpers to drive it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.app.app import NavtuiApp
from navtui.app.approver import UiApprover
from navtui.app.screens.main import MainScreen
from navtui.widgets.transcript import Transcript

MODEL = "qwen2.5-coder:7b"
SIZE = (100, 32)

AppFactory = Callable[..., NavtuiApp]


@pytest.fixture
def make_app(fake_server: Any, workspace: Path) -> AppFactory:
    """``make_app(approval="yolo", ephemeral=True, **options)``: the full app on the fake Ollama server."""

    def build(
        *, approval: str = "yolo", ephemeral: bool = True, check_provider: bool = False, **options: Any
    ) -> NavtuiApp:
        launch = LaunchOptions(
            cwd=workspace,
            provider="ollama",
            base_url=options.pop("base_url", fake_server.url),
            model=options.pop("model", MODEL),
            approval=approval,
            ephemeral=ephemeral,
            **options,
        )
        approver = UiApprover()
        runtime = Runtime.create(launch, approver=approver)
        app = NavtuiApp(runtime, animate=False, check_provider=check_provider, watch_themes=False)
        approver.attach(app)
        return app

    return build


async def settle(app: NavtuiApp, pilot: Any) -> None:
    """Let every worker (the agent turn, status refresh, commands) finish, then let the screen catch up."""
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def wait_for(pilot: Any, condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Pause until ``condition()`` holds (the test fails with a clear message otherwise)."""
    steps = int(seconds / 0.02)
    for _ in range(steps):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"condition not met within {seconds} s: {condition}")


def main_screen(app: NavtuiApp) -> MainScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, MainScreen), app.screen_stack
    return screen


def transcript(app: NavtuiApp) -> Transcript:
    return main_screen(app).transcript


def rendered_text(widget: Any) -> str:
    """What a widget shows, as plain text (its visible lines)."""
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


def screen_text(app: NavtuiApp) -> str:
    """What the whole screen shows now, as plain text (modals and what they let through included)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


_SGR_OR_MOVE = re.compile(r"\x1b\[[0-9;]*[mH]")


def terminal_output(app: NavtuiApp) -> str:
    """Exactly what a full repaint of the current screen writes to the terminal (the driver's bytes).

    Headless pilots never write to a terminal, so this renders the screen's compositor the way ``App._display``
    does for a real one.
    """
    return app.screen._compositor.render_full_update().render_segments(app.console)


def foreign_controls(output: str) -> list[str]:
    """Control sequences in ``output`` that Textual itself would not write: colours and cursor moves only."""
    rest = _SGR_OR_MOVE.sub("", output)
    return re.findall(r"[\x00-\x08\x0b-\x1f\x7f-\x9f][^\x00-\x1f]{0,12}", rest)
