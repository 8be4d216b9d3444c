"""What read-only path tools share: reads outside the workspace need a closer look in ``ask`` mode."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from navtui.tools.approval import Tier
from navtui.tools.base import ToolContext


def readable_without_prompt(resolved: Path, ctx: ToolContext) -> bool:
    """Inside the workspace, or a file navtui itself wrote for this session (full shell output)."""
    if ctx.workspace.contains(resolved):
        return True
    artifacts = ctx.artifacts_dir.resolve()
    return resolved == artifacts or resolved.is_relative_to(artifacts)


def outside_reason(path: str, ctx: ToolContext) -> str | None:
    """'reads outside the workspace: /etc/hosts' for a path outside, else None."""
    try:
        resolved = ctx.workspace.resolve(path)
    except Exception:
        return None  # the tool itself reports an unusable path
    if readable_without_prompt(resolved, ctx):
        return None
    return f"reads outside the workspace: {resolved}"


def read_tier(path: str, ctx: ToolContext) -> Tier:
    """A read outside the workspace is treated like a write: it asks in ``ask`` mode, runs in ``write``/``yolo``."""
    return "write" if outside_reason(path, ctx) else "read"


class _PathArgs(Protocol):
    @property
    def path(self) -> str: ...


class ReadsPath:
    """Mixin for a tool that reads ``args.path`` (read, ls, find, grep): a read outside the workspace needs a look."""

    def tier_for(self, args: _PathArgs, ctx: ToolContext) -> Tier:
        return read_tier(args.path, ctx)

    def approval_reason(self, args: _PathArgs, ctx: ToolContext) -> str | None:
        return outside_reason(args.path, ctx)
