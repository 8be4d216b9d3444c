"""``navtui --print`` with MCP servers, as a real subprocess: tools offered, approval without a prompt,
a repository's servers skipped unless trusted, no configured secret in the session, no process left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from navtui.config.paths import sessions_dir, user_settings_path
from navtui.tools.shell.lifetime import sweep_leftovers
from tests.fakes import Text, ToolCall
from tests.mcp.conftest import eventually, gone, server_pid, stdio_entry, write_servers
from tests.mcp.test_servers import pytestmark  # noqa: F401  (Linux process handling)
from tests.test_cli import MODEL, headless


def settings(**values: object) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text(json.dumps(values))


def tool_names(request: object) -> list[str]:
    return [tool["function"]["name"] for tool in request.json.get("tools", [])]  # type: ignore[attr-defined]


def test_an_allowed_mcp_tool_runs_and_secrets_stay_out_of_the_session(
    fake_server, workspace: Path, traces: Path, monkeypatch
) -> None:
    monkeypatch.setenv("MCP_TEST_SECRET", "hunter2-very-secret")
    entry = stdio_entry(traces)
    entry["env"] = {**entry["env"], "API_TOKEN": "${MCP_TEST_SECRET}"}
    write_servers(user_settings_path().parent / "mcp.json", {"test": entry})
    settings(tools={"allow": ["mcp__test__*"]})
    fake_server.script(ToolCall("mcp__test__echo", {"text": "ab", "times": 2}))
    fake_server.script(Text("The server said abab."))
    result = headless(fake_server, "--print", "use the echo tool", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The server said abab.\n"
    first, second = fake_server.chat_requests
    assert {"mcp__test__echo", "mcp__test__place", "read", "shell"} <= set(tool_names(first)), result.stderr
    echo = next(t["function"] for t in first.json["tools"] if t["function"]["name"] == "mcp__test__echo")
    assert echo["description"] == "Repeat the text."
    assert echo["parameters"]["required"] == ["text"]
    assert second.json["messages"][-1] == {
        "role": "tool",
        "content": "abab",
        "tool_name": "mcp__test__echo",
        "tool_call_id": second.json["messages"][-1]["tool_call_id"],
    }
    session_text = "".join(path.read_text() for path in sessions_dir().rglob("*.jsonl"))
    assert "mcp__test__echo" in session_text and "abab" in session_text
    assert "hunter2-very-secret" not in session_text
    assert gone(server_pid(traces))  # navtui stopped it on the way out


def test_ask_mode_refuses_an_mcp_tool_with_the_usual_guidance(fake_server, workspace: Path, traces: Path) -> None:
    write_servers(user_settings_path().parent / "mcp.json", {"test": stdio_entry(traces)})
    fake_server.script(ToolCall("mcp__test__echo", {"text": "x"}))
    fake_server.script(Text("It was refused."))
    result = headless(fake_server, "--print", "use the echo tool", cwd=workspace)
    assert result.returncode == 0, result.stderr
    refusal = fake_server.chat_requests[1].json["messages"][-1]["content"]
    assert refusal.startswith("Not run: mcp__test__echo needs approval (calls echo on the MCP server 'test'")
    assert "re-run with --approval yolo, or add 'mcp__test__echo' (or 'mcp__test__*') to tools.allow" in refusal


def test_a_repository_s_servers_are_skipped_headless_unless_trusted(fake_server, workspace: Path, traces: Path) -> None:
    write_servers(workspace / ".mcp.json", {"repo": stdio_entry(traces)})
    fake_server.script(Text("ok"))
    skipped = headless(fake_server, "--print", "hi", cwd=workspace)
    assert skipped.returncode == 0, skipped.stderr
    assert "[warning] MCP server 'repo' from" in skipped.stderr and "--mcp-trust" in skipped.stderr
    assert not any(name.startswith("mcp__") for name in tool_names(fake_server.chat_requests[0]))
    assert not (traces / "pid").exists()
    fake_server.script(Text("ok"))
    trusted = headless(fake_server, "--print", "hi", "--mcp-trust", cwd=workspace)
    assert trusted.returncode == 0, trusted.stderr
    assert "mcp__repo__echo" in tool_names(fake_server.chat_requests[1])


def test_killing_navtui_with_sigkill_leaves_no_server_process(fake_server, workspace: Path, traces: Path) -> None:
    entry = stdio_entry(traces)
    entry["env"] = {**entry["env"], "MCP_TEST_CHILD": "1"}
    write_servers(user_settings_path().parent / "mcp.json", {"test": entry})
    fake_server.script(ToolCall("mcp__test__slow", {"seconds": 120}))
    navtui = subprocess.Popen(
        [sys.executable, "-m", "navtui", "-p", "ollama", "-b", fake_server.url, "-m", MODEL]
        + ["--approval", "yolo", "--print", "wait"],
        cwd=workspace,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        import asyncio

        asyncio.run(eventually(lambda: (traces / "slow-started").exists(), "the call to reach the server", 60))
        server, child = server_pid(traces), int((traces / "child").read_text())
        navtui.send_signal(signal.SIGKILL)
        navtui.wait(10)
        asyncio.run(eventually(lambda: gone(server), "the server to die with navtui"))
        # The server's own helper gets no death signal; it carries navtui's marker, and the next start sweeps it.
        sweep_leftovers()
        asyncio.run(eventually(lambda: gone(child), "the sweep to stop the server's helper"))
    finally:
        navtui.kill()
        navtui.wait(10)


def test_a_tool_whose_schema_a_provider_refuses_is_left_out_and_named(
    fake_server, workspace: Path, traces: Path
) -> None:
    """One tool with a broken input schema (``properties`` a list, ``required`` a string, an unknown type) made
    Ollama refuse every request of the session; now it is left out with a warning and the rest works."""
    entry = stdio_entry(traces)
    entry["env"] = {**entry["env"], "MCP_TEST_BAD_SCHEMAS": "1"}
    write_servers(user_settings_path().parent / "mcp.json", {"test": entry})
    settings(tools={"allow": ["mcp__test__*"]})
    fake_server.script(ToolCall("mcp__test__echo", {"text": "ab"}))
    fake_server.script(Text("The server said ab."))
    result = headless(fake_server, "--print", "use the echo tool", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "The server said ab.\n"
    offered = set(tool_names(fake_server.chat_requests[0]))
    assert "mcp__test__echo" in offered and not {name for name in offered if "broken" in name}
    for name, why in (
        ("broken_properties", "['text'] is not of type 'object' at $.properties"),
        ("broken_required", "'text' is not of type 'array' at $.required"),
        ("broken_type", "at $.properties.text.type"),
    ):
        assert f"MCP tool '{name}' of 'test' is not offered to the model: its input schema is invalid" in result.stderr
        assert why in result.stderr
    assert result.stderr.count("broken_required") == 1  # said once
