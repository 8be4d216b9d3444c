"""ls: one directory's entries, gitignore-aware, bounded."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

from navtui.core.errors import ToolError
from navtui.core.walk import RepoRules
from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.files.pathtools import ReadsPath
from navtui.tools.shell.output import human_size

MAX_ENTRIES = 500


def list_directory(directory: Path, shown: str, *, include_ignored: bool = False, limit: int = MAX_ENTRIES) -> str:
    """Directories first (with a trailing ``/``), then files with their sizes; ignored entries hidden."""
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name.lower())
    except FileNotFoundError:
        raise ToolError(f"Directory not found: {shown}") from None
    except NotADirectoryError:
        raise ToolError(f"{shown} is not a directory") from None
    except PermissionError:
        raise ToolError(f"Permission denied: {shown}") from None
    rules = None if include_ignored else RepoRules(directory)
    dirs: list[str] = []
    files: list[str] = []
    hidden = 0
    for entry in entries:
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if rules is not None and rules.ignored(path, is_dir):
            hidden += 1
            continue
        if entry.is_symlink():
            try:
                target = os.readlink(entry.path)
            except OSError:
                target = "?"
            (dirs if is_dir else files).append(f"{entry.name}{'/' if is_dir else ''} -> {target}")
        elif is_dir:
            dirs.append(f"{entry.name}/")
        else:
            try:
                size = entry.stat().st_size
            except OSError:
                size = 0
            files.append(f"{entry.name}  ({human_size(size)})")
    lines = dirs + files
    notes = []
    if len(lines) > limit:
        notes.append(f"[{len(lines) - limit} more entries not shown]")
        lines = lines[:limit]
    if hidden:
        notes.append(
            f"[{hidden} ignored entries hidden (.git, tool and dependency folders, .gitignore matches); "
            "all: true shows them]"
        )
    if not lines:
        lines = ["(empty directory)"]
    return "\n".join([f"{shown}/" if shown != "." else "./", *lines, *notes])


class LsArgs(BaseModel):
    path: str = Field(".", description="Directory to list (default: the workspace).")
    all: bool = Field(False, description="Also show entries hidden by .gitignore.")


class LsTool(ReadsPath, Tool[LsArgs]):
    name = "ls"
    description = (
        "List a directory: subdirectories end with '/', files show their size; .gitignore'd entries are hidden. "
        'Example: {"path": "src"}'
    )
    Args = LsArgs
    tier = "read"

    def summary(self, args: LsArgs) -> str:
        return args.path

    async def run(self, args: LsArgs, ctx: ToolContext) -> ToolResult:
        directory = ctx.workspace.resolve(args.path)
        shown = ctx.workspace.display(directory)
        if directory.is_file():
            raise ToolError(f"{shown} is a file, not a directory; use read to see it")
        text = list_directory(directory, shown, include_ignored=args.all)
        return ToolResult(text, details={"path": str(directory)})
