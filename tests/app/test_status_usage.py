"""What the status line says a turn cost, on each provider: prompt tokens (cached ones counted), the part read from
the server's cache, output tokens and, where the price is known, the cost."""

from __future__ import annotations

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.app.app import NavtuiApp
from navtui.app.approver import UiApprover
from navtui.widgets.status_line import StatusLine
from tests.app.conftest import main_screen, rendered_text, settle
from tests.fakes import Text, Usage

SIZE = (140, 24)


def app_on(provider: str, model: str, url: str, workspace) -> NavtuiApp:  # type: ignore[no-untyped-def]
    launch = LaunchOptions(cwd=workspace, provider=provider, base_url=url, model=model, approval="yolo")
    return NavtuiApp(
        Runtime.create(launch, approver=UiApprover()), animate=False, check_provider=False, watch_themes=False
    )


@pytest.mark.parametrize(
    ("provider", "model", "suffix"),
    [("anthropic", "claude-sonnet-4-5", ""), ("openai", "gpt-4o", "/v1")],
)
async def test_a_prompt_read_from_the_cache_is_shown(
    fake_server, workspace, monkeypatch, provider, model, suffix
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    # Anthropic counts cache reads beside input_tokens, OpenAI inside prompt_tokens: 3,000 prompt tokens either way.
    cached = Usage(input=1200 if provider == "anthropic" else 3000, output=40, cache_read=1800)
    fake_server.script(Text("Hello."), cached)
    app = app_on(provider, model, fake_server.url + suffix, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main_screen(app).submit("hi")
        await settle(app, pilot)
        shown = rendered_text(app.screen.query_one(StatusLine))
        assert "↑3.0k ↓40 $" in shown and " · 1.8k cached │ " in shown


async def test_no_cache_no_cached_count(make_app, fake_server) -> None:  # type: ignore[no-untyped-def]
    fake_server.script(Text("Hello."), Usage(input=1200, output=40))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main_screen(app).submit("hi")
        await settle(app, pilot)
        shown = rendered_text(app.screen.query_one(StatusLine))
        assert "↑1.2k ↓40 │ " in shown and " cached" not in shown.split("↑")[1]
