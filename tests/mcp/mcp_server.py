"""A real MCP server for the tests, written with the SDK's server API (``MCPServer``).

``python mcp_server.py`` serves stdio; ``python mcp_server.py --http`` serves streamable HTTP on 127.0.0.1
(a free port, printed as ``PORT <n>`` on stdout). ``MCP_TEST_DIR`` names a directory where the tools leave
traces the tests wait for: ``pid`` (written at start), ``slow-started`` and ``cancelled`` (the slow tool),
``child`` (with ``MCP_TEST_CHILD=1``: a helper process the server started). ``MCP_TEST_SLOW_START`` (seconds)
delays every start; ``MCP_TEST_HOLD_RESTART`` holds a restart until the test writes ``go`` in ``MCP_TEST_DIR`` (or
for good); ``MCP_TEST_LEGACY`` speaks only the 2025
protocol (initialize, sessions over HTTP); ``MCP_TEST_PORT`` picks the HTTP port; ``MCP_TEST_LOST_SESSION_400``
answers an unknown session with the reference servers' 400; ``MCP_TEST_MENTION`` (a path) adds the prompt
``brief``, whose text @-mentions that file and a resource of the server; ``MCP_TEST_HOSTILE`` adds ``odd``, a
prompt with that description; ``MCP_TEST_BAD_SCHEMAS`` lists, beside the tools, tools whose input schemas no
provider takes (``broken_*``); ``MCP_TEST_HUGE_PROMPT`` (characters,messages) adds ``huge``, a prompt that large.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import socket
import sys
from pathlib import Path
from typing import Annotated

from mcp.server.mcpserver import Context, ListRoots, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import Prompt, UserMessage
from mcp.server.mcpserver.resources import FunctionResource
from mcp.types import ImageContent, ListRootsResult, ResourceLink, TextContent
from pydantic import BaseModel

TRACES = Path(os.environ.get("MCP_TEST_DIR", "."))
PNG = base64.b64encode(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")).decode()

server = MCPServer("navtui-test", instructions="A server for navtui's tests.")


class Point(BaseModel):
    x: int
    y: int | None = None


@server.tool()
def echo(text: str, times: int = 1) -> str:
    """Repeat the text."""
    return text * times


@server.tool()
def place(point: Point, label: str | None = None) -> str:
    """Put a labelled point on the map."""
    return f"{label or 'unnamed'} at {point.x},{point.y}"


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ToolError(f"refused: {reason}")


@server.tool()
async def slow(seconds: float) -> str:
    """Wait, then answer."""
    (TRACES / "slow-started").write_text(str(seconds))
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        (TRACES / "cancelled").write_text("cancelled")
        raise
    return f"waited {seconds} s"


@server.tool()
def crash(message: str = "boom") -> str:
    """Exit the server process at once."""
    sys.stderr.write(f"crashing: {message}\n")
    sys.stderr.flush()
    os._exit(3)


def hostile_pictures() -> list[TextContent | ImageContent | ResourceLink]:
    """Images no provider takes, labelled as images: a vector drawing, text, bad base64, a PNG labelled JPEG (its
    bytes decide), one too large."""
    svg = base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg'/>").decode()
    text = base64.b64encode(b"not an image at all").decode()
    big = base64.b64encode(base64.b64decode(PNG) + bytes(6 * 1024 * 1024)).decode()
    return [
        ImageContent(type="image", data=svg, mime_type="image/svg+xml"),
        ImageContent(type="image", data=text, mime_type="image/png"),
        ImageContent(type="image", data="!!not base64!!", mime_type="image/png"),
        ImageContent(type="image", data=PNG, mime_type="image/jpeg"),
        ImageContent(type="image", data=big, mime_type="image/png"),
    ]


@server.tool()
def picture(hostile: bool = False) -> list[TextContent | ImageContent | ResourceLink]:
    """A text, an image and a link."""
    if hostile:
        return hostile_pictures()
    return [
        TextContent(type="text", text="a red dot"),
        ImageContent(type="image", data=PNG, mime_type="image/png"),
        ResourceLink(type="resource_link", uri="file:///tmp/dot.png", name="dot.png", mime_type="image/png"),
    ]


@server.tool()
def flood(lines: int) -> str:
    """Many numbered lines."""
    return "".join(f"line {n}\n" for n in range(1, lines + 1))


@server.tool()
def environment(name: str) -> str:
    """The value of an environment variable of the server (or 'unset')."""
    return os.environ.get(name, "unset")


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of an HTTP request header (or 'unset'; always unset over stdio)."""
    return (ctx.headers or {}).get(name.lower(), "unset")


