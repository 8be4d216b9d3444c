"""AdvisorControl alone: starting the advisor, and where what it says goes while the primary runs or idles."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.agent.advisor_control import AdvisorControl
from navtui.config.settings import Settings
from navtui.core.errors import NavtuiError
from navtui.core.events import AdvisorNote
from navtui.providers.registry import build_provider


def control(settings: Settings, workspace: Path, url: str, running: list[bool], steered: list[str]) -> AdvisorControl:
    return AdvisorControl(
        settings,
        workspace,
        build_provider=lambda model: build_provider(settings, model=model, provider="ollama", base_url=url),
        steer=steered.append,
        primary_running=lambda: running[0],
    )


async def test_without_an_advisor_model_starting_says_how_to_assign_one(fake_server, workspace: Path) -> None:
    advisors = control(Settings(), workspace, fake_server.url, [False], [])
    with pytest.raises(NavtuiError) as caught:
        advisors.start(None, [])
    assert "advisor" in caught.value.message and "model_roles.advisor" in (caught.value.hint or "")
    assert not advisors.on


async def test_a_concern_steers_and_is_said_by_the_run_or_to_the_idle_listener(fake_server, workspace: Path) -> None:
    running, steered, heard = [True], [], []
    advisors = control(Settings(), workspace, fake_server.url, running, steered)
    advisor = advisors.start("qwen2.5-coder:7b", [])
    assert advisors.on and advisors.advisor is advisor
    advise = advisor.agent.ctx.extra["advise"]
    advise("the test asserts nothing", "concern")
    assert [e.note for e in advisors.take_events() if isinstance(e, AdvisorNote)] == ["the test asserts nothing"]
    assert advisors.take_events() == [] and "the test asserts nothing" in steered[0]
    running[0] = False
    advisors.background_listener = heard.append
    advise("the docs are stale", "blocker")
    assert [e.note for e in heard] == ["the docs are stale"] and advisors.take_events() == []
    await advisors.stop()
    assert not advisors.on and advisors.advisor is None
