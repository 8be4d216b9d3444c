"""The configuration files: shapes users already have, clear errors, ``${VAR}``, the user file's edits."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from navtui.core.errors import ConfigError
from navtui.mcp.config import (
    ServerConfig,
    add_user_server,
    load_config,
    project_config_path,
    remove_user_server,
    resolve,
    user_config_path,
)
from tests.mcp.conftest import write_servers


def test_claude_code_and_desktop_shapes_load(workspace: Path) -> None:
    write_servers(
        user_config_path(),
        {
            "files": {"command": "npx", "args": ["-y", "@x/fs", "."], "env": {"A": "1"}},
            "search": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X": "y"}},
        },
    )
    write_servers(workspace / ".mcp.json", {"repo": {"type": "stdio", "command": "./tools/server", "cwd": "tools"}})
    config = load_config(workspace)
    assert config.warnings == []
    assert [(s.name, s.source, s.transport, s.target) for s in config.servers] == [
        ("files", "user", "stdio", "npx -y @x/fs ."),
        ("search", "user", "http", "http://127.0.0.1:9/mcp"),
        ("repo", "project", "stdio", "./tools/server"),
    ]


def test_bad_entries_are_named_and_the_rest_still_load(workspace: Path) -> None:
    write_servers(
        user_config_path(),
        {
            "ok": {"command": "srv"},
            "both": {"command": "a", "url": "http://x"},
            "neither": {"args": ["x"]},
            "old": {"type": "sse", "url": "http://x/sse"},
            "bad name!": {"command": "x"},
        },
    )
    config = load_config(workspace)
    assert [s.name for s in config.servers] == ["ok"]
    path = user_config_path()
    assert config.warnings == [
        f"{path}: MCP server 'both': give either command (stdio) or url (streamable HTTP), not both",
        f"{path}: MCP server 'neither': needs a command (stdio) or a url (streamable HTTP)",
        f"{path}: MCP server 'old': the SSE transport is not supported; use the server's streamable HTTP URL "
        "(often /mcp)",
        f"{path}: MCP server name 'bad name!' may only use letters, digits, '_' and '-'; rename it",
    ]


def test_a_broken_file_is_a_warning_not_a_crash(workspace: Path) -> None:
    project_config_path(workspace).write_text('{"mcpServers": {"x": ')
    config = load_config(workspace)
    assert config.servers == []
    assert len(config.warnings) == 1 and "invalid JSON at line 1" in config.warnings[0]
    assert config.warnings[0].startswith(str(project_config_path(workspace)))


def test_a_repository_server_cannot_take_a_name_that_another_servers_globs_match(workspace: Path) -> None:
    """Tools are named mcp__<server>__<tool>: a repository's server 'github__x' (or 'github_') had its tools named
    mcp__github__x__..., which the glob mcp__github__* that you allowed for your github server matched, so they ran
    without asking once the server was approved to start. Such a name is refused in a repository's file; yours may
    keep it."""
    from navtui.mcp.tool import tool_name
    from navtui.tools.approval import listed

    assert listed(tool_name("github__x", "run"), {"mcp__github__*"})  # what the name would have done
    assert listed(tool_name("github_", "run"), {"mcp__github__*"})
    write_servers(user_config_path(), {"mine__too": {"command": "trusted"}})
    write_servers(workspace / ".mcp.json", {"github__x": {"command": "evil"}, "github_": {"command": "evil"},
                                            "git-hub_x": {"command": "fine"}})  # fmt: skip
    config = load_config(workspace)
    assert [s.name for s in config.servers] == ["mine__too", "git-hub_x"]
    path = workspace / ".mcp.json"
    assert config.warnings == [
        f"{path}: MCP server name '{name}' may not hold '__' or end in '_' in a repository's file: its tools "
        f"would be named like another server's (mcp__{name}__...) and match the tools.allow globs you set for "
        "that one; rename it"
        for name in ("github__x", "github_")
    ]


def test_a_repository_cannot_replace_a_user_server(workspace: Path) -> None:
    write_servers(user_config_path(), {"files": {"command": "trusted"}})
    write_servers(workspace / ".mcp.json", {"files": {"command": "evil"}})
    config = load_config(workspace)
    assert [(s.name, s.config.command) for s in config.servers] == [("files", "trusted")]
    assert "already defined" in config.warnings[0]


def test_the_project_file_is_found_at_the_repository_root(workspace: Path) -> None:
    (workspace / ".git").mkdir()
    sub = workspace / "src" / "pkg"
    sub.mkdir(parents=True)
    write_servers(workspace / ".mcp.json", {"repo": {"command": "x"}})
    assert [s.name for s in load_config(sub).servers] == ["repo"]


def test_variables_expand_with_defaults_and_are_redacted(workspace: Path) -> None:
    write_servers(
        user_config_path(),
        {
            "s": {
                "command": "${TOOLS}/srv",
                "args": ["--mode", "${MODE:-fast}"],
                "env": {"TOKEN": "${TOKEN}", "PLAIN": "literal-value"},
                "cwd": "sub",
            }
        },
    )
    spec = load_config(workspace).servers[0]
    resolved = resolve(spec, {"TOOLS": "/opt/t", "TOKEN": "tok-999"}, workspace)
    assert (resolved.command, resolved.args, resolved.cwd) == ("/opt/t/srv", ("--mode", "fast"), workspace / "sub")
    assert dict(resolved.env) == {"TOKEN": "tok-999", "PLAIN": "literal-value"}
    assert resolved.redact("failed with tok-999 and literal-value") == "failed with *** and ***"
    assert spec.target == "${TOOLS}/srv --mode ${MODE:-fast}"  # what is shown is never expanded
    with pytest.raises(ConfigError) as missing:
        resolve(spec, {"TOOLS": "/opt/t"}, workspace)
    assert missing.value.message == "MCP server 's' uses ${TOKEN}, which is not set"
    assert "export TOKEN=" in (missing.value.hint or "")


def test_fingerprint_follows_the_entry(workspace: Path) -> None:
    write_servers(user_config_path(), {"a": {"command": "x"}, "b": {"command": "x", "args": ["--evil"]}})
    a, b = load_config(workspace).servers
    assert a.fingerprint() != b.fingerprint()
    write_servers(user_config_path(), {"a": {"command": "x"}})
    assert load_config(workspace).servers[0].fingerprint() == a.fingerprint()


def test_add_and_remove_keep_the_rest_of_the_user_file() -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"keep": {"command": "k"}}, "note": "mine"}))
    add_user_server("new", ServerConfig(url="http://127.0.0.1:1/mcp", headers={"A": "${B}"}))
    data = json.loads(path.read_text())
    assert data == {
        "mcpServers": {"keep": {"command": "k"}, "new": {"url": "http://127.0.0.1:1/mcp", "headers": {"A": "${B}"}}},
        "note": "mine",
    }
    assert remove_user_server("new") and not remove_user_server("new")
    assert json.loads(path.read_text()) == {"mcpServers": {"keep": {"command": "k"}}, "note": "mine"}


def test_a_new_user_file_is_private() -> None:
    add_user_server("s", ServerConfig(command="x", env={"TOKEN": "abc"}))
    assert stat.S_IMODE(user_config_path().stat().st_mode) == 0o600


def test_a_project_settings_file_cannot_change_which_mcp_tools_are_offered(workspace: Path) -> None:
    from navtui.config.settings import load_settings

    (workspace / ".navtui").mkdir()
    project = {"mcp": {"tools": {"gh": {"deny": []}}, "call_timeout": 5}}
    (workspace / ".navtui" / "settings.json").write_text(json.dumps(project))
    loaded = load_settings(workspace)
    assert loaded.settings.mcp.tools == {} and loaded.settings.mcp.call_timeout == 5
    assert any("'mcp.tools' is ignored in a project file" in warning for warning in loaded.warnings)
