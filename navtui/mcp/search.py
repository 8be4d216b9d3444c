"""Deferred loading: the tools of servers whose schemas do not fit the window are found with one tool.

``mcp_tool_search`` (tier ``read``) takes words, scores the left-out tools by their name and description, and
loads the best ones: they are offered from the next request on, under their own names, so calling one is
approved like any MCP tool (``tools.allow`` globs included). The result gives each tool's description and
arguments, so the model can call it right away.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, ClassVar, Protocol

from pydantic import BaseModel, Field

from navtui.tools.base import Tier, Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from navtui.mcp.tool import McpTool


class Deferred(Protocol):
    """What the search needs of the servers (``McpManager`` is one): the withheld ones and their tools."""

    withheld: set[str]

    def deferred_tools(self) -> list[McpTool]: ...

    def load_deferred(self, names: list[str]) -> None: ...


SEARCH_TOOL = "mcp_tool_search"
MAX_MATCHES = 5
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "with", "from", "by", "it", "is"})


class SearchArgs(BaseModel):
    query: str = Field(description="Words for what the tool should do (e.g. 'create issue', 'list files')")


class McpToolSearch(Tool[SearchArgs]):
    Args: ClassVar[type[BaseModel]] = SearchArgs
    name = SEARCH_TOOL
    tier: Tier = "read"  # it only loads tools; calling one is asked for as usual

    def __init__(self, manager: Deferred) -> None:
        self.manager = manager
        servers = ", ".join(sorted(manager.withheld)) or "none"
        self.description = (
            f"Find and load tools of the MCP servers whose tools are not listed here ({servers}). Give words for "
            f"what you need; the best {MAX_MATCHES} matches are loaded and can be called by name afterwards."
        )

    def summary(self, args: SearchArgs) -> str:
        return args.query[:200]

    async def run(self, args: SearchArgs, ctx: ToolContext) -> ToolResult:
        wanted = set(_WORD.findall(args.query.lower())) - _STOP
        scored: list[tuple[int, str, str, object]] = []
        for tool in self.manager.deferred_tools():
            name_words = set(_WORD.findall(tool.remote.name.lower()))
            about = set(_WORD.findall(tool.description.lower()))
            score = 3 * len(wanted & name_words) + len(wanted & about)
            if score:
                scored.append((score, tool.name, tool.description, tool.parameters))
        scored.sort(key=lambda item: (-item[0], item[1]))
        best = scored[:MAX_MATCHES]
        if not best:
            names = ", ".join(tool.name for tool in self.manager.deferred_tools()[:30])
            return ToolResult(text=f"No MCP tool matches '{args.query}'. Tools to search: {names or 'none'}.")
        self.manager.load_deferred([name for _, name, _, _ in best])
        parts = [
            f"{name}: {description}\narguments: {json.dumps(parameters, ensure_ascii=False)}"
            for _, name, description, parameters in best
        ]
        return ToolResult(text="Loaded; call them by name:\n\n" + "\n\n".join(parts))
