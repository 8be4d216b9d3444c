"""``navtui mcp list|add|remove``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from navtui.mcp.cli import mcp_main
from navtui.mcp.config import user_config_path
from navtui.tools.approval import ApprovalPolicy, ApprovalRequest, DenyingApprover
from tests.mcp.conftest import SERVER, stdio_entry, write_servers


def run(*argv: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = mcp_main(list(argv), cwd=cwd, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_add_list_and_remove(workspace: Path, traces: Path, monkeypatch) -> None:
    monkeypatch.chdir(workspace)
    code, out, _ = run(
        "add", "test", "--env", f"MCP_TEST_DIR={traces}", "--", sys.executable, str(SERVER), cwd=workspace
    )
    assert code == 0 and out.startswith(f"Added MCP server 'test' in {user_config_path()}")
    code, _, _ = run(
        "add", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "Authorization: Bearer ${T}", cwd=workspace
    )
    assert code == 0
    assert json.loads(user_config_path().read_text())["mcpServers"] == {
        "test": {"command": sys.executable, "args": [str(SERVER)], "env": {"MCP_TEST_DIR": str(traces)}},
        "web": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${T}"}},
    }
    code, out, _ = run("list", cwd=workspace)
    assert code == 1  # one server failed
    lines = out.splitlines()
    assert lines[0] == f"test  user     stdio  ready           {sys.executable} {SERVER}"
    assert lines[1] == "      tools: echo, place, fail, slow, crash, picture, flood, environment, header, roots, grow"
    assert lines[2:4] == ["      resources: @test:notes://today, @test:notes://logo", "      prompts: /mcp__test__review"]
    assert lines[4] == "web   user     http   failed          http://127.0.0.1:9/mcp"
    assert "${T}, which is not set" in lines[5]
    code, out, _ = run("list", "--no-connect", cwd=workspace)
    assert "not started" in out.splitlines()[0] and not (traces / "cancelled").exists()
    assert run("remove", "web", cwd=workspace)[0] == 0
    code, _, err = run("remove", "web", cwd=workspace)
    assert code == 1 and "no server 'web'" in err


def test_add_refuses_bad_input_and_keeps_the_file(workspace: Path) -> None:
    write_servers(user_config_path(), {"keep": {"command": "k"}})
    before = user_config_path().read_text()
    assert run("add", "x", cwd=workspace)[2].startswith("navtui mcp add: needs a command")
    assert "not both" in run("add", "x", "--url", "http://h/mcp", "--", "cmd", cwd=workspace)[2]
    assert "--env expects NAME=VALUE" in run("add", "x", "--env", "oops", "--", "cmd", cwd=workspace)[2]
    assert "not a valid MCP server name" in run("add", "a b", "--", "cmd", cwd=workspace)[2]
    assert user_config_path().read_text() == before


def test_list_without_servers_says_how_to_add_one(workspace: Path) -> None:
    code, out, _ = run("list", cwd=workspace)
    assert code == 0 and "navtui mcp add NAME -- COMMAND" in out


def test_list_shows_a_repository_server_waiting_for_approval(workspace: Path, traces: Path) -> None:
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces)})
    code, out, _ = run("list", cwd=workspace)
    assert code == 0 and "needs approval" in out.splitlines()[0] and "--mcp-trust" in out
    assert not (traces / "pid").exists()


async def test_mcp_tools_follow_the_approval_modes_and_globs() -> None:
    tool = "mcp__github__create_issue"
    assert ApprovalPolicy(mode="ask").decide(tool, "exec").verdict == "ask"
    assert ApprovalPolicy(mode="write").decide(tool, "exec").verdict == "ask"
    assert ApprovalPolicy(mode="yolo").decide(tool, "exec").verdict == "allow"
    assert ApprovalPolicy(mode="ask", allow={"mcp__github__*"}).decide(tool, "exec").verdict == "allow"
    assert ApprovalPolicy(mode="ask", allow={tool}).decide(tool, "exec").verdict == "allow"
    assert ApprovalPolicy(mode="ask", allow={"mcp__gitlab__*"}).decide(tool, "exec").verdict == "ask"
    assert ApprovalPolicy(mode="yolo", deny={"mcp__github__create_*"}).decide(tool, "exec").verdict == "deny"
    refusal = await DenyingApprover().request(ApprovalRequest(tool=tool, tier="exec", summary="", reason="x"))
    assert "add 'mcp__github__create_issue' (or 'mcp__github__*') to tools.allow" in (refusal.reason or "")
