"""MCP resources for the model and the user: ``@server:uri`` in a prompt attaches one, and ``read_mcp_resource``
lets the model read what a tool result links to (or what a server lists).

A resource's text goes to the model as text (cut at ``ATTACH_LIMIT``), an image as an attachment where the
provider takes one, other binary content as one line saying what it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import BaseModel, Field

from navtui.core.errors import ToolError
from navtui.core.messages import ImageBlock
from navtui.mcp.images import checked_image
from navtui.tools.approval import Tier
from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.shell.output import human_size, sanitize

if TYPE_CHECKING:
    from navtui.mcp.connection import ServerConnection


class Servers(Protocol):
    """What resources need of the MCP manager (``manager.McpManager`` is one): the servers' connections."""

    @property
    def connections(self) -> Mapping[str, ServerConnection]: ...

    def require(self, name: str) -> ServerConnection: ...


READ_TOOL = "read_mcp_resource"
ATTACH_LIMIT = 100_000  # characters of one resource's text, as for an @file
# "@server:uri": the server's name as configured, then the resource's URI (no spaces).
MENTION = re.compile(r"(?:^|(?<=\s))@([A-Za-z0-9_-]+):(\S+)")
_BLOCK = re.compile(r'<mcp_resource server="[^"]*" uri="([^"]*)"')


@dataclass
class ResourceContent:
    text: str
    images: list[ImageBlock] = field(default_factory=list)


def content_of(result: Any) -> ResourceContent:
    """A ``resources/read`` result as text (several contents joined), images kept aside."""
    from mcp.types import TextResourceContents

    parts: list[str] = []
    images: list[ImageBlock] = []
    for item in result.contents:
        mime = item.mime_type or ""
        if isinstance(item, TextResourceContents):
            parts.append(item.text)
        elif mime.startswith("image/"):
            image, why = checked_image(item.blob, mime)
            images.extend([image] if image is not None else [])
            refused = f"; not shown to the model: {why}" if image is None else ""
            parts.append(f"[image {item.uri}: {mime}, {human_size(len(item.blob) * 3 // 4)}{refused}]")
        else:
            parts.append(f"[binary {item.uri}: {mime or 'unknown type'}, {human_size(len(item.blob) * 3 // 4)}]")
    text = sanitize("\n".join(parts))
    if len(text) > ATTACH_LIMIT:
        text = text[:ATTACH_LIMIT] + f"\n[... cut at {ATTACH_LIMIT} characters of {len(text)} ...]"
    return ResourceContent(text, images)


class ReadResourceArgs(BaseModel):
    server: str = Field(description="The MCP server's name (the part after mcp__ in its tools' names)")
    uri: str = Field(description="The resource's URI, as a resource link or the server's list gives it")


class ReadMcpResourceTool(Tool[ReadResourceArgs]):
    """Offered while a running server has resources: what a tool result links to can be read."""

    Args: ClassVar[type[BaseModel]] = ReadResourceArgs
    name = READ_TOOL
    # Reading a resource has no side effects by the protocol's definition, from a server the user runs.
    tier: Tier = "read"

    description = (
        "Read a resource of an MCP server: a resource link in a tool result, or one the server lists. "
        "Returns its text (images attached)."
    )

    def __init__(self, manager: Servers) -> None:
        self.manager = manager

    def summary(self, args: ReadResourceArgs) -> str:
        return f"{args.server} {args.uri}"

    async def run(self, args: ReadResourceArgs, ctx: ToolContext) -> ToolResult:
        connection = self.manager.connections.get(args.server)
        if connection is None:
            names = ", ".join(name for name, c in self.manager.connections.items() if c.resources) or "none"
            raise ToolError(f"No MCP server '{args.server}'. Servers with resources: {names}.")
        content = content_of(await connection.read_resource(args.uri))
        return ToolResult(text=content.text or "(empty)", images=content.images)


@dataclass
class AttachedResources:
    text: str
    attached: list[str] = field(default_factory=list)  # "server:uri" of each one attached
    images: list[ImageBlock] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def mentions(text: str, servers: set[str]) -> list[tuple[str, str]]:
    """The ``@server:uri`` mentions of configured servers, in order, without repeats (others stay text)."""
    found: list[tuple[str, str]] = []
    for match in MENTION.finditer(text.split("<mcp_resource", 1)[0]):
        server, uri = match.group(1), match.group(2).rstrip(".,;!?)")
        if server in servers and (server, uri) not in found:
            found.append((server, uri))
    return found


async def attach_resources(text: str, manager: Servers) -> AttachedResources:
    """The prompt with each ``@server:uri`` resource's content appended in a ``<mcp_resource>`` block."""
    result = AttachedResources(text)
    wanted = mentions(text, set(manager.connections))
    if not wanted:
        return result
    taken = set(_BLOCK.findall(text))
    blocks: list[str] = []
    for server, uri in wanted:
        if uri in taken:
            continue
        try:
            content = content_of(await manager.require(server).read_resource(uri))
        except ToolError as exc:
            result.problems.append(f"@{server}:{uri}: {exc.message}; not attached")
            continue
        except Exception as exc:  # a configured name that is no server (NavtuiError), or worse: say it, go on
            result.problems.append(f"@{server}:{uri}: {exc}; not attached")
            continue
        blocks.append(f'<mcp_resource server="{server}" uri="{uri}">\n{content.text.rstrip()}\n</mcp_resource>')
        result.images.extend(content.images)
        result.attached.append(f"{server}:{uri}")
    if blocks:
        result.text = text.rstrip() + "\n\n" + "\n".join(blocks) + "\n"
    return result
