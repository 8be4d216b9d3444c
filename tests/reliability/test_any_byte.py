"""Any byte, anywhere, never crashes a run or a session (docs/trust.md section 8).

Arbitrary bytes (invalid UTF-8, C0/C1, NUL, huge lines) as file names and file contents, and arbitrary text with
lone surrogates as a server or an MCP server may send it, go through every tool that shows them (read, ls, find,
grep, shell, an MCP result), the token estimate, the request a provider sends, the session file and its resume,
``--json``'s line, both exports and the terminal's text; then once through the whole app on the fake server and
its resumed session.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp.types import CallToolResult, TextContent

from navtui.agent.budget import estimate_message_tokens
from navtui.core.display import display_safe
from navtui.core.errors import ToolError
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.core.text import for_wire, json_text
from navtui.mcp.tool import to_tool_result
from navtui.providers.ollama_convert import to_ollama_messages
from navtui.session.export import render_html, render_markdown
from navtui.session.manager import SessionManager
from navtui.tools.base import ToolResult
from navtui.tools.registry import default_tools, make_context
from tests.app.conftest import foreign_controls, main_screen, settle, terminal_output, transcript
from tests.fakes import Text
from tests.fakes import ToolCall as ScriptedCall

_NAME = st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b".."))
_CONTENT = st.one_of(st.binary(max_size=3000), st.binary(min_size=1, max_size=8).map(lambda b: b * 20_000))
_SERVER_TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=300)  # lone surrogates too
_RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")

TOOLS = default_tools()


def _run_tools(root: Path, server_text: str) -> list[ToolResult]:
    ctx = make_context(root, None, root.parent / "artifacts")

    async def run(tool: str, **raw: Any) -> ToolResult:
        implementation = TOOLS.get(tool)
        assert implementation is not None
        try:
            return await implementation.run(implementation.parse_args(raw), ctx)
        except ToolError as exc:  # an expected failure: the agent hands it to the model, as here
            return ToolResult(str(exc), is_error=True)

    async def all_of_them() -> list[ToolResult]:
        try:
            return [
                await run("read", path="data.bin"),
                await run("ls", path="."),
                await run("find", pattern="*"),
                await run("grep", pattern="."),
                await run("shell", command="cat -- *; printf '\\x9b\\xff\\x00'"),
                to_tool_result(
                    CallToolResult(content=[TextContent(type="text", text=server_text)]), ctx, label="mcp__s__t"
                ),
            ]
        finally:
            await ctx.jobs.kill_all()

    return asyncio.run(all_of_them())


def _through_everything(root: Path, results: list[ToolResult], server_text: str) -> None:
    sessions = root.parent / "sessions"
    session = SessionManager.create(root, root=sessions)
    session.append_message(UserMessage(content=f"go {server_text}"))
    calls = [ToolCall(id=f"c{i}", name="read", arguments={"path": server_text}) for i in range(len(results))]
    session.append_message(
        AssistantMessage(content=[TextBlock(text=server_text), *calls], provider="ollama", model="m")
    )
    messages: list[Any] = []
    for call, result in zip(calls, results, strict=True):
        message = ToolResultMessage(
            tool_call_id=call.id, tool_name="read", content=[TextBlock(text=result.text)], is_error=result.is_error
        )
        session.append_message(message)
        messages.append(message)
    session.close()
    resumed = SessionManager.open(session.path).build_context().messages
    assert [m.text for m in resumed[2:]] == [r.text for r in results]  # every byte comes back as it went in
    assert resumed[1].content[0].text == server_text
    for message in resumed:
        assert estimate_message_tokens(message) > 0
    body = for_wire({"messages": to_ollama_messages(server_text, resumed)})
    json.dumps(body, ensure_ascii=False).encode("utf-8")  # what a provider sends: encodable
    for result in results:
        line = json_text({"type": "tool_call_finished", "text": result.text})
        assert json.loads(line.encode("utf-8"))["text"] == result.text  # --json: valid UTF-8, same text
        assert _RAW_CONTROL.search(display_safe(result.text)) is None  # what a terminal gets
    opened = SessionManager.open(session.path)
    for page in (render_markdown(opened), render_html(opened)):
        page.encode("utf-8")
        assert _RAW_CONTROL.search(page.replace("\r\n", "\n")) is None


# No shrinking: a failure is reported as found (shrinking one took minutes on a loaded box).
@settings(
    max_examples=25,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(name=_NAME, content=_CONTENT, server_text=_SERVER_TEXT)
def test_any_bytes_through_every_tool_the_session_and_the_exports(
    name: bytes, content: bytes, server_text: str
) -> None:
    with tempfile.TemporaryDirectory() as base:
        root = Path(base) / "ws"
        root.mkdir()
        (root / os.fsdecode(name)).write_bytes(content)
        (root / "data.bin").write_bytes(content)
        results = _run_tools(root, server_text)
        _through_everything(root, results, server_text)


HOSTILE_NAME = b"raw\x9bname\xff\xfe\x1b]0;T\x07.txt"
ALL_BYTES = bytes(range(256)) + b"\n" + b"x" * 50_000 + b"\xc3\n"


async def test_the_app_and_a_resumed_session_survive_any_byte(make_app, fake_server, workspace: Path) -> None:
    (workspace / os.fsdecode(HOSTILE_NAME)).write_bytes(ALL_BYTES)
    fake_server.script(ScriptedCall("ls", {"path": "."}))
    fake_server.script(ScriptedCall("read", {"path": os.fsdecode(HOSTILE_NAME)}))
    fake_server.script(ScriptedCall("shell", {"command": "cat -- raw*"}))
    fake_server.script(Text("lone \ud800 surrogate \udc9b and C1 \x9b end"))
    app = make_app(ephemeral=False)
    async with app.run_test(size=(120, 40)) as pilot:
        main_screen(app).submit("look")
        await settle(app, pilot)
        output = terminal_output(app)
        output.encode("utf-8")
        assert foreign_controls(output) == []
        assert "surrogate \\x9b and C1 \\x9b end" in output.replace("\n", "")
        session_path = app.runtime.session.path
    resumed = make_app(ephemeral=False, continue_session=True)
    async with resumed.run_test(size=(120, 40)) as pilot:
        await settle(resumed, pilot)
        assert resumed.runtime.session.path == session_path
        output = terminal_output(resumed)
        output.encode("utf-8")
        assert foreign_controls(output) == [] and transcript(resumed).children
    opened = SessionManager.open(session_path)
    for page in (render_markdown(opened), render_html(opened)):
        assert _RAW_CONTROL.search(page.encode("utf-8").decode("utf-8").replace("\r\n", "\n")) is None
