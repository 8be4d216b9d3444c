"""Shared fixtures: every test gets its own NAVTUI_HOME and no provider keys or endpoints from the environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fixture import fake_server  # noqa: F401

_KEY_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",  # alone, a credential (providers/anthropic.py)
    "ANTHROPIC_BASE_URL",  # a developer's gateway: the tests' requests go to the fakes only
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "NAVTUI_API_KEY",
    "OPENROUTER_API_KEY",
    "OLLAMA_HOST",
    "OLLAMA_API_KEY",
)


def pytest_configure(config: pytest.Config) -> None:
    """A skipped test says why in the summary (no omp theme files here, no real model), as ``-rs`` would."""
    chars = config.option.reportchars
    if not any(char in chars for char in "saAN"):  # asked for already, or for no summary at all
        config.option.reportchars = chars + "s"


@pytest.fixture(autouse=True)
def navtui_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("navtui-home")
    monkeypatch.setenv("NAVTUI_HOME", str(home))
    # pi's and omp's agent dir (both honour it): their sessions, which navtui lists too, are the test's own.
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / "pi-agent"))
    for var in _KEY_VARS:
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(autouse=True)
def _fresh_model_facts() -> None:
    """Model facts are cached per (provider, endpoint, model) for the process. Each test's fake server has a new
    port, but a port can come back: a later test on it must not get an earlier test's window (a 4k window
    offers fewer tools)."""
    from navtui.providers import registry
    from navtui.providers.ollama_info import clear_model_cache

    clear_model_cache()
    registry.forget_model_info()


@pytest.fixture(autouse=True)
def _slash_commands_restored() -> Iterator[None]:
    """Slash commands registered while a test runs (an MCP server's prompts, custom command files) are gone after
    it: the registry is the process's, and a later test's /help, palette or completion must not list them. The
    registry is put back as it was, loaded or not (a test may be the first to load the built-in commands)."""
    from navtui.app.commands.registry import COMMANDS

    saved = (COMMANDS._loaded, dict(COMMANDS._commands), dict(COMMANDS._aliases))
    yield
    COMMANDS._loaded, COMMANDS._commands, COMMANDS._aliases = saved  # load() registers them again when asked


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty git-less project directory."""
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    """Where a test's helper process (an MCP test server) leaves its pid and what happened to it."""
    path = tmp_path / "traces"
    path.mkdir()
    return path
