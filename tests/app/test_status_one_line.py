"""The status line stays one line whatever the working directory is called.

A directory whose name holds a newline (``--cwd`` or a repository's folder) put the rest of the status line (the
model, the context meter, the approval mode) on a second line the one-row widget never showed."""

from __future__ import annotations

from textual.app import App, ComposeResult

from navtui.widgets.status_line import StatusData, StatusLine


class StatusApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine()


async def test_a_directory_name_with_a_newline_keeps_the_model_and_mode_on_the_line() -> None:
    app = StatusApp()
    async with app.run_test(size=(120, 5)) as pilot:
        status = app.query_one(StatusLine)
        status.data = StatusData(cwd="/tmp/ws/\x1b[2Jdir\nx", provider="ollama", model="qwen2.5-coder:7b")
        status.refresh()
        await pilot.pause()
        text = status.render()
        plain = getattr(text, "plain", str(text))
        assert "\n" not in plain
        assert "dir\u240ax" in plain and "␛[2J" in plain and "qwen2.5-coder:7b" in plain
