"""An MCP server's tool as a navtui tool: ``mcp__<server>__<tool>``, tier ``exec``, results as tool results.

The schema is the server's, made plain like the built-in tools' (refs inlined, no nulls); the result's text
comes back as text (cut to head and tail like shell output when large, the whole kept in a file), images
as attachments, resource links and embedded resources as text.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from navtui.core.errors import ToolError
from navtui.core.messages import ImageBlock, ToolSpec
from navtui.core.text import utf8_size
from navtui.mcp.images import checked_image
from navtui.tools.approval import Tier
from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.schema import plain_schema
from navtui.tools.shell.output import excerpt_file, human_size, sanitize

if TYPE_CHECKING:
    from mcp.types import CallToolResult, EmbeddedResource

    from navtui.mcp.connection import ServerConnection
    from navtui.mcp.listing import RemoteTool

PREFIX = "mcp__"
MAX_NAME = 64  # Anthropic's and OpenAI's limit for a tool name
MAX_DESCRIPTION = 1024  # small windows: a server's essay about its tool is cut here
INLINE_LIMIT = 32 * 1024  # larger results go to a file; the model gets head and tail


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, with characters providers reject replaced and long names shortened."""
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in tool)
    name = f"{PREFIX}{server}__{safe}"
    if len(name) <= MAX_NAME and safe == tool:
        return name
    digest = hashlib.sha1(f"{server}/{tool}".encode()).hexdigest()[:6]
    return f"{name[: MAX_NAME - 7]}_{digest}"


class McpArguments(BaseModel):
    """Whatever the server's schema asks for; the server validates the values."""

    model_config = ConfigDict(extra="allow")


class McpTool(Tool[McpArguments]):
    Args: ClassVar[type[BaseModel]] = McpArguments
    tier: Tier = "exec"  # another program acts on the model's behalf: asks like shell unless allowed

    def __init__(self, connection: ServerConnection, remote: RemoteTool) -> None:
        self.connection = connection
        self.remote = remote
        self.server = connection.name
        self.name = tool_name(connection.name, remote.name)
        description = sanitize(remote.description).strip() or f"The {remote.name} tool of the MCP server {self.server}."
        if len(description) > MAX_DESCRIPTION:
            description = description[: MAX_DESCRIPTION - 1].rstrip() + "…"
        self.description = description
        self.parameters = plain_schema(remote.input_schema or {"type": "object"})

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)

    def parse_args(self, raw: dict[str, Any]) -> McpArguments:
        """Missing required arguments are named here (the model can fix them); the server checks the rest."""
        if not isinstance(raw, dict):
            raise ToolError(f"Invalid arguments for {self.name}: expected an object. {self._expected_arguments()}")
        required = self.parameters.get("required", [])
        missing = [name for name in required if isinstance(name, str) and name not in raw]
        if missing:
            raise ToolError(
                f"Invalid arguments for {self.name}: missing {', '.join(missing)}. {self._expected_arguments()}"
            )
        return McpArguments.model_validate(raw)

    def _expected_arguments(self) -> str:
        properties = self.parameters.get("properties", {})
        required = set(self.parameters.get("required", []))
        names = [f"{name} (required)" if name in required else name for name in properties]
        return f"Expected arguments: {', '.join(names) or 'none'}."

    def summary(self, args: McpArguments) -> str:
        arguments = args.model_dump()
        return json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))[:200] if arguments else ""

    def approval_reason(self, args: McpArguments, ctx: ToolContext) -> str | None:
        return f"calls {self.remote.name} on the MCP server '{self.server}' ({self.connection.spec.source} server)"

    def preview(self, args: McpArguments, ctx: ToolContext) -> str | None:
        arguments = json.dumps(args.model_dump(), ensure_ascii=False, indent=2)
        first = self.description.split("\n", 1)[0]
        return f"{self.server} · {self.remote.name}: {first}\n{arguments}"

    async def run(self, args: McpArguments, ctx: ToolContext) -> ToolResult:
        result = await self.connection.call(self.remote.name, args.model_dump(), ctx.on_output)
        # The connection's marker starts with navtui's owner token: artifacts pruning keeps a running navtui's files.
        # A link is readable through read_mcp_resource while the server lists resources (it is offered then).
        reader = self.server if self.connection.resources else None
        return to_tool_result(result, ctx, label=f"{self.connection.marker}-{self.remote.name}", reader=reader)


def to_tool_result(result: CallToolResult, ctx: ToolContext, *, label: str, reader: str | None = None) -> ToolResult:
    """Text parts joined; images attached; links and resources described; a large text cut to head and tail."""
    from mcp.types import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent

    parts: list[str] = []
    images: list[ImageBlock] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, ImageContent):
            refused = _attach(block.data, block.mime_type, images)
            parts.append(f"[image: {block.mime_type}, {_decoded_size(block.data)}{refused}]")
        elif isinstance(block, AudioContent):
            parts.append(f"[audio: {block.mime_type}, {_decoded_size(block.data)}; not shown to the model]")
        elif isinstance(block, ResourceLink):
            about = f" ({block.mime_type})" if block.mime_type else ""
            detail = f": {block.description}" if block.description else ""
            how = f"; read it with read_mcp_resource server={reader}" if reader else ""
            parts.append(f"[resource link: {block.name} {block.uri}{about}{detail}{how}]")
        elif isinstance(block, EmbeddedResource):
            parts.append(_embedded(block, images))
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, indent=2))
    text = sanitize("\n".join(parts)) or ("(the tool failed without a message)" if result.is_error else "(no output)")
    if utf8_size(text) > INLINE_LIMIT:
        text = _excerpt(text, ctx, label)
    return ToolResult(text=text, is_error=bool(result.is_error), images=images)


def _attach(data: str, mime: str, images: list[ImageBlock]) -> str:
    """Attach the image when the providers will take it (``mcp/images.py``); else the words that say why not."""
    image, why = checked_image(data, mime)
    if image is None:
        return f"; not shown to the model: {why}"
    images.append(image)
    return ""


def _decoded_size(base64_data: str) -> str:
    return human_size(len(base64_data) * 3 // 4)


def _embedded(block: EmbeddedResource, images: list[ImageBlock]) -> str:
    from mcp.types import TextResourceContents

    resource = block.resource
    uri, mime = str(resource.uri), resource.mime_type or ""
    if isinstance(resource, TextResourceContents):
        return f"[resource {uri}]\n{resource.text}"
    if mime.startswith("image/"):
        return f"[image resource {uri}: {mime}, {_decoded_size(resource.blob)}{_attach(resource.blob, mime, images)}]"
    return f"[binary resource {uri}: {mime or 'unknown type'}, {_decoded_size(resource.blob)}; not shown]"


def _excerpt(text: str, ctx: ToolContext, label: str) -> str:
    """Keep the whole result in a file the model may ``read``; return its head and tail."""
    safe = "".join(c if c.isalnum() or c in "_-." else "_" for c in label)[:80]
    path = ctx.artifacts_dir / f"mcp-{time.strftime('%Y%m%d-%H%M%S')}-{safe}-{time.monotonic_ns() % 10**6}.txt"
    try:
        ctx.artifacts_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as out:
            out.write(text)
    except OSError:
        return text[: INLINE_LIMIT // 4] + f"\n[... cut: {human_size(len(text.encode('utf-8')))} in all ...]"
    return excerpt_file(path).render(str(path))