def speak_legacy() -> None:
    """Answer server/discover as a server of the 2025 protocol does (method not found): clients fall back to
    the initialize handshake and, over HTTP, an ``Mcp-Session-Id`` (what the reference servers speak)."""
    from mcp.shared.exceptions import MCPError
    from mcp.types import METHOD_NOT_FOUND, RequestParams

    async def no_discover(ctx: object, params: object) -> None:
        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found")

    server._lowlevel_server.add_request_handler("server/discover", RequestParams, no_discover)


@server.resource("notes://today", name="today", description="Today's notes", mime_type="text/plain")
def today() -> str:
    return "buy milk\ncall Ann"


@server.resource("notes://logo", name="logo", description="The logo", mime_type="image/png")
def logo() -> bytes:
    return base64.b64decode(PNG)


@server.prompt()
def review(file: str, focus: str = "bugs") -> str:
    """Review a file for one kind of problem."""
    return f"Review {file}, looking for {focus}."


def brief(topic: str) -> str:
    """Brief the model on a topic (with ``MCP_TEST_MENTION``: its text names that file and a resource with @)."""
    return f"Brief me on {topic}. Context: @{os.environ['MCP_TEST_MENTION']} and @test:notes://today"


if os.environ.get("MCP_TEST_MENTION"):
    server.add_prompt(Prompt.from_function(brief, name="brief"))
if os.environ.get("MCP_TEST_HOSTILE"):  # a prompt whose description holds what the variable says (escapes, markup)
    server.add_prompt(Prompt.from_function(brief, name="odd", description=os.environ["MCP_TEST_HOSTILE"]))


