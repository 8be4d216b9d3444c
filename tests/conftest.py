"""Shared fixtures: every test gets its own NAVTUI_HOME and no provider keys or endpoints from the environment."""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import tempfile
import threading
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


# No test may hang the suite: one still running after this many seconds has every thread's stack written to its
# stderr and fails (the soak runs, minutes long by design, get an hour). A passing test never comes near it: none
# takes 20 s at load 8. NAVTUI_TEST_HANG sets another bound (0: none, for a debugger).
HANG = float(os.environ.get("NAVTUI_TEST_HANG", "300"))
SOAK_HANG = 3600.0


class TestHung(BaseException):
    """Raised in the main thread of a test past its bound: a BaseException, so no ``except Exception`` (the event
    loop's callbacks, a retry) swallows it; pytest reports it as the test's failure and goes on."""

    __test__ = False


def _hung(signum: int, frame: object) -> None:
    raise TestHung(
        f"the test was still running after its bound (NAVTUI_TEST_HANG, {HANG:g} s): the stacks are in its stderr"
    )


def pytest_configure(config: pytest.Config) -> None:
    """A skipped test says why in the summary (no omp theme files here, no real model), as ``-rs`` would."""
    chars = config.option.reportchars
    if not any(char in chars for char in "saAN"):  # asked for already, or for no summary at all
        config.option.reportchars = chars + "s"
    if HANG > 0:
        signal.signal(signal.SIGUSR2, _hung)
    _compile_navtui()


def _compile_navtui() -> None:
    """navtui's and the tests' modules compiled once, so the interpreters the tests start (navtui on a pty, --print
    runs, the import guards) read them instead of compiling them from source at every start, as they did where
    PYTHONDONTWRITEBYTECODE is set (on the shared machine, for every process). That variable stays: a program a
    test writes, runs, fixes and runs again within a second must not be read from a stale cache (with it dropped,
    four tests ran the unfixed code). Up to date, this is a stat of each file."""
    import compileall

    root = Path(__file__).resolve().parents[1]
    for package in ("navtui", "tests"):
        compileall.compile_dir(root / package, quiet=2, workers=1)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Bound each test (setup, call and teardown): a watchdog thread dumps the stacks, then signals the main thread
    (a real signal: a wait in a system call is interrupted too, where an interrupt_main() would wait for it)."""
    if HANG <= 0:
        yield
        return
    main = threading.main_thread().ident
    assert main is not None

    def expire() -> None:
        faulthandler.dump_traceback(file=sys.__stderr__, all_threads=True)
        signal.pthread_kill(main, signal.SIGUSR2)

    watchdog = threading.Timer(SOAK_HANG if item.get_closest_marker("soak") else HANG, expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()


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


@pytest.fixture
def private_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp dir of the test's own as this process's and its children's (``TMPDIR``). For tests that look for
    what a killed navtui left in the temp dir: in a /tmp shared with another suite, that suite's navtui sweeps a
    gone owner's scratch dir (whatever its home) at its start, maybe before the test looked."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return temp
