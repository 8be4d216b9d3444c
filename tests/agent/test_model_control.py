"""ModelControl alone: which provider a session runs on, switching it, and giving way when it cannot be reached."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from navtui.agent.model_control import DEFAULT_MODEL, ModelControl
from navtui.config.launch import LaunchOptions
from navtui.config.settings import Settings
from navtui.core.errors import NavtuiError
from navtui.session.manager import SessionManager

FIXTURES = Path(__file__).parents[1] / "session" / "fixtures"


def configured(url: str) -> Settings:
    return Settings(provider="ollama", base_url=url, model=DEFAULT_MODEL)


async def test_a_model_of_the_same_kind_keeps_the_server_and_another_kind_takes_its_own(
    fake_server, workspace: Path
) -> None:
    models = ModelControl(configured(fake_server.url), LaunchOptions(cwd=workspace), None)
    assert (models.provider.name, models.provider.model, models.provider.base_url) == (
        "ollama",
        DEFAULT_MODEL,
        fake_server.url,
    )
    first = models.provider
    old = models.switch("llama3.2")
    assert old is first and (models.provider.model, models.provider.base_url) == ("llama3.2", fake_server.url)
    await old.aclose()
    old = models.switch("claude-test-model")
    assert models.provider.name == "anthropic" and models.provider.base_url != fake_server.url
    assert models.info is None and not models.choice.restored
    await old.aclose()
    await models.provider.aclose()


async def test_an_unreachable_resumed_model_gives_way_only_when_allowed(
    fake_server, workspace: Path, tmp_path: Path
) -> None:
    path = tmp_path / "pi-v3.jsonl"
    shutil.copyfile(FIXTURES / "pi-v3.jsonl", path)  # pi recorded openai/gpt-4o; no OPENAI_API_KEY here
    session = SessionManager.open(path)
    context = session.build_context()
    session.close()
    models = ModelControl(configured(fake_server.url), LaunchOptions(cwd=workspace, resume=str(path)), context)
    assert models.choice.restored and (models.provider.name, models.provider.model) == ("openai", "gpt-4o")
    status, old = await models.check(may_fall_back=False)  # e.g. while the agent runs
    assert not status.ok and "OpenAI API key" in status.message and old is None
    status, old = await models.check(may_fall_back=True)
    assert status.ok and status.notice is not None and "openai/gpt-4o" in status.notice
    assert old is not None and old.name == "openai"
    assert (models.provider.name, models.provider.model) == ("ollama", DEFAULT_MODEL) and models.info is not None
    await old.aclose()
    await models.provider.aclose()


async def test_thinking_levels_are_pi_names_and_an_unknown_one_says_which_exist(workspace: Path) -> None:
    settings = Settings(provider="ollama", base_url="http://127.0.0.1:9", model=DEFAULT_MODEL)
    models = ModelControl(settings, LaunchOptions(cwd=workspace, thinking="xhigh"), None)
    assert models.thinking_level == "xhigh" and settings.providers.think == "high"
    assert models.set_thinking_level("off") is False and models.thinking_level == "off"
    with pytest.raises(NavtuiError) as caught:
        models.set_thinking_level("max")
    assert "max" in caught.value.message and "medium" in (caught.value.hint or "")
    await models.provider.aclose()
