"""Beyond tools, against the SDK's real server: resources (listed, read by the model, attached with
``@server:uri``), prompts as slash commands, the workspace declared as roots, and lists that change."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from navtui.core.errors import NavtuiError, ToolError
from navtui.mcp.config import user_config_path
from navtui.mcp.report import status_lines
from navtui.mcp.resources import READ_TOOL, attach_resources
from navtui.tools.base import ToolResult
from tests.mcp.conftest import eventually, stdio_entry, write_servers
from tests.mcp.test_servers import Running, pytestmark, started  # noqa: F401  (Linux process handling)


async def read(running: Running, **arguments: object) -> ToolResult:
    tool = running.registry.get(READ_TOOL)
    assert tool is not None, running.registry.names()
    return await tool.run(tool.parse_args(arguments), running.ctx)


@pytest.fixture
async def stdio(request: pytest.FixtureRequest, workspace: Path, traces: Path) -> AsyncIterator[Running]:
    running = await started(request, "stdio", workspace, traces)
    yield running
    await running.manager.aclose()


async def test_resources_are_listed_read_by_the_model_and_attached_with_at(stdio: Running) -> None:
    lines = status_lines(stdio.manager)
    assert "      resources: @test:notes://today, @test:notes://logo" in lines
    assert "      prompts: /mcp__test__review" in lines
    today = await read(stdio, server="test", uri="notes://today")
    assert (today.text, today.is_error) == ("buy milk\ncall Ann", False)
    logo = await read(stdio, server="test", uri="notes://logo")
    assert logo.text == "[image notes://logo: image/png, 30 B]" and [i.mime_type for i in logo.images] == ["image/png"]
    with pytest.raises(ToolError, match="could not read notes://nothing"):
        await read(stdio, server="test", uri="notes://nothing")
    with pytest.raises(ToolError, match="No MCP server 'other'. Servers with resources: test"):
        await read(stdio, server="other", uri="notes://today")

    attached = await attach_resources("Plan with @test:notes://today, and mail me@example.org", stdio.manager)
    assert attached.attached == ["test:notes://today"] and attached.problems == []
    assert attached.text == (
        "Plan with @test:notes://today, and mail me@example.org\n\n"
        '<mcp_resource server="test" uri="notes://today">\nbuy milk\ncall Ann\n</mcp_resource>\n'
    )
    missing = await attach_resources("see @test:notes://nothing", stdio.manager)
    assert missing.text == "see @test:notes://nothing" and "not attached" in missing.problems[0]
    assert stdio.manager.resource_names()[0] == ("test:notes://today", "Today's notes")


async def test_prompts_are_slash_commands_with_their_arguments_in_order(stdio: Running) -> None:
    (review,) = stdio.manager.prompt_commands()
    assert (review.name, review.args) == ("mcp__test__review", "FILE [FOCUS]")
    assert review.help == "MCP prompt of test: Review a file for one kind of problem."
    assert await stdio.manager.expand_prompt(review, "app.py") == "Review app.py, looking for bugs."
    expanded = await stdio.manager.expand_prompt(review, "'my app.py' error handling")
    assert expanded == "Review my app.py, looking for error handling."
    with pytest.raises(NavtuiError, match="needs file") as missing:
        await stdio.manager.expand_prompt(review, "")
    assert missing.value.hint == "usage: /mcp__test__review FILE [FOCUS]"


async def test_a_prompt_argument_naming_a_file_with_a_space_keeps_its_quotes(stdio: Running) -> None:
    # Shell-style splitting took the quotes off @"my app.py": the server wrote @my app.py into the prompt, which
    # attached no file (and the "@my" left was made inert as a mention the user did not write).
    from navtui.agent.attachments import attached_paths, inert_mentions

    (review,) = stdio.manager.prompt_commands()
    args = '@"my app.py" @"style guide.md" and naming'
    expanded = await stdio.manager.expand_prompt(review, args)
    assert expanded == 'Review @"my app.py", looking for @"style guide.md" and naming.'
    sent = inert_mentions(expanded, keep=args)
    assert sent == expanded and attached_paths(sent) == ["my app.py", "style guide.md"]
    plain = await stdio.manager.expand_prompt(review, "'my app.py' error handling")  # no @: as it was
    assert plain == "Review my app.py, looking for error handling."


@pytest.mark.parametrize("protocol", ["2026", "2025"])
async def test_the_workspace_is_declared_as_the_root(protocol: str, workspace: Path, traces: Path) -> None:
    entry = stdio_entry(traces)
    if protocol == "2025":
        entry["env"] = {**entry["env"], "MCP_TEST_LEGACY": "1"}
    write_servers(user_config_path(), {"test": entry})
    running = Running(workspace, "test")
    root = workspace.resolve()  # noqa: ASYNC240 - a test's set-up
    try:
        await running.manager.start()
        assert (await running.run("roots")).text == f"{root.as_uri()} {workspace.name}"
    finally:
        await running.manager.aclose()


@pytest.mark.parametrize("protocol", ["2026", "2025"])
async def test_a_flood_of_change_notices_fetches_the_list_a_few_times(
    protocol: str, workspace: Path, traces: Path
) -> None:
    """A server may send "the tools changed" thousands of times: each started a fetch of the list at once (and
    registered the tools again); now one runs, and one more after it for whatever came meanwhile."""
    entry = stdio_entry(traces)
    if protocol == "2025":
        entry["env"] = {**entry["env"], "MCP_TEST_LEGACY": "1"}
    write_servers(user_config_path(), {"test": entry})
    running = Running(workspace, "test")
    lists = traces / "tool-lists"
    try:
        await running.manager.start()
        assert (await running.run("grow", again=300)).text == "grown"
        await eventually(lambda: "mcp__test__added" in running.registry, "the new tool to be offered")
        assert (await running.run("echo", text="after")).text == "after"
        assert 2 <= len(lists.read_text()) <= 20  # the first list, one per RELIST_GAP while the notices come (300: 302)
    finally:
        await running.manager.aclose()


@pytest.mark.parametrize("transport", ["stdio", "stdio-2025", "http-2025"])
async def test_changed_lists_are_followed_without_a_restart(
    transport: str, workspace: Path, traces: Path, http_servers
) -> None:
    if transport == "http-2025":
        entry: dict[str, object] = {"url": http_servers(MCP_TEST_LEGACY="1").url}
    else:
        entry = stdio_entry(traces)
        if transport == "stdio-2025":
            entry["env"] = {**entry["env"], "MCP_TEST_LEGACY": "1"}
    write_servers(user_config_path(), {"test": entry})
    running = Running(workspace, "test")
    try:
        await running.manager.start()
        assert "mcp__test__added" not in running.registry
        assert (await running.run("grow")).text == "grown"
        await eventually(lambda: "mcp__test__added" in running.registry, "the new tool to be offered")
        await eventually(
            lambda: [c.name for c in running.manager.prompt_commands()] == ["mcp__test__review", "mcp__test__recap"],
            "the new prompt",
        )
        await eventually(lambda: "test:notes://later" in dict(running.manager.resource_names()), "the new resource")
        assert (await running.run("added", text="x")).text == "added: x"
        assert running.connection.restarts_left == 1
    finally:
        await running.manager.aclose()


async def test_a_huge_prompt_is_cut_like_a_resource_with_a_notice(workspace: Path, traces: Path) -> None:
    """A server's prompt of 1,000,000 characters in 20,000 messages was sent whole as the user's message (a
    hostile one can send 200 MB); now the first 100,000 characters go, and a notice says what was cut."""
    from navtui.mcp.prompts import PROMPT_LIMIT

    write_servers(
        user_config_path(),
        {"test": stdio_entry(traces, env={"MCP_TEST_DIR": str(traces), "MCP_TEST_HUGE_PROMPT": "1000000,20000"})},
    )
    running = Running(workspace, "test")
    try:
        await running.manager.start()
        (huge,) = [command for command in running.manager.prompt_commands() if command.prompt.name == "huge"]
        text = await running.manager.expand_prompt(huge, "")
        marker = "\n\n[... the prompt was cut at 100,000 characters of 1,039,998 (20,000 messages) ...]"
        assert text.endswith(marker) and len(text) == PROMPT_LIMIT + len(marker)
        assert text.startswith("0000000xxx") and "\n\n0000001xxx" in text and "0019999" not in text
        assert running.notices == [
            "The prompt /mcp__test__huge from 'test' is 1,039,998 characters in 20,000 messages: only the first "
            "100,000 characters are sent"
        ]
    finally:
        await running.manager.aclose()
