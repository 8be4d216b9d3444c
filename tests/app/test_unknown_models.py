"""Unknown models: /model refuses a name the server does not have, the picker always has a row to take, a missing
model's help card lists what is installed, and a plain name on an OpenAI-compatible server stays there."""

from __future__ import annotations

from textual.widgets import OptionList

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.app.app import NavtuiApp
from navtui.app.approver import UiApprover
from navtui.app.screens.models import ModelsScreen
from navtui.widgets.items import ErrorItem, NoticeItem, ProviderHelpItem
from tests.app.conftest import main_screen, settle, transcript, wait_for

SIZE = (100, 32)
MODEL = "qwen2.5-coder:7b"


def items(app, kind: type) -> list:
    return [e for e in transcript(app).items if isinstance(e, kind)]


async def test_model_nosuch_errors_and_does_not_switch(make_app, fake_server) -> None:
    fake_server.set_model(MODEL)
    fake_server.set_model("llama3.2:3b")
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main_screen(app).submit("/model nosuch:1b")
        await settle(app, pilot)
        [error] = items(app, ErrorItem)
        assert "No model named nosuch:1b" in error.message and f"still on {MODEL}" in error.message
        assert (
            "installed: qwen2.5-coder:7b, llama3.2:3b" in error.hint
            or "installed: llama3.2:3b, qwen2.5-coder:7b" in error.hint
        )
        assert app.runtime.provider.model == MODEL
        main_screen(app).submit("/model llama3.2:3b")  # a listed one switches
        await settle(app, pilot)
        assert app.runtime.provider.model == "llama3.2:3b"
        assert any("Switched to llama3.2:3b" in n.text for n in items(app, NoticeItem))


async def test_the_picker_always_has_a_row_selected(make_app, fake_server) -> None:
    fake_server.set_model("llama3.2:3b")
    app = make_app(model="nosuch:1b")  # started on a model the server does not have
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelsScreen))
        options = app.screen.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count >= 1 and options.get_option_at_index(0).id == "llama3.2:3b")
        assert options.highlighted is not None  # the current model's row ("in settings, not on the server")
        await pilot.press("home", "enter")
        await settle(app, pilot)
        assert app.runtime.provider.model == "llama3.2:3b"


async def test_a_missing_model_with_ollama_running_lists_the_installed_ones(make_app, fake_server) -> None:
    fake_server.set_model("llama3.2:3b")
    fake_server.set_model("smollm2:135m")
    app = make_app(model="nosuch:1b", check_provider=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        [card] = items(app, ProviderHelpItem)
        assert not any("ollama serve" in step for step in card.steps)  # Ollama is running
        assert card.steps[0] == "get the model: /models pull nosuch:1b (or ollama pull nosuch:1b)"
        assert card.hint is None  # the step says it: the way to the model is named once
        assert "switch to an installed model: /model NAME (" in card.steps[1]
        assert "llama3.2:3b" in card.steps[1] and "smollm2:135m" in card.steps[1]


async def test_a_plain_name_on_an_openai_compatible_server_stays_on_it(fake_server, workspace, monkeypatch) -> None:
    fake_server.set_model("local-model")
    fake_server.set_model("qwen2.5-coder:7b")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    url = fake_server.url + "/v1"
    launch = LaunchOptions(cwd=workspace, provider="openai", base_url=url, model="local-model", approval="yolo")
    app = NavtuiApp(
        Runtime.create(launch, approver=UiApprover()), animate=False, check_provider=False, watch_themes=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main_screen(app).submit("/model qwen2.5-coder:7b")  # an Ollama-looking tag, served by this server
        await settle(app, pilot)
        provider = app.runtime.provider
        assert (provider.name, provider.model, provider.base_url) == ("openai", "qwen2.5-coder:7b", url)


async def test_a_model_picked_from_a_servers_list_stays_on_that_server(fake_server, workspace, monkeypatch) -> None:
    """A proxy (LiteLLM, an OpenAI-compatible gateway) lists ``claude-sonnet-4-5`` among its models: picked from
    that list it is the proxy's model, not Anthropic's at api.anthropic.com (typed, ``/model claude-...`` is)."""
    fake_server.set_model("local-model")
    fake_server.set_model("claude-sonnet-4-5")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    url = fake_server.url + "/v1"
    launch = LaunchOptions(cwd=workspace, provider="openai", base_url=url, model="local-model", approval="yolo")
    app = NavtuiApp(
        Runtime.create(launch, approver=UiApprover()), animate=False, check_provider=False, watch_themes=False
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelsScreen))
        options = app.screen.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == 2)
        assert options.get_option_at_index(0).id == "claude-sonnet-4-5"
        await pilot.press("home", "enter")
        await settle(app, pilot)
        provider = app.runtime.provider
        assert (provider.name, provider.model, provider.base_url) == ("openai", "claude-sonnet-4-5", url)
        assert not items(app, ErrorItem)


async def test_a_model_named_in_settings_picked_from_the_list_goes_to_its_own_provider(make_app, fake_server) -> None:
    """The list shows the server's models and those the settings name (the advisor's). Only a model the server
    listed stays on it: the settings' claude-sonnet-4-5, picked while on Ollama, was looked for on Ollama ("No model
    named claude-sonnet-4-5 on ollama") instead of going to Anthropic as ``/model claude-sonnet-4-5`` does."""
    fake_server.set_model(MODEL)
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.runtime.settings.model_roles["advisor"] = "claude-sonnet-4-5"
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ModelsScreen))
        options = app.screen.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == 2)
        assert options.get_option_at_index(1).id == "claude-sonnet-4-5"
        await pilot.press("end", "enter")
        await settle(app, pilot)
        assert not [e for e in items(app, ErrorItem) if "No model named" in e.message]
        assert (app.runtime.provider.name, app.runtime.provider.model) == ("anthropic", "claude-sonnet-4-5")
