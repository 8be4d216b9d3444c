"""Fixtures for tool tests: a real workspace on disk and a context around it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.registry import default_tools, make_context
from tests.tools.sandbox.support import Canary


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path, tmp_path: Path) -> ToolContext:
    context = make_context(ws, None, tmp_path / "artifacts")
    yield context
    context.jobs.kill_all_sync(grace=0.5)


@pytest.fixture
def canary() -> Iterator[Canary]:
    """A TCP listener on 127.0.0.1 that counts the connections it gets."""
    listener = Canary()
    yield listener
    listener.close()


@pytest.fixture
def tools() -> dict[str, Tool[Any]]:
    return {tool.name: tool for tool in default_tools()}


async def call(tool: Tool[Any], ctx: ToolContext, **raw: Any) -> ToolResult:
    """Validate the raw arguments like the agent does, then run the tool."""
    return await tool.run(tool.parse_args(raw), ctx)


def content(path: Path) -> str:
    """The file's text (a plain function: async tests must not call blocking pathlib methods directly)."""
    return path.read_text()


def put(path: Path, text: str) -> None:
    path.write_text(text)
