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
    assert (
        lines[1] == "      tools (11): echo, place, fail, slow, crash, picture, flood, environment, header, roots, grow"
    )
    assert lines[2:4] == [
        "      resources: @test:notes://today, @test:notes://logo",
        "      prompts: /mcp__test__review",
    ]
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


def test_add_refuses_to_replace_without_force_and_checks_urls(workspace: Path, monkeypatch) -> None:
    monkeypatch.chdir(workspace)
    assert run("add", "web", "--url", "http://127.0.0.1:9/mcp", cwd=workspace)[0] == 0
    code, _, err = run("add", "web", "--url", "http://127.0.0.1:8/mcp", cwd=workspace)
    assert code == 2 and "MCP server 'web' is already in" in err and "--force" in err
    assert json.loads(user_config_path().read_text())["mcpServers"]["web"]["url"] == "http://127.0.0.1:9/mcp"
    code, out, _ = run("add", "web", "--force", "--url", "http://127.0.0.1:8/mcp", cwd=workspace)
    assert code == 0 and out.startswith("Replaced MCP server 'web'")
    for bad, why in [("127.0.0.1:8000/mcp", "is not an HTTP URL"), ("ftp://h/mcp", "is not an HTTP URL"),
                     ("http:///mcp", "names no host")]:  # fmt: skip
        code, _, err = run("add", "other", "--url", bad, cwd=workspace)
        assert code == 2 and why in err, err
    assert run("add", "env", "--url", "${MCP_URL}", cwd=workspace)[0] == 0  # checked when it starts
    assert "other" not in json.loads(user_config_path().read_text())["mcpServers"]


def test_add_json_and_get(workspace: Path, traces: Path, monkeypatch) -> None:
    monkeypatch.chdir(workspace)
    entry = json.dumps(stdio_entry(traces))
    assert run("add-json", "test", entry, cwd=workspace)[0] == 0
    assert "already in" in run("add-json", "test", entry, cwd=workspace)[2]
    assert "not JSON" in run("add-json", "x", "{command: 1}", cwd=workspace)[2]
    assert "needs a command (stdio) or a url" in run("add-json", "x", '{"args": ["a"]}', cwd=workspace)[2]
    assert "names no host" in run("add-json", "x", '{"url": "https://"}', cwd=workspace)[2]
    code, out, _ = run("get", "test", cwd=workspace)
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"test  (user server, from {user_config_path()})"
    assert json.loads("\n".join(lines[1 : lines.index("}") + 1])) == stdio_entry(traces)
    assert lines[lines.index("}") + 1].startswith("test  user     stdio  ready")
    assert "tools (11): echo, place" in out and "prompts: /mcp__test__review" in out
    code, _, err = run("get", "nope", cwd=workspace)
    assert code == 1 and "no server 'nope' (test)" in err


def test_list_keeps_the_quoting_of_arguments(workspace: Path) -> None:
    write_servers(user_config_path(), {"q": {"command": "my server", "args": ["--name", "two words", "${TOKEN}"]}})
    code, out, _ = run("list", "--no-connect", cwd=workspace)
    assert out.splitlines()[0].endswith("not started     'my server' --name 'two words' ${TOKEN}")


def test_import_from_claude_desktop_and_claude_code(workspace: Path, monkeypatch) -> None:
    monkeypatch.chdir(workspace)
    home = workspace.parent / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    desktop = home / ".config" / "Claude" / "claude_desktop_config.json"
    desktop.parent.mkdir(parents=True)
    desktop.write_text(json.dumps({"mcpServers": {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
        "old": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
        "bad name": {"command": "x"},
    }}))  # fmt: skip
    code, out, err = run("import", "claude-desktop", cwd=workspace)
    assert code == 0 and out == f"Imported files from {desktop} into {user_config_path()}.\n"
    assert "not imported: old: the SSE transport is not supported" in err and "not imported: bad name" in err
    (home / ".claude.json").write_text(json.dumps({
        "mcpServers": {"files": {"type": "stdio", "command": "other", "args": [], "env": {}}},
        "projects": {str(workspace.resolve()): {"mcpServers": {"web": {"type": "http", "url": "http://h:1/mcp"}}},
                     "/elsewhere": {"mcpServers": {"far": {"command": "far"}}}},
    }))  # fmt: skip
    code, out, err = run("import", "claude-code", cwd=workspace)
    assert out == f"Imported web from {home / '.claude.json'} into {user_config_path()}.\n"
    assert "not imported: files: already in" in err and "--force" in err
    servers = json.loads(user_config_path().read_text())["mcpServers"]
    assert servers == {
        "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
        "web": {"type": "http", "url": "http://h:1/mcp"},
    }
    assert run("import", "claude-code", "--force", cwd=workspace)[0] == 0
    assert json.loads(user_config_path().read_text())["mcpServers"]["files"] == {"type": "stdio", "command": "other"}
    code, _, err = run("import", "claude-desktop", "--from-file", str(workspace / "none.json"), cwd=workspace)
    assert code == 2 and "No claude-desktop configuration at" in err
