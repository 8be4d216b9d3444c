"""code_search and symbols as tools: through run(args, ctx), and as tool calls of an agent on the fake server."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.agent.loop import Agent
from navtui.core.errors import ToolError
from navtui.index import build_index
from navtui.providers.ollama import OllamaProvider
from navtui.tools.approval import ApprovalPolicy
from navtui.tools.base import ToolContext, ToolRegistry
from navtui.tools.files.code_search import CodeSearchArgs, CodeSearchTool, SymbolsArgs, SymbolsTool
from navtui.tools.files.filestate import FileStateTracker
from navtui.tools.files.workspace import Workspace
from navtui.tools.shell.jobs import JobRegistry
from tests.fakes import FakeServer, Text, ToolCall


def make_ctx(cwd: Path) -> ToolContext:
    return ToolContext(
        workspace=Workspace(cwd),
        file_state=FileStateTracker(),
        jobs=JobRegistry(),
        artifacts_dir=cwd / ".artifacts",
    )


async def test_code_search_returns_numbered_chunks_with_spans(repo: Path) -> None:
    build_index(repo)
    result = await CodeSearchTool().run(CodeSearchArgs(query="parse args", limit=2), make_ctx(repo))
    assert not result.is_error
    lines = result.text.split("\n")
    assert lines[0] == "1 result for 'parse args':"
    assert lines[1] == "src/cli.ts:3-10  parseArgs"
    assert lines[2] == " 3│ /** Turns argv into options. */"
    assert lines[3] == " 4│ export function parseArgs(argv: string[]): Options {"
    assert result.details is not None
    assert result.details["hits"][0] == {
        "path": "src/cli.ts",
        "start_line": 3,
        "end_line": 10,
        "score": result.details["hits"][0]["score"],
        "symbol": "parseArgs",
    }


async def test_code_search_from_a_subdirectory_gives_paths_relative_to_it(repo: Path) -> None:
    build_index(repo)
    result = await CodeSearchTool().run(CodeSearchArgs(query="NewServer"), make_ctx(repo / "src"))
    assert "\n../pkg/server.go:11-13  NewServer\n" in result.text


async def test_code_search_flags_files_changed_since_indexing(repo: Path) -> None:
    build_index(repo)
    (repo / "src/cli.ts").write_text("// rewritten\n" + (repo / "src/cli.ts").read_text())
    result = await CodeSearchTool().run(CodeSearchArgs(query="parseArgs", limit=1), make_ctx(repo))
    assert "file changed since indexing" in result.text.split("\n")[1]


async def test_code_search_with_no_match_says_what_to_try(repo: Path) -> None:
    build_index(repo)
    result = await CodeSearchTool().run(CodeSearchArgs(query="zebra"), make_ctx(repo))
    assert not result.is_error and "No indexed code matches 'zebra'" in result.text


async def test_symbols_lists_definitions_with_kind_and_span(repo: Path) -> None:
    build_index(repo)
    result = await SymbolsTool().run(SymbolsArgs(name="server"), make_ctx(repo))
    assert result.text.split("\n")[:3] == [
        "Server  struct  pkg/server.go:3-5",
        "NewServer  function  pkg/server.go:11-13",
        "HttpServer  class  src/cli.ts:12-22",
    ]
    method = await SymbolsTool().run(SymbolsArgs(name="start", kind="method"), make_ctx(repo))
    assert method.text == "Server.Start  method  pkg/server.go:7-9"
    assert method.details == {
        "symbols": [
            {
                "name": "Start",
                "kind": "method",
                "path": "pkg/server.go",
                "start_line": 7,
                "end_line": 9,
                "parent": "Server",
            }
        ]
    }


async def test_a_missing_index_is_a_tool_error_that_says_to_run_navtui_index(repo: Path) -> None:
    for tool, args in ((CodeSearchTool(), CodeSearchArgs(query="x")), (SymbolsTool(), SymbolsArgs(name="x"))):
        with pytest.raises(ToolError) as caught:
            await tool.run(args, make_ctx(repo))  # type: ignore[arg-type]
        assert "No repository index" in str(caught.value) and "navtui index" in str(caught.value)


async def test_a_damaged_index_is_a_tool_error_too(repo: Path) -> None:
    build_index(repo)
    (repo / ".navtui/index.sqlite").write_bytes(b"garbage" * 1000)
    with pytest.raises(ToolError, match="cannot be read"):
        await CodeSearchTool().run(CodeSearchArgs(query="x"), make_ctx(repo))


def test_tools_are_read_tier_with_schemas_from_their_arguments() -> None:
    search, symbols = CodeSearchTool().spec(), SymbolsTool().spec()
    assert CodeSearchTool.tier == SymbolsTool.tier == "read"
    assert search.parameters["required"] == ["query"] and search.parameters["properties"]["limit"]["maximum"] == 30
    assert symbols.parameters["required"] == ["name"]
    with pytest.raises(ToolError, match="limit"):
        CodeSearchTool().parse_args({"query": "x", "limit": 0})


async def test_tools_round_trip_as_tool_calls_against_the_fake_server(repo: Path, fake_server: FakeServer) -> None:
    build_index(repo)
    fake_server.script(ToolCall("code_search", {"query": "checksum bytes", "limit": 1}, id="c1"))
    fake_server.script(ToolCall("symbols", {"name": "UserService", "kind": "class"}, id="c2"))
    fake_server.script(Text("Found them."))
    provider = OllamaProvider("qwen2.5-coder:7b", base_url=fake_server.url)
    agent = Agent(
        provider,
        ToolRegistry([CodeSearchTool(), SymbolsTool()]),
        make_ctx(repo),
        system_prompt="system",
        policy=ApprovalPolicy(mode="ask"),  # read tier: no approval needed even when asking
    )
    try:
        [event async for event in agent.run("where is the checksum computed?")]
    finally:
        await provider.aclose()
    requests = fake_server.chat_requests
    assert len(requests) == 3
    assert {tool["function"]["name"] for tool in requests[0].json["tools"]} == {"code_search", "symbols"}
    tool_messages = [m for m in requests[2].json["messages"] if m["role"] == "tool"]
    assert [m.get("tool_name") for m in tool_messages] == ["code_search", "symbols"]
    assert "crates/core/src/lib.rs:11-13  checksum_bytes" in tool_messages[0]["content"]
    assert "pub fn checksum_bytes(data: &[u8]) -> u32 {" in tool_messages[0]["content"]
    assert tool_messages[1]["content"] == "UserService  class  java/UserService.java:3-13"
