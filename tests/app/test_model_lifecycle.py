"""Ollama's model lifecycle in the app: a cold model's loading is shown, /models shows what is in memory,
/models pull downloads a model with a progress bar."""

from __future__ import annotations

from navtui.app.screens.models import ModelsScreen
from navtui.widgets.items import ErrorItem, NoticeItem, ProviderHelpItem, PullItem
from navtui.widgets.pull_card import PullCard
from navtui.widgets.status_line import StatusLine
from tests.app.conftest import main_screen, rendered_text, screen_text, settle, transcript, wait_for
from tests.fakes import Text

SIZE = (100, 32)
MODEL = "qwen2.5-coder:7b"


def items(app, kind: type) -> list:
    return [item for item in transcript(app).items if isinstance(item, kind)]


async def test_a_cold_model_says_it_is_loading_then_how_long_it_took(make_app, fake_server) -> None:
    fake_server.set_model(MODEL, loaded=False)
    fake_server.load_delay = 0.5
    fake_server.script(Text("warm now"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("hello")
        status = app.screen.query_one(StatusLine)
        await wait_for(pilot, lambda: any("Loading" in n.text for n in items(app, NoticeItem)))
        assert f"Loading {MODEL} into memory…" in items(app, NoticeItem)[-1].text
        await wait_for(pilot, lambda: f"loading {MODEL}" in rendered_text(status))  # and in the status line
        await settle(app, pilot)
        [notice] = [n for n in items(app, NoticeItem) if MODEL in n.text]  # one card, updated in place
        assert notice.text.startswith(f"Loaded {MODEL} into memory in ") and notice.text.endswith(" s.")
        assert f"Loaded {MODEL} into memory in" in screen_text(app) and "warm now" in screen_text(app)


async def test_models_shows_what_is_in_memory_and_each_size(make_app, fake_server) -> None:
    fake_server.set_model(MODEL, context_length=32768)
    fake_server.set_model("llama3.2:3b", loaded=False, parameter_size="3.2B")
    app = make_app()
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelsScreen))
        await wait_for(pilot, lambda: "in memory" in screen_text(app))
        shown = screen_text(app)
        assert "● qwen2.5-coder:7b" in shown and "current · in memory · 5.0 GB · ctx 32,768" in shown
        assert "llama3.2:3b" in shown and "4.7 GB · 3.2B · Q4_K_M" in shown
        assert "2 models from ollama, 1 in memory" in shown and "/models pull NAME" in shown


async def test_models_pull_shows_progress_and_the_model_is_then_listed(make_app, fake_server) -> None:
    fake_server.set_model(MODEL)
    fake_server.set_pullable("smollm2:135m", size=270_000_000, steps=4, delay=0.15)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("/models pull smollm2:135m")
        await wait_for(pilot, lambda: items(app, PullItem) and (items(app, PullItem)[0].completed or 0) > 0)
        card = transcript(app).widgets_of(PullCard)[0]
        await wait_for(pilot, lambda: "%" in rendered_text(card))
        shown = rendered_text(card)
        assert "pull smollm2:135m" in shown and "█" in shown and "270.0 MB" in shown
        assert "pulling" in rendered_text(app.screen.query_one(StatusLine))
        await settle(app, pilot)
        [pulled] = items(app, PullItem)
        assert pulled.state == "done" and "270.0 MB" in pulled.message and "/model smollm2:135m" in pulled.message
        assert "✓ pull smollm2:135m" in rendered_text(card)
        assert "smollm2:135m" in await app.runtime.list_models()


async def test_esc_stops_a_pull_and_a_wrong_name_says_why(make_app, fake_server) -> None:
    fake_server.set_model(MODEL)
    fake_server.set_pullable("big:70b", size=40_000_000_000, steps=100, delay=0.2)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("/models pull big:70b")
        await wait_for(pilot, lambda: items(app, PullItem) and (items(app, PullItem)[0].completed or 0) > 0)
        await pilot.press("escape")
        await settle(app, pilot)
        [stopped] = items(app, PullItem)
        assert stopped.state == "cancelled" and "resumes" in stopped.message
        assert not app.screen.query_one(StatusLine).working
        main_screen(app).submit("/models pull no-such-model")
        await settle(app, pilot)
        failed = items(app, PullItem)[-1]
        assert failed.state == "failed" and "file does not exist" in failed.message


async def test_a_missing_model_points_at_models_pull(make_app, fake_server) -> None:
    fake_server.set_model("llama3.2:3b")  # the app's model is not on the server
    app = make_app(check_provider=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        [help_card] = items(app, ProviderHelpItem)
        assert any(step.startswith(f"get the model: /models pull {MODEL}") for step in help_card.steps)
        main_screen(app).submit("/model gone:1b")
        await settle(app, pilot)
        assert items(app, ErrorItem)[-1].hint.startswith("/models pull gone:1b downloads it")
