"""Which servers start: a repository's only after approval (remembered per repository and server);
which tools are offered: ``mcp.tools`` filters and what fits the context window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.config.settings import McpSettings
from navtui.mcp.config import user_config_path
from navtui.mcp.trust import trust_path
from navtui.tools.base import ToolRegistry
from navtui.tools.registry import make_context
from tests.mcp.conftest import eventually, gone, make_manager, server_pid, stdio_entry, write_servers


async def test_a_repository_s_server_waits_for_approval(workspace: Path, traces: Path) -> None:
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces)})
    manager = make_manager(workspace)
    await manager.start()
    assert manager.connections["repo"].state == "unapproved"
    assert not (traces / "pid").exists()  # nothing ran
    notice = manager.skipped_notice() or ""
    assert "'repo'" in notice and "--mcp-trust" in notice and str(user_config_path()) in notice
    assert manager.summary() == "mcp 1 to approve"


async def test_mcp_trust_starts_them_for_one_run(workspace: Path, traces: Path) -> None:
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces)})
    manager = make_manager(workspace, trust_project=True)
    try:
        await manager.start()
        assert manager.connections["repo"].state == "ready"
    finally:
        await manager.aclose()
    assert make_manager(workspace).connections["repo"].state == "unapproved"  # nothing was remembered


async def test_an_approval_is_remembered_for_that_repository_and_entry(workspace: Path, traces: Path) -> None:
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces), "other": stdio_entry(traces)})
    manager = make_manager(workspace)
    try:
        await manager.approve("repo", remember=True)
        assert manager.connections["repo"].state == "ready"
        manager.deny("other", remember=True)
    finally:
        await manager.aclose()
    again = make_manager(workspace)
    assert again.connections["repo"].state == "stopped"  # starts without asking
    assert again.connections["other"].state == "denied"
    stored = json.loads(trust_path().read_text())["projects"][str(workspace)]
    assert stored["repo"]["decision"] == "allow" and stored["other"]["decision"] == "deny"
    # A changed command is a new question.
    write_servers(workspace / ".mcp.json", {"repo": {**stdio_entry(traces), "args": ["evil.py"]}})
    assert make_manager(workspace).connections["repo"].state == "unapproved"
    # Another repository with the same file asks on its own.
    elsewhere = workspace.parent / "elsewhere"
    elsewhere.mkdir()
    write_servers(elsewhere / ".mcp.json", {"other": stdio_entry(traces)})
    assert make_manager(elsewhere).connections["other"].state == "unapproved"


async def test_a_once_approval_is_not_remembered(workspace: Path, traces: Path) -> None:
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces)})
    manager = make_manager(workspace)
    try:
        await manager.approve("repo", remember=False)
        assert manager.connections["repo"].state == "ready"
    finally:
        await manager.aclose()
    assert make_manager(workspace).connections["repo"].state == "unapproved"


async def test_disabled_servers_do_not_start(workspace: Path, traces: Path) -> None:
    write_servers(user_config_path(), {"off": {**stdio_entry(traces), "disabled": True}})
    manager = make_manager(workspace)
    await manager.start()
    assert manager.connections["off"].state == "disabled" and not (traces / "pid").exists()


async def test_mcp_tools_allow_and_deny_per_server(workspace: Path, traces: Path) -> None:
    write_servers(user_config_path(), {"test": stdio_entry(traces)})
    settings = McpSettings.model_validate({"tools": {"test": {"allow": ["e*", "fail"], "deny": ["environment"]}}})
    registry = ToolRegistry()
    manager = make_manager(workspace, settings=settings, registry=registry)
    try:
        await manager.start()
        assert sorted(registry.names()) == ["mcp__test__echo", "mcp__test__fail", "read_mcp_resource"]
        status = manager.status()[0]
        assert status.tools == ("echo", "fail") and status.hidden == 9
    finally:
        await manager.aclose()
    assert registry.names() == []


async def test_tools_that_do_not_fit_a_small_window_are_left_out(workspace: Path, traces: Path) -> None:
    write_servers(user_config_path(), {"test": stdio_entry(traces)})
    registry = ToolRegistry()
    manager = make_manager(workspace, registry=registry)
    try:
        await manager.start()
        tokens = manager.tool_tokens()["test"]
        assert 300 < tokens < 2000
        assert manager.fit_window(tokens * 10) is None
        warning = manager.fit_window(tokens * 3) or ""
        assert warning.startswith(f"MCP tool schemas take ~{tokens} of the {tokens * 3}-token window (test ~{tokens})")
        assert "mcp.tools.<server>.allow / deny" in warning and len(registry.names()) == 12  # 11 + read_mcp_resource
        dropped = manager.fit_window(tokens) or ""
        assert "the tools of test are left out of requests" in dropped and "mcp.tools.<server>.allow" in dropped
        assert "finds and loads them with mcp_tool_search" in dropped
        assert sorted(registry.names()) == ["mcp_tool_search", "read_mcp_resource"] and manager.status()[0].withheld
        # Deferred loading: the model searches, the matches are offered under their own names (approved as usual).
        search = registry.get("mcp_tool_search")
        assert search is not None and "(test)" in search.description
        ctx = make_context(workspace, None, workspace / ".artifacts")
        found = await search.run(search.parse_args({"query": "repeat the text"}), ctx)
        assert found.text.startswith("Loaded; call them by name:\n\nmcp__test__echo: Repeat the text.")
        assert '"text": {"type": "string"}' in found.text
        assert "mcp__test__echo" in registry and "mcp__test__crash" not in registry
        echo = registry.get("mcp__test__echo")
        assert echo is not None and (await echo.run(echo.parse_args({"text": "hi"}), ctx)).text == "hi"
        missing = await search.run(search.parse_args({"query": "zebra"}), ctx)
        assert missing.text.startswith("No MCP tool matches 'zebra'. Tools to search: mcp__test__place")
        await manager.reconnect("test")  # trimmed or not, a reconnect offers them again
        assert len(registry.names()) == 12 and "mcp_tool_search" not in registry
    finally:
        await manager.aclose()


def test_the_status_line_summary_stays_short(workspace: Path, traces: Path) -> None:
    write_servers(user_config_path(), {"a": stdio_entry(traces), "b": stdio_entry(traces)})
    manager = make_manager(workspace)
    assert manager.summary() is None  # nothing needs attention
    manager.connections["a"].state = "starting"
    assert manager.summary() == "mcp starting: a"
    manager.connections["b"].state = "starting"
    assert manager.summary() == "mcp starting: 2 servers"
    manager.connections["a"].state = manager.connections["b"].state = "failed"
    assert manager.summary() == "mcp 2 failed"


async def test_a_slow_server_neither_holds_a_request_nor_the_exit(
    workspace: Path, traces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from navtui.mcp import manager as manager_module

    monkeypatch.setattr(manager_module, "REQUEST_WAIT", 0.2)
    entry = stdio_entry(traces)
    entry["env"] = {**entry["env"], "MCP_TEST_SLOW_START": "120"}
    write_servers(user_config_path(), {"slow": entry})
    manager = make_manager(workspace)
    notices = await manager.before_request(32768)  # returns after REQUEST_WAIT; the server keeps starting
    assert [text.split(";")[0] for text, _ in notices] == ["MCP server 'slow' is still starting after 0.2 s"]
    assert manager.connections["slow"].state == "starting"
    await eventually(lambda: (traces / "pid").exists(), "the server process")
    pid = server_pid(traces)
    await manager.aclose()  # cancels the start: the process ends without the graceful wait
    assert manager.connections["slow"].state == "stopped"
    await eventually(lambda: gone(pid), "the slow server to be stopped")
