"""code_search and symbols: the repository index as tools (read tier; the index itself is built by `navtui index`)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, Field

from navtui.core.errors import ToolError
from navtui.tools.base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from navtui.index.query import Hit, Index

MAX_LINES_PER_HIT = 40
MAX_OUTPUT_CHARS = 24_000


def _open_index(ctx: ToolContext) -> Index:
    from navtui.index.query import Index
    from navtui.index.store import index_path, index_root

    root = index_root(ctx.cwd)
    index = Index.open(root)
    if index is not None:
        return index
    if index_path(root).exists():
        raise ToolError(
            f"The repository index at {index_path(root)} cannot be read (damaged or from another navtui version)",
            hint="ask the user to run `navtui index` (or /index) to rebuild it; meanwhile use grep and find",
        )
    raise ToolError(
        f"No repository index for {root}",
        hint="ask the user to run `navtui index` (or /index) to build one; meanwhile use grep and find",
    )


def _display_path(ctx: ToolContext, root: Path, rel: str) -> str:
    """Paths as the other tools take them: relative to the working directory."""
    if root == ctx.cwd:
        return rel
    return os.path.relpath(root / rel, ctx.cwd)


def _stale(index: Index, hit: Hit) -> bool:
    recorded = index.indexed_state(hit.path)
    try:
        st = (index.root / hit.path).stat()
    except OSError:
        return True
    return recorded is None or recorded != (st.st_mtime_ns, st.st_size)


def _format_hit(index: Index, ctx: ToolContext, hit: Hit) -> str:
    path = _display_path(ctx, index.root, hit.path)
    label = f"  {hit.symbol}" if hit.symbol else ""
    note = "  (file changed since indexing: line numbers may be off)" if _stale(index, hit) else ""
    lines = hit.text.split("\n")
    width = len(str(hit.start_line + len(lines)))
    shown = [f"{hit.start_line + i:>{width}}│ {line}" for i, line in enumerate(lines[:MAX_LINES_PER_HIT])]
    if len(lines) > MAX_LINES_PER_HIT:
        rest = hit.start_line + MAX_LINES_PER_HIT
        shown.append(f"… {len(lines) - MAX_LINES_PER_HIT} more lines (read {path} offset={rest})")
    return f"{path}:{hit.start_line}-{hit.end_line}{label}{note}\n" + "\n".join(shown)


class CodeSearchArgs(BaseModel):
    query: str = Field(min_length=1, description="Identifiers or words to look for; camelCase/snake_case are split")
    limit: int = Field(8, ge=1, le=30, description="Most chunks to return")


class CodeSearchTool(Tool[CodeSearchArgs]):
    name = "code_search"
    description = (
        "Search the repository index for the code most relevant to a query (ranked by BM25, optionally by "
        "meaning). Returns chunks (whole functions/classes or blocks) with path and line span. Use it to find "
        "where something is implemented before reading files."
    )
    Args = CodeSearchArgs
    tier = "read"

    def summary(self, args: CodeSearchArgs) -> str:
        return args.query[:200]

    async def run(self, args: CodeSearchArgs, ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(self._search, args, ctx)

    def _search(self, args: CodeSearchArgs, ctx: ToolContext) -> ToolResult:
        index = _open_index(ctx)
        try:
            base_url = _base_url(ctx)
            hits = index.search(args.query, args.limit, base_url=base_url)
            if not hits:
                return ToolResult(f"No indexed code matches {args.query!r}. Try other words, grep, or find.")
            parts = [f"{len(hits)} result{'s' if len(hits) != 1 else ''} for {args.query!r}:"]
            size = len(parts[0])
            for shown, hit in enumerate(hits):
                block = _format_hit(index, ctx, hit)
                if size + len(block) > MAX_OUTPUT_CHARS and shown:
                    parts.append(f"[{len(hits) - shown} more results left out to keep this short; narrow the query]")
                    break
                parts.append(block)
                size += len(block) + 2
            details: dict[str, Any] = {
                "hits": [
                    {
                        "path": h.path,
                        "start_line": h.start_line,
                        "end_line": h.end_line,
                        "score": round(h.score, 4),
                        "symbol": h.symbol,
                    }
                    for h in hits
                ]
            }
            return ToolResult(parts[0] + "\n" + "\n\n".join(parts[1:]), details=details)
        finally:
            index.close()


class SymbolsArgs(BaseModel):
    name: str = Field(min_length=1, description="A definition's name, or part of it; `Class.method` narrows")
    kind: str | None = Field(None, description="function, method, class, struct, interface, enum, trait, type ...")


class SymbolsTool(Tool[SymbolsArgs]):
    name = "symbols"
    description = (
        "Find where functions, classes, methods and types are defined, by name (fuzzy: exact, then prefix, "
        "substring, subsequence; case and _ ignored). Returns kind, path and line span of each definition."
    )
    Args = SymbolsArgs
    tier = "read"
    limit: ClassVar[int] = 30

    def summary(self, args: SymbolsArgs) -> str:
        return f"{args.name} ({args.kind})" if args.kind else args.name

    async def run(self, args: SymbolsArgs, ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(self._lookup, args, ctx)

    def _lookup(self, args: SymbolsArgs, ctx: ToolContext) -> ToolResult:
        index = _open_index(ctx)
        try:
            found = index.symbols(args.name, args.kind, limit=self.limit)
            if not found:
                kind = f" of kind {args.kind!r}" if args.kind else ""
                return ToolResult(f"No definition{kind} matches {args.name!r}. Try code_search or grep.")
            lines = [
                f"{s.qualified_name}  {s.kind}  {_display_path(ctx, index.root, s.path)}:{s.start_line}-{s.end_line}"
                for s in found
            ]
            if len(found) == self.limit:
                lines.append(f"[showing the first {self.limit}; use a longer name or a kind to narrow]")
            details = {
                "symbols": [
                    {
                        "name": s.name,
                        "kind": s.kind,
                        "path": s.path,
                        "start_line": s.start_line,
                        "end_line": s.end_line,
                        "parent": s.parent,
                    }
                    for s in found
                ]
            }
            return ToolResult("\n".join(lines), details=details)
        finally:
            index.close()


def _base_url(ctx: ToolContext) -> str | None:
    from navtui.index.embed import ollama_base_url

    return ollama_base_url(ctx.settings)
