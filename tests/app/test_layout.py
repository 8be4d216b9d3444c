"""The main screen's geometry: transcript items line up with the prompt box."""

from __future__ import annotations

import pytest

from navtui.widgets.cards import WelcomeCard
from navtui.widgets.prompt import PromptEditor
from tests.app.conftest import settle


@pytest.mark.parametrize("width", [100, 73])
async def test_the_welcome_card_and_the_prompt_box_share_their_columns(make_app, width: int) -> None:
    app = make_app()
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(app, pilot)
        card, prompt = app.screen.query_one(WelcomeCard).region, app.screen.query_one(PromptEditor).region
        assert (card.x, card.right) == (prompt.x, prompt.right)
        assert prompt.right < width  # the transcript's scrollbar column stays free beside both