def huge() -> list[UserMessage]:
    """A prompt of MCP_TEST_HUGE_PROMPT's size: characters in all, over that many messages."""
    size, count = (int(n) for n in os.environ["MCP_TEST_HUGE_PROMPT"].split(","))
    return [UserMessage(f"{n:07d}" + "x" * (size // count - 7)) for n in range(count)]


if os.environ.get("MCP_TEST_HUGE_PROMPT"):
    server.add_prompt(Prompt.from_function(huge, name="huge"))


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def roots(found: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    """The client's roots, one per line."""
    return "\n".join(f"{root.uri} {root.name}" for root in found.roots)


@server.tool()
async def grow(ctx: Context, again: int = 0) -> str:
    """Add a tool, a prompt and a resource, and tell the client the lists changed (``again`` more times: a flood)."""

    def added(text: str) -> str:
        """A tool added while the server runs."""
        return f"added: {text}"

    def later() -> str:
        return "a later note"

    def recap() -> str:
        """Summarise the day."""
        return "Summarise the day."

    server.add_tool(added)
    server.add_resource(FunctionResource.from_function(later, uri="notes://later", name="later"))
    server.add_prompt(Prompt.from_function(recap, name="recap"))
    await ctx.notify_tools_changed()  # listeners of the 2026 protocol
    await ctx.notify_prompts_changed()
    await ctx.notify_resources_changed()
    with contextlib.suppress(Exception):  # clients of the 2025 protocol
        await ctx.session.send_tool_list_changed()
        await ctx.session.send_prompt_list_changed()
        await ctx.session.send_resource_list_changed()
        for _ in range(again):
            await ctx.session.send_tool_list_changed()
    for _ in range(again):
        await ctx.notify_tools_changed()
    return "grown"


def count_tool_lists() -> None:
    """Each ``tools/list`` request adds a byte to ``TRACES/tool-lists`` (how often the client fetched the list)."""
    low = server._lowlevel_server
    entry = low.get_request_handler("tools/list")
    assert entry is not None

    async def counted(ctx: object, params: object) -> object:
        with (TRACES / "tool-lists").open("a") as file:
            file.write(".")
        return await entry.handler(ctx, params)

    low.add_request_handler("tools/list", entry.params_type, counted)


BAD_SCHEMAS = {
    "broken_properties": {"type": "object", "properties": ["text"]},  # a list where an object is due
    "broken_required": {"type": "object", "properties": {"text": {"type": "string"}}, "required": "text"},
    "broken_type": {"type": "object", "properties": {"text": {"type": "strin g"}}},
}


def list_bad_schemas() -> None:
    """``tools/list`` answers with the tools of ``BAD_SCHEMAS`` too (the SDK's server API checks what it builds)."""
    from mcp.types import Tool

    low = server._lowlevel_server
    entry = low.get_request_handler("tools/list")
    assert entry is not None

    async def with_bad(ctx: object, params: object) -> object:
        result = await entry.handler(ctx, params)
        bad = [
            Tool.model_construct(name=name, description="A broken tool.", input_schema=s)
            for name, s in BAD_SCHEMAS.items()
        ]
        result.tools = [*result.tools, *bad]  # type: ignore[attr-defined]
        return result

    low.add_request_handler("tools/list", entry.params_type, with_bad)


def answer_lost_sessions_with_400(app):  # type: ignore[no-untyped-def]
    """What the TypeScript reference servers answer for a session they do not know: 400, not 404."""
    body = b'{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}'

    async def wrapped(scope, receive, send):  # type: ignore[no-untyped-def]
        replaced = False

        async def send_400(message):  # type: ignore[no-untyped-def]
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 404:
                replaced = True
                headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
                await send({"type": "http.response.start", "status": 400, "headers": headers})
            elif replaced and message["type"] == "http.response.body":
                await send({"type": "http.response.body", "body": body})
            else:
                await send(message)

        await app(scope, receive, send_400)

    return wrapped


def serve_stdio_legacy() -> None:
    """stdio in the 2025 protocol only (the era a connection's first request would otherwise pick)."""
    import anyio
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    low = server._lowlevel_server

    async def main() -> None:
        async with stdio_server() as (read, write), low.lifespan(low) as state:
            await serve_loop(low, read, write, lifespan_state=state, init_options=low.create_initialization_options())

    anyio.run(main)


def serve_http() -> None:
    import anyio
    import uvicorn

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(os.environ.get("MCP_TEST_PORT", "0"))))
    sock.listen(64)  # connections made before uvicorn runs wait in the backlog
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app()
    if os.environ.get("MCP_TEST_LOST_SESSION_400"):
        app = answer_lost_sessions_with_400(app)
    config = uvicorn.Config(app, log_level="warning")
    anyio.run(uvicorn.Server(config).serve, [sock])


def _write_whole(path: Path, text: str) -> None:
    """Written under another name, then renamed: a test waiting for the file never reads it empty."""
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    os.replace(part, path)


if __name__ == "__main__":
    restarted = (TRACES / "pid").exists()
    _write_whole(TRACES / "pid", str(os.getpid()))
    if os.environ.get("MCP_TEST_CHILD"):  # a helper process of its own, as npx-started servers have
        import subprocess

        child = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL, start_new_session=True)
        _write_whole(TRACES / "child", str(child.pid))
    slow = os.environ.get("MCP_TEST_SLOW_START")
    held = restarted and os.environ.get("MCP_TEST_HOLD_RESTART")
    if slow or held:  # a server that takes its time (npx downloading a package)
        import time

        sys.stderr.write("fetching the package...\n")
        sys.stderr.flush()
        if slow:
            time.sleep(float(slow))
        while held and not (TRACES / "go").exists():  # the test lets it go when it has seen the restart
            time.sleep(0.02)
    sys.stderr.write("test server ready\n")
    sys.stderr.flush()
    count_tool_lists()
    if os.environ.get("MCP_TEST_BAD_SCHEMAS"):
        list_bad_schemas()
    if os.environ.get("MCP_TEST_LEGACY"):
        speak_legacy()
    if "--http" in sys.argv:
        serve_http()
    elif os.environ.get("MCP_TEST_LEGACY"):
        serve_stdio_legacy()
    else:
        server.run()
