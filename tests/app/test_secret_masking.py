"""A server that quotes the API key in an error never gets it onto the screen or into the session."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.widgets.cards import ErrorCard
from tests.app.conftest import main_screen, rendered_text, settle, terminal_output, transcript
from tests.fakes import HttpError

KEY = "ollama-gateway-key-0c9d8e7f6a5b"


async def test_a_401_quoting_the_key_shows_it_masked(
    make_app, fake_server, navtui_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_API_KEY", KEY)
    fake_server.script(HttpError(401, "unauthorized: key {api_key} is not valid"))
    app = make_app(ephemeral=False)
    async with app.run_test(size=(120, 30)) as pilot:
        main_screen(app).submit("hi")
        await settle(app, pilot)
        assert fake_server.chat_requests[0].headers["authorization"] == f"Bearer {KEY}"
        [card] = transcript(app).widgets_of(ErrorCard)
        shown = rendered_text(card)
        assert "key **** is not valid" in shown and KEY not in shown
        assert KEY not in terminal_output(app)
    stored = "".join(path.read_text() for path in (navtui_home / "sessions").rglob("*.jsonl"))
    assert stored and KEY not in stored
