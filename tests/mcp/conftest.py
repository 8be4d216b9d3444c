"""Real MCP servers for the tests: ``mcp_server.py`` over stdio (started by navtui) or over streamable HTTP
(started here on 127.0.0.1 and stopped after the test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from navtui.config.settings import McpSettings
from navtui.mcp.config import load_config, user_config_path
from navtui.mcp.lifecycle import ConnectionOptions
from navtui.mcp.manager import McpManager
from navtui.tools.base import ToolRegistry
from navtui.tools.shell.procs import is_alive

SERVER = Path(__file__).with_name("mcp_server.py")


def stdio_entry(traces: Path, **extra: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SERVER)], "env": {"MCP_TEST_DIR": str(traces)}, **extra}


def write_servers(path: Path, servers: dict[str, dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


@pytest.fixture
def user_servers() -> Callable[[dict[str, dict[str, object]]], Path]:
    """Write ``~/.navtui/mcp.json`` (the test's NAVTUI_HOME) with these servers."""
    return lambda servers: write_servers(user_config_path(), servers)


class HttpTestServer:
    """``mcp_server.py --http`` as a process: started on a free port, stopped, started again on the same port."""

    def __init__(self, traces: Path, **env: str) -> None:
        self.env = {**os.environ, "MCP_TEST_DIR": str(traces), **env}
        self.port = 0
        self.process: subprocess.Popen[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> str:
        process = self.process = subprocess.Popen(
            [sys.executable, str(SERVER), "--http"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**self.env, "MCP_TEST_PORT": str(self.port)},
        )
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("PORT "), line
        self.port = int(line.split()[1])
        return self.url

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(5)
            if self.process.stdout is not None:
                self.process.stdout.close()  # an open pipe left to the garbage collector is a ResourceWarning
            self.process = None

    def restart(self) -> None:
        """A new server process on the same port: it knows none of the old one's sessions."""
        self.stop()
        self.start()


@pytest.fixture
def http_server(traces: Path) -> Iterator[str]:
    """The test server on streamable HTTP; yields its URL."""
    server = HttpTestServer(traces)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def http_servers(traces: Path) -> Iterator[Callable[..., HttpTestServer]]:
    """Start test servers on streamable HTTP with extra environment (``MCP_TEST_LEGACY="1"`` ...)."""
    started: list[HttpTestServer] = []

    def start(**env: str) -> HttpTestServer:
        server = HttpTestServer(traces, **env)
        started.append(server)
        server.start()
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


def make_manager(
    cwd: Path, *, settings: McpSettings | None = None, trust_project: bool = False, registry: ToolRegistry | None = None
) -> McpManager:
    settings = settings or McpSettings(startup_timeout=20, call_timeout=30)
    options = ConnectionOptions(
        startup_timeout=settings.startup_timeout, call_timeout=settings.call_timeout, artifacts_dir=cwd / ".artifacts"
    )
    return McpManager(
        load_config(cwd),
        cwd=cwd,
        tools=registry if registry is not None else ToolRegistry(),
        settings=settings,
        options=options,
        trust_project=trust_project,
    )


def server_pid(traces: Path) -> int:
    return int((traces / "pid").read_text())


def gone(pid: int) -> bool:
    return not is_alive(pid)


async def eventually(condition: Callable[[], bool], what: str, seconds: float = 15.0) -> None:
    """Wait until ``condition()`` holds (polled), or fail naming ``what``."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)
