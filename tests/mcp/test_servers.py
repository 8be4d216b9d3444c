"""MCP servers written with the SDK's server API, over stdio and streamable HTTP: what the model gets."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.mcp.tool import McpTool
from navtui.tools.base import ToolContext, ToolRegistry
from navtui.tools.registry import make_context
from tests.mcp.conftest import eventually, gone, make_manager, server_pid, stdio_entry

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="Linux process handling")


def context(workspace: Path) -> ToolContext:
    return make_context(workspace, None, workspace / ".artifacts")


def tool(registry: ToolRegistry, name: str) -> McpTool:
    found = registry.get(name)
    assert isinstance(found, McpTool), f"{name} not registered: {registry.names()}"
    return found


def full_output(text: str) -> tuple[int, int]:
    """The line count and mode of the file a cut result names."""
    path = Path(text.split("Full output: ")[1].split(" ...]")[0])
    return path.read_text().count("\n"), path.stat().st_mode & 0o777


async def run(registry: ToolRegistry, name: str, ctx: ToolContext, /, **arguments: object):
    found = tool(registry, name)
    return await found.run(found.parse_args(arguments), ctx)


async def test_a_stdio_server_s_tools_are_offered_with_plain_schemas(workspace, traces, user_servers) -> None:
    user_servers({"test": stdio_entry(traces)})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    try:
        await manager.start()
        assert manager.connections["test"].state == "ready"
        assert "mcp__test__echo" in registry and "mcp__test__crash" in registry
        place = tool(registry, "mcp__test__place").spec()
        assert place.description == "Put a labelled point on the map."
        assert place.parameters == {
            "type": "object",
            "properties": {
                "point": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                    "required": ["x"],
                },
                "label": {"type": "string"},
            },
            "required": ["point"],
        }
        ctx = context(workspace)
        echoed = await run(registry, "mcp__test__echo", ctx, text="hi", times=3)
        assert (echoed.text, echoed.is_error) == ("hihihi", False)
        placed = await run(registry, "mcp__test__place", ctx, point={"x": 1, "y": 2}, label="home")
        assert placed.text == "home at 1,2"
    finally:
        await manager.aclose()


async def test_error_results_and_bad_arguments(workspace, traces, user_servers) -> None:
    user_servers({"test": stdio_entry(traces)})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    try:
        await manager.start()
        ctx = context(workspace)
        failed = await run(registry, "mcp__test__fail", ctx, reason="not today")
        assert failed.is_error and failed.text == "Error executing tool fail: refused: not today"
        with pytest.raises(ToolError, match=r"missing text\. Expected arguments: text \(required\), times\."):
            tool(registry, "mcp__test__echo").parse_args({"times": 2})
        wrong_type = await run(registry, "mcp__test__echo", ctx, text="x", times="many")
        assert wrong_type.is_error and "times" in wrong_type.text
    finally:
        await manager.aclose()


async def test_images_links_and_large_results(workspace, traces, user_servers) -> None:
    user_servers({"test": stdio_entry(traces)})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    try:
        await manager.start()
        ctx = context(workspace)
        picture = await run(registry, "mcp__test__picture", ctx)
        assert picture.text.splitlines() == [
            "a red dot",
            "[image: image/png, 30 B]",
            "[resource link: dot.png file:///tmp/dot.png (image/png)]",
        ]
        assert [(image.mime_type, len(image.data)) for image in picture.images] == [("image/png", 40)]
        flood = await run(registry, "mcp__test__flood", ctx, lines=20000)
        assert flood.text.startswith("line 1\nline 2\n") and flood.text.endswith("line 20000\n")
        assert full_output(flood.text) == (20000, 0o600)
    finally:
        await manager.aclose()


async def test_a_server_that_crashes_mid_call_is_restarted_once(workspace, traces, user_servers) -> None:
    user_servers({"test": stdio_entry(traces)})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    notices: list[str] = []
    manager.listener = lambda text, level: notices.append(text) if text else None
    connection = manager.connections["test"]
    try:
        await manager.start()
        first = server_pid(traces)
        ctx = context(workspace)
        with pytest.raises(ToolError) as crashed:
            await run(registry, "mcp__test__crash", ctx, message="first")
        assert "stopped during the call to crash" in crashed.value.message
        assert "crashing: first" in crashed.value.message  # the server's stderr tail
        await eventually(lambda: connection.state == "ready" and server_pid(traces) != first, "the restart")
        assert any("restarting it once" in notice for notice in notices)
        assert (await run(registry, "mcp__test__echo", ctx, text="again")).text == "again"
        with pytest.raises(ToolError, match="already restarted once"):
            await run(registry, "mcp__test__crash", ctx, message="second")
        await eventually(lambda: connection.state == "failed", "the second crash to stop it for good")
        assert "mcp__test__echo" not in registry
        assert "not restarted" in (connection.error or "") and "/mcp reconnect test" in (connection.error or "")
        await manager.reconnect("test")
        assert connection.state == "ready" and "mcp__test__echo" in registry
    finally:
        await manager.aclose()


async def test_a_server_killed_while_idle_is_noticed_and_restarted(workspace, traces, user_servers) -> None:
    user_servers({"test": stdio_entry(traces)})
    manager = make_manager(workspace)
    connection = manager.connections["test"]
    try:
        await manager.start()
        first = server_pid(traces)
        os.kill(first, signal.SIGKILL)
        await eventually(lambda: connection.state == "ready" and server_pid(traces) != first, "the restart")
        assert connection.restarts_left == 0
    finally:
        await manager.aclose()


async def test_a_cancelled_call_is_cancelled_on_the_server(workspace, traces, user_servers) -> None:
    user_servers({"test": stdio_entry(traces)})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    try:
        await manager.start()
        call = asyncio.create_task(run(registry, "mcp__test__slow", context(workspace), seconds=60))
        await eventually(lambda: (traces / "slow-started").exists(), "the call to reach the server")
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(lambda: (traces / "cancelled").exists(), "the server to see the cancellation")
        assert manager.connections["test"].state == "ready"
    finally:
        await manager.aclose()


async def test_stopping_leaves_no_server_process(workspace, traces, user_servers) -> None:
    user_servers({"test": stdio_entry(traces)})
    manager = make_manager(workspace)
    await manager.start()
    pid = server_pid(traces)
    assert not gone(pid)
    await manager.aclose()
    await eventually(lambda: gone(pid), "the server process to end")
    assert manager.connections["test"].state == "stopped"


async def test_env_expands_from_the_environment_and_a_missing_variable_is_named(
    workspace, traces, user_servers, monkeypatch
) -> None:
    monkeypatch.setenv("MCP_TEST_TOKEN", "s3cr3t-value")
    monkeypatch.setenv("NOT_FOR_SERVERS_KEY", "hidden")
    entry = stdio_entry(traces)
    entry["env"] = {**entry["env"], "TOKEN": "Bearer ${MCP_TEST_TOKEN}", "MODE": "${MCP_TEST_MODE:-plain}"}
    user_servers({"test": entry, "broken": {"command": "x", "env": {"A": "${MCP_TEST_UNSET}"}}})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    try:
        await manager.start()
        ctx = context(workspace)
        assert (await run(registry, "mcp__test__environment", ctx, name="TOKEN")).text == "Bearer s3cr3t-value"
        assert (await run(registry, "mcp__test__environment", ctx, name="MODE")).text == "plain"
        # Only a few basics of navtui's own environment reach a server (the SDK's default), never keys.
        assert (await run(registry, "mcp__test__environment", ctx, name="NOT_FOR_SERVERS_KEY")).text == "unset"
        broken = manager.connections["broken"]
        assert broken.state == "failed" and "${MCP_TEST_UNSET}, which is not set" in (broken.error or "")
    finally:
        await manager.aclose()


async def test_a_server_that_cannot_start_fails_with_its_stderr(workspace, traces, user_servers) -> None:
    user_servers({"gone": {"command": "navtui-no-such-server", "args": ["--x"]}})
    manager = make_manager(workspace)
    notices: list[str] = []
    manager.listener = lambda text, level: notices.append(text) if text else None
    await manager.start()
    connection = manager.connections["gone"]
    assert connection.state == "failed"
    assert "it exited during start-up" in (connection.error or "")
    assert notices and "navtui: cannot run 'navtui-no-such-server'" in notices[0]
    await manager.aclose()


async def test_a_streamable_http_server_with_headers(workspace, http_server, user_servers, monkeypatch) -> None:
    monkeypatch.setenv("MCP_TEST_KEY", "key-123")
    user_servers({"web": {"url": http_server, "headers": {"X-Api-Key": "${MCP_TEST_KEY}"}}})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    try:
        await manager.start()
        assert manager.connections["web"].state == "ready"
        ctx = context(workspace)
        assert (await run(registry, "mcp__web__header", ctx, name="X-Api-Key")).text == "key-123"
        assert (await run(registry, "mcp__web__echo", ctx, text="over http")).text == "over http"
        failed = await run(registry, "mcp__web__fail", ctx, reason="http")
        assert failed.is_error and failed.text == "Error executing tool fail: refused: http"
    finally:
        await manager.aclose()


async def test_an_http_server_that_dies_mid_call(workspace, http_server, traces, user_servers) -> None:
    user_servers({"web": {"url": http_server}})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    connection = manager.connections["web"]
    try:
        await manager.start()
        with pytest.raises(ToolError, match="'web'"):
            await run(registry, "mcp__web__crash", context(workspace))
        # Nothing listens any more: the one reconnect fails and says so.
        await eventually(lambda: connection.state == "failed", "the reconnect to fail")
        assert "cannot connect" in (connection.error or "") or "exited" in (connection.error or "")
    finally:
        await manager.aclose()


async def test_cancelling_an_http_call_reaches_the_server(workspace, http_server, traces, user_servers) -> None:
    user_servers({"web": {"url": http_server}})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    try:
        await manager.start()
        call = asyncio.create_task(run(registry, "mcp__web__slow", context(workspace), seconds=60))
        await eventually(lambda: (traces / "slow-started").exists(), "the call to reach the server")
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await eventually(lambda: (traces / "cancelled").exists(), "the server to see the cancellation")
    finally:
        await manager.aclose()
