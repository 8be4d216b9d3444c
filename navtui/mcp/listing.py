"""What an MCP server offers, as navtui keeps it: its tools, resources and prompts, listed page by page at
start, and listed again when the server says a list changed (a 2025 server's ``notifications/*/list_changed``,
sent unasked; a 2026 server's ``subscriptions/listen`` stream, which the client opens).

The SDK's ``Client`` caches lists; a change re-lists with ``cache_mode="refresh"``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from mcp import Client

ListKind = Literal["tools", "resources", "prompts"]
MAX_PAGES = 100  # a server whose cursor never ends cannot hang the start
_CHANGED: dict[str, ListKind] = {
    "notifications/tools/list_changed": "tools",
    "notifications/resources/list_changed": "resources",
    "notifications/prompts/list_changed": "prompts",
}


@dataclass(frozen=True)
class RemoteTool:
    """A tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    problem: str | None = None  # why a provider would refuse its schema (``schemas.schema_problem``): not offered


@dataclass(frozen=True)
class RemoteResource:
    """A resource as the server lists it (read with ``resources/read``)."""

    uri: str
    name: str
    description: str
    mime_type: str | None


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool


@dataclass(frozen=True)
class RemotePrompt:
    """A prompt template as the server lists it; navtui offers it as ``/mcp__<server>__<prompt>``."""

    name: str
    description: str
    arguments: tuple[PromptArgument, ...]


@dataclass
class Listing:
    """What a server offers: listed at start, listed again when it says a list changed."""

    tools: list[RemoteTool] = field(default_factory=list)
    resources: list[RemoteResource] = field(default_factory=list)
    prompts: list[RemotePrompt] = field(default_factory=list)


async def list_all(client: Client) -> Listing:
    """Tools always; resources and prompts when the server says it has them."""
    capabilities = client.server_capabilities
    listing = Listing(tools=await list_tools(client))
    if capabilities.resources is not None:
        listing.resources = await list_resources(client)
    if capabilities.prompts is not None:
        listing.prompts = await list_prompts(client)
    return listing


async def list_again(client: Client, kind: ListKind) -> list[Any]:
    """One list fetched afresh (the server said it changed)."""
    if kind == "tools":
        return await list_tools(client, refresh=True)
    if kind == "resources":
        return await list_resources(client, refresh=True)
    return await list_prompts(client, refresh=True)


async def list_tools(client: Client, refresh: bool = False) -> list[RemoteTool]:
    from navtui.mcp.schemas import schema_problem

    tools: list[RemoteTool] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh" if refresh else "use")
        for t in page.tools:
            schema = dict(t.input_schema or {"type": "object"})
            tools.append(RemoteTool(t.name, t.description or "", schema, schema_problem(schema)))
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


async def list_resources(client: Client, refresh: bool = False) -> list[RemoteResource]:
    resources: list[RemoteResource] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_resources(cursor=cursor, cache_mode="refresh" if refresh else "use")
        resources.extend(RemoteResource(str(r.uri), r.name, r.description or "", r.mime_type) for r in page.resources)
        cursor = page.next_cursor
        if not cursor:
            break
    return resources


async def list_prompts(client: Client, refresh: bool = False) -> list[RemotePrompt]:
    prompts: list[RemotePrompt] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await client.list_prompts(cursor=cursor, cache_mode="refresh" if refresh else "use")
        for prompt in page.prompts:
            arguments = tuple(
                PromptArgument(a.name, a.description or "", bool(a.required)) for a in prompt.arguments or []
            )
            prompts.append(RemotePrompt(prompt.name, prompt.description or "", arguments))
        cursor = page.next_cursor
        if not cursor:
            break
    return prompts


def changed_kind(message: Any) -> ListKind | None:
    """Which list a 2025-protocol server's unasked ``notifications/*/list_changed`` is about, if it is one."""
    return _CHANGED.get(getattr(message, "method", ""))


async def follow_changes(client: Client, on_change: Callable[[ListKind], Awaitable[None]]) -> None:
    """On the 2026 protocol a client asks for change events (``subscriptions/listen``) for the kinds the server
    announces; ``on_change`` is awaited for each. Returns when the stream ends (with the connection), or at once
    when the server announces none or cannot stream them (older servers send them unasked: ``changed_kind``)."""
    from mcp.client.subscriptions import (
        ListenNotSupportedError,
        PromptsListChanged,
        ResourcesListChanged,
        ToolsListChanged,
    )

    capabilities = client.server_capabilities
    tools = bool(capabilities.tools and capabilities.tools.list_changed)
    prompts = bool(capabilities.prompts and capabilities.prompts.list_changed)
    resources = bool(capabilities.resources and capabilities.resources.list_changed)
    if not (tools or prompts or resources):
        return
    kinds: dict[type, ListKind] = {
        ToolsListChanged: "tools",
        PromptsListChanged: "prompts",
        ResourcesListChanged: "resources",
    }
    try:
        async with client.listen(
            tools_list_changed=tools, prompts_list_changed=prompts, resources_list_changed=resources
        ) as subscription:
            async for event in subscription:
                kind = kinds.get(type(event))
                if kind is not None:
                    await on_change(kind)
    except ListenNotSupportedError:
        return
    except Exception:  # the stream ended with the connection, or the server refused it: changes are not followed
        return
