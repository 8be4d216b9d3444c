"""MCP servers written with the SDK's server API, over stdio and streamable HTTP: what the model gets."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from navtui.core.errors import ToolError
from navtui.mcp import process
from navtui.mcp.config import user_config_path
from navtui.mcp.connection import ServerConnection
from navtui.mcp.tool import McpTool
from navtui.tools.base import ToolContext, ToolRegistry, ToolResult
from navtui.tools.registry import make_context
from tests.mcp.conftest import eventually, gone, make_manager, server_pid, stdio_entry, write_servers

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


async def run(registry: ToolRegistry, name: str, ctx: ToolContext, /, **arguments: object) -> ToolResult:
    found = tool(registry, name)
    return await found.run(found.parse_args(arguments), ctx)


class Running:
    """One configured server, started: its manager, the registry its tools went to, a tool context."""

    def __init__(self, workspace: Path, name: str) -> None:
        self.name = name
        self.registry = ToolRegistry()
        self.manager = make_manager(workspace, registry=self.registry)
        self.notices: list[str] = []
        self.manager.listener = lambda text, level: self.notices.append(text) if text else None
        self.ctx = context(workspace)

    @property
    def connection(self) -> ServerConnection:
        return self.manager.connections[self.name]

    async def run(self, tool_name: str, /, **arguments: object) -> ToolResult:
        return await run(self.registry, f"mcp__{self.name}__{tool_name}", self.ctx, **arguments)


async def started(request: pytest.FixtureRequest, transport: str, workspace: Path, traces: Path) -> Running:
    """The test server over stdio (the user's server 'test') or streamable HTTP ('web'), started."""
    if transport == "stdio":
        entry, name = stdio_entry(traces), "test"
    else:
        entry, name = {"url": request.getfixturevalue("http_server"), "headers": {"X-Api-Key": "${K:-key-123}"}}, "web"
    write_servers(user_config_path(), {name: entry})
    running = Running(workspace, name)
    await running.manager.start()
    return running


@pytest.fixture
async def stdio(request: pytest.FixtureRequest, workspace: Path, traces: Path) -> AsyncIterator[Running]:
    running = await started(request, "stdio", workspace, traces)
    yield running
    await running.manager.aclose()


@pytest.fixture
async def web(request: pytest.FixtureRequest, workspace: Path, traces: Path) -> AsyncIterator[Running]:
    running = await started(request, "http", workspace, traces)
    yield running
    await running.manager.aclose()


@pytest.fixture(params=["stdio", "http"])
async def either(request: pytest.FixtureRequest, workspace: Path, traces: Path) -> AsyncIterator[Running]:
    running = await started(request, request.param, workspace, traces)
    yield running
    await running.manager.aclose()


async def test_a_stdio_server_s_tools_are_offered_with_plain_schemas(stdio: Running) -> None:
    assert stdio.connection.state == "ready"
    assert "mcp__test__echo" in stdio.registry and "mcp__test__crash" in stdio.registry
    place = tool(stdio.registry, "mcp__test__place").spec()
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
    echoed = await stdio.run("echo", text="hi", times=3)
    assert (echoed.text, echoed.is_error) == ("hihihi", False)
    assert (await stdio.run("place", point={"x": 1, "y": 2}, label="home")).text == "home at 1,2"


async def test_error_results_and_bad_arguments(stdio: Running) -> None:
    failed = await stdio.run("fail", reason="not today")
    assert failed.is_error and failed.text == "Error executing tool fail: refused: not today"
    with pytest.raises(ToolError, match=r"missing text\. Expected arguments: text \(required\), times\."):
        tool(stdio.registry, "mcp__test__echo").parse_args({"times": 2})
    wrong_type = await stdio.run("echo", text="x", times="many")
    assert wrong_type.is_error and "times" in wrong_type.text


async def test_images_links_and_large_results(stdio: Running) -> None:
    picture = await stdio.run("picture")
    assert picture.text.splitlines() == [
        "a red dot",
        "[image: image/png, 30 B]",
        "[resource link: dot.png file:///tmp/dot.png (image/png); read it with read_mcp_resource server=test]",
    ]
    assert [(image.mime_type, len(image.data)) for image in picture.images] == [("image/png", 40)]
    hostile = await stdio.run("picture", hostile=True)
    assert hostile.text.splitlines() == [
        "[image: image/svg+xml, 42 B; not shown to the model: not a PNG, JPEG, GIF or WebP image (image/svg+xml given)]",
        "[image: image/png, 21 B; not shown to the model: not a PNG, JPEG, GIF or WebP image (image/png given)]",
        "[image: image/png, 10 B; not shown to the model: its data is not valid base64]",
        "[image: image/jpeg, 30 B]",
        "[image: image/png, 6.0 MB; not shown to the model: larger than 5 MB]",
    ]
    assert [image.mime_type for image in hostile.images] == ["image/png"]  # the bytes decide, not the label
    flood = await stdio.run("flood", lines=20000)
    assert flood.text.startswith("line 1\nline 2\n") and flood.text.endswith("line 20000\n")
    assert "lines" in flood.text and full_output(flood.text) == (20000, 0o600)


def test_mcp_files_are_pruned_like_shell_output_but_never_a_running_navtui_s(workspace: Path) -> None:
    from navtui.tools.shell.artifacts import prune_artifacts
    from navtui.tools.shell.lifetime import owner_token

    folder = workspace / ".artifacts"
    folder.mkdir()
    marker = f"{process.new_token()}-mcp-test"  # what a connection's marker looks like
    mine = [folder / f"mcp-20260101-120000-{marker}.log", folder / f"mcp-20260101-120000-{marker}-flood-7.txt"]
    dead = [folder / "mcp-20260101-120000-999999999.1-abcd1234-mcp-test.log"]
    for path in [*mine, *dead]:
        path.write_text("x")
    assert marker.startswith(owner_token())
    report = prune_artifacts(folder, max_age_days=0, max_bytes=0)
    assert [path.exists() for path in [*mine, *dead]] == [True, True, False] and report.removed == 1


async def test_a_server_that_crashes_mid_call_is_restarted_once(stdio: Running, traces: Path) -> None:
    first = server_pid(traces)
    with pytest.raises(ToolError) as crashed:
        await stdio.run("crash", message="first")
    assert "stopped during the call to crash" in crashed.value.message
    assert "crashing: first" in crashed.value.message  # the server's stderr tail
    await eventually(lambda: stdio.connection.state == "ready" and server_pid(traces) != first, "the restart")
    assert any("restarting it once" in notice for notice in stdio.notices)
    assert (await stdio.run("echo", text="again")).text == "again"
    with pytest.raises(ToolError, match="already restarted once"):
        await stdio.run("crash", message="second")
    await eventually(lambda: stdio.connection.state == "failed", "the second crash to stop it for good")
    assert "mcp__test__echo" not in stdio.registry
    error = stdio.connection.error or ""
    assert "not restarted" in error and "/mcp reconnect test" in error
    await stdio.manager.reconnect("test")
    assert stdio.connection.state == "ready" and "mcp__test__echo" in stdio.registry


async def test_a_server_killed_while_idle_is_noticed_and_restarted(stdio: Running, traces: Path) -> None:
    first = server_pid(traces)
    os.kill(first, signal.SIGKILL)
    await eventually(lambda: stdio.connection.state == "ready" and server_pid(traces) != first, "the restart")
    assert stdio.connection.restarts_left == 0


async def test_a_cancelled_call_is_cancelled_on_the_server(either: Running, traces: Path) -> None:
    running = either
    call = asyncio.create_task(running.run("slow", seconds=60))
    await eventually(lambda: (traces / "slow-started").exists(), "the call to reach the server")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await eventually(lambda: (traces / "cancelled").exists(), "the server to see the cancellation")
    assert running.connection.state == "ready"


def stderr_logs(workspace: Path) -> list[str]:
    return sorted(path.name for path in (workspace / ".artifacts").glob("mcp-*.log"))


async def test_stopping_leaves_no_server_process_and_no_log(stdio: Running, traces: Path, workspace: Path) -> None:
    pid = server_pid(traces)
    assert not gone(pid) and len(stderr_logs(workspace)) == 1
    await stdio.manager.aclose()
    await eventually(lambda: gone(pid), "the server process to end")
    assert stdio.connection.state == "stopped"
    assert stderr_logs(workspace) == []  # nothing went wrong: its stderr is not kept


async def test_env_expands_from_the_environment_and_a_missing_variable_is_named(
    workspace, traces, user_servers, monkeypatch
) -> None:
    monkeypatch.setenv("MCP_TEST_TOKEN", "s3cr3t-value")
    monkeypatch.setenv("NOT_FOR_SERVERS_KEY", "hidden")
    entry = stdio_entry(traces)
    entry["env"] = {**entry["env"], "TOKEN": "Bearer ${MCP_TEST_TOKEN}", "MODE": "${MCP_TEST_MODE:-plain}"}
    user_servers({"test": entry, "broken": {"command": "x", "env": {"A": "${MCP_TEST_UNSET}"}}})
    running = Running(workspace, "test")
    try:
        await running.manager.start()
        assert (await running.run("environment", name="TOKEN")).text == "Bearer s3cr3t-value"
        assert (await running.run("environment", name="MODE")).text == "plain"
        # Only a few basics of navtui's own environment reach a server (the SDK's default), never keys.
        assert (await running.run("environment", name="NOT_FOR_SERVERS_KEY")).text == "unset"
        broken = running.manager.connections["broken"]
        assert broken.state == "failed" and "${MCP_TEST_UNSET}, which is not set" in (broken.error or "")
    finally:
        await running.manager.aclose()


async def test_a_server_that_cannot_start_fails_with_its_stderr(workspace, user_servers) -> None:
    user_servers({"gone": {"command": "navtui-no-such-server", "args": ["--x"]}})
    running = Running(workspace, "gone")
    await running.manager.start()
    assert running.connection.state == "failed"
    assert "it exited during start-up" in (running.connection.error or "")
    assert (
        running.notices and "navtui: cannot run navtui-no-such-server: No such file or directory" in running.notices[0]
    )
    await running.manager.aclose()
    assert len(stderr_logs(workspace)) == 1  # kept for a look


async def test_a_streamable_http_server_with_headers(web: Running) -> None:
    assert web.connection.state == "ready"
    assert (await web.run("header", name="X-Api-Key")).text == "key-123"
    assert (await web.run("echo", text="over http")).text == "over http"
    failed = await web.run("fail", reason="http")
    assert failed.is_error and failed.text == "Error executing tool fail: refused: http"


async def test_an_http_server_that_dies_mid_call(web: Running) -> None:
    with pytest.raises(ToolError, match="'web'"):
        await web.run("crash")
    # Nothing listens any more: the one reconnect fails and says so.
    await eventually(lambda: web.connection.state == "failed", "the reconnect to fail")
    assert "cannot connect" in (web.connection.error or "") or "exited" in (web.connection.error or "")


def open_paths() -> set[str]:
    """What this process's descriptors point at."""
    paths = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            paths.add(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            continue  # the descriptor listdir itself used, closed by now
    return paths


def test_a_connection_whose_event_loop_ends_without_a_stop_leaves_no_open_log(workspace: Path, traces: Path) -> None:
    # The loop that ran the server ends without the manager's close (a quit that never got to it, a test's loop):
    # its tasks are cancelled, and the server's stderr log is closed with the task that owned the client, not left
    # open for the garbage collector to find later (a ResourceWarning in whatever runs then). The server's exit
    # that follows is not taken for a crash: nothing starts it again (a second log) while the loop closes.
    write_servers(user_config_path(), {"test": stdio_entry(traces)})

    async def start_and_leave() -> Running:
        running = Running(workspace, "test")
        await running.manager.start()
        assert running.connection.state == "ready"
        return running

    asyncio.run(start_and_leave())
    logs = {str(path) for path in (workspace / ".artifacts").glob("mcp-*.log")}
    assert len(logs) == 1 and not logs & open_paths()
    asyncio.run(eventually(lambda: gone(server_pid(traces)), "the server to end with its task"))


async def test_a_server_ending_with_its_cancelled_task_is_not_taken_for_a_crash(stdio: Running, traces: Path) -> None:
    # What an event loop's end does to the task that owns the client (asyncio.run cancels every task): the SDK
    # closes the server's stdin and polls for its exit, and the pid watcher sees the exit first, while that task is
    # still unwinding. That exit is the cancellation's own doing: nothing may start the server again.
    connection = stdio.connection
    task = connection._task
    assert task is not None and connection.state == "ready"
    pid = server_pid(traces)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert gone(pid)
    assert not connection._recovering, "the server's exit during the cancellation was taken for a crash"
    assert not [text for text in stdio.notices if "restart" in text], stdio.notices
