"""find (paths by glob) and grep (contents by regex): ripgrep when present, pure Python otherwise, same output."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from navtui.core.errors import ToolError
from navtui.core.walk import RepoRules, is_binary, walk_files
from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.files import ripgrep
from navtui.tools.files.pathtools import ReadsPath

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

TIMEOUT = 30.0
MAX_COLUMNS = 300
FALLBACK_MAX_FILE = 50 * 1024 * 1024
_LONG_LINE = " [... omitted end of long line]"


def _search_root(path: str, ctx: ToolContext) -> tuple[Path, str]:
    root = ctx.workspace.resolve(path)
    shown = ctx.workspace.display(root)
    if not root.exists():
        raise ToolError(f"Path not found: {path}")
    return root, shown


def _display(root: Path, rel: str, ctx: ToolContext) -> str:
    rel = rel.removeprefix("./")
    return ctx.workspace.display(root / rel) if rel else ctx.workspace.display(root)


def _rg_target(root: Path) -> tuple[Path, str]:
    """Where to run rg and what to pass it, so it prints paths relative to ``root`` (never reads stdin)."""
    return (root.parent, root.name) if root.is_file() else (root, ".")


# ---------------------------------------------------------------------------------------------------- find


def _glob_spec(pattern: str) -> GitIgnoreSpec:
    """A .gitignore-style matcher for one glob (pathspec is ~30 modules: loaded by the first find or grep --glob)."""
    from navtui.core.globs import ignore_spec

    return ignore_spec([pattern])  # the model's glob: `*a*a*a*...*b` held the tool's thread for ever


class FindArgs(BaseModel):
    pattern: str = Field(min_length=1, description="Glob like '*.py', 'src/**/*.ts' or 'test_*'.")
    path: str = Field(".", description="Directory to search (default: the workspace).")
    limit: int = Field(200, ge=1, le=1000, description="Most paths to return.")


class FindTool(ReadsPath, Tool[FindArgs]):
    name = "find"
    description = (
        "Find files by name with a glob (gitignore rules apply; '*.py' matches at any depth). "
        'Example: {"pattern": "*.py", "path": "src"}'
    )
    Args = FindArgs
    tier = "read"

    def summary(self, args: FindArgs) -> str:
        return args.pattern if args.path == "." else f"{args.pattern} in {args.path}"

    async def run(self, args: FindArgs, ctx: ToolContext) -> ToolResult:
        root, shown = _search_root(args.path, ctx)
        if root.is_file():
            return ToolResult(shown, details={"count": 1})
        pattern = args.pattern.strip().removeprefix("./")
        found: list[str] = []
        total = 0
        timed_out = False
        if ripgrep.find_rg() is not None:
            # rg's own --glob would override the ignore rules for matching files; filter here instead.
            spec = _glob_spec(pattern)
            # rg applied the ignore files; the walker's rules add what its globs cannot say (a virtualenv's pyvenv.cfg)
            rules = RepoRules(root, respect_ignore_files=False)
            run = ripgrep.RgRun()
            lines = ripgrep.rg_lines(["--files", "--sort", "path"], root, run, seconds=TIMEOUT)
            async with contextlib.aclosing(lines):
                async for line in lines:
                    rel = line.decode("utf-8", "surrogateescape").removeprefix("./")
                    if not spec.match_file(rel) or rules.hidden(root, rel):
                        continue
                    total += 1
                    if len(found) < args.limit:
                        found.append(_display(root, rel, ctx))
            timed_out = run.timed_out
            if run.returncode == 2 and not total:
                raise ToolError(f"find failed: {run.stderr or 'ripgrep error'}")
        else:
            total, found, timed_out = await asyncio.to_thread(self._walk, root, pattern, args.limit, ctx)
        if not found:
            return ToolResult(f"No files match '{args.pattern}' under {shown}.", details={"count": 0})
        notes = []
        if total > len(found):
            notes.append(f"[{total - len(found)} more files not shown; narrow the pattern or path, or raise limit]")
        if timed_out:
            notes.append(f"[stopped after {TIMEOUT:g} s; the list may be incomplete]")
        return ToolResult("\n".join(found + notes), details={"count": total, "shown": len(found)})

    @staticmethod
    def _walk(root: Path, pattern: str, limit: int, ctx: ToolContext) -> tuple[int, list[str], bool]:
        spec = _glob_spec(pattern)
        deadline = time.monotonic() + TIMEOUT
        found: list[str] = []
        total = 0
        for item in walk_files(root):
            if time.monotonic() > deadline:
                return total, found, True
            if spec.match_file(item.rel):
                total += 1
                if len(found) < limit:
                    found.append(ctx.workspace.display(item.path))
        return total, found, False


# ---------------------------------------------------------------------------------------------------- grep
class GrepArgs(BaseModel):
    pattern: str = Field(min_length=1, description="Regular expression (or plain text with literal: true).")
    path: str = Field(".", description="File or directory to search (default: the workspace).")
    glob: str | None = Field(None, description="Only files matching this glob, e.g. '*.py'.")
    ignore_case: bool = False
    literal: bool = Field(False, description="Treat pattern as plain text, not a regex.")
    context: int = Field(0, ge=0, le=10, description="Lines of context before and after each match.")
    limit: int = Field(100, ge=1, le=500, description="Most matching lines to return.")


@dataclass
class _Hits:
    """Output lines in ripgrep's format, bounded to ``limit`` matches; later matches are only counted."""

    limit: int
    lines: list[str] = field(default_factory=list)
    matches: int = 0
    _open: bool = True  # still recording (the context after the last recorded match belongs to it)

    def add(self, path: str, number: int, is_match: bool, text: str) -> None:
        if is_match:
            self.matches += 1
            self._open = self.matches <= self.limit
        if self._open:
            self.lines.append(f"{path}{':' if is_match else '-'}{number}{':' if is_match else '-'}{text}")

    def separator(self) -> None:
        if self._open and self.lines and self.lines[-1] != "--":
            self.lines.append("--")


_RG_LINE = re.compile(rb"(\d+)([:-])(.*)", re.S)


class GrepTool(ReadsPath, Tool[GrepArgs]):
    name = "grep"
    description = (
        "Search file contents with a regular expression; prints path:line:text for each match "
        "(gitignored and binary files skipped). "
        'Example: {"pattern": "def load_\\\\w+", "path": "src", "glob": "*.py", "context": 2}'
    )
    Args = GrepArgs
    tier = "read"

    def summary(self, args: GrepArgs) -> str:
        where = "" if args.path == "." else f" in {args.path}"
        return f"/{args.pattern}/{where}" + (f" ({args.glob})" if args.glob else "")

    async def run(self, args: GrepArgs, ctx: ToolContext) -> ToolResult:
        root, shown = _search_root(args.path, ctx)
        hits = _Hits(args.limit)
        if ripgrep.find_rg() is not None:
            timed_out = await self._rg(args, root, hits, ctx)
        else:
            timed_out = await asyncio.to_thread(self._python, args, root, hits, ctx)
        while hits.lines and hits.lines[-1] == "--":
            hits.lines.pop()
        if not hits.matches:
            where = f" in {shown}" + (f" (files matching {args.glob})" if args.glob else "")
            return ToolResult(f"No matches for '{args.pattern}'{where}.", details={"matches": 0})
        notes = []
        if hits.matches > args.limit:
            notes.append(
                f"[showing {args.limit} of {hits.matches} matches; narrow the pattern, path or glob, or raise limit]"
            )
        if timed_out:
            notes.append(f"[stopped after {TIMEOUT:g} s; results may be incomplete]")
        return ToolResult("\n".join(hits.lines + notes), details={"matches": hits.matches})

    async def _rg(self, args: GrepArgs, root: Path, hits: _Hits, ctx: ToolContext) -> bool:
        flags = ["-n", "--no-heading", "--with-filename", "--null", "--sort", "path"]
        flags += ["--max-columns", str(MAX_COLUMNS), "--max-columns-preview"]
        if args.ignore_case:
            flags.append("-i")
        if args.literal:
            flags.append("-F")
        if args.context:
            flags += ["-C", str(args.context)]
        if args.glob:
            flags += ["--glob", args.glob]
        cwd, target = _rg_target(root)
        # A file matching --glob is searched even when .gitignore'd, and rg does not know virtualenvs by their
        # pyvenv.cfg: the walker's rules drop such files below.
        rules = RepoRules(cwd, respect_ignore_files=bool(args.glob))
        run = ripgrep.RgRun()
        lines = ripgrep.rg_lines([*flags, "-e", args.pattern, "--", target], cwd, run, seconds=TIMEOUT)
        async with contextlib.aclosing(lines):
            async for line in lines:
                if line == b"--":
                    hits.separator()
                    continue
                path, _, rest = line.partition(b"\0")
                match = _RG_LINE.match(rest)
                if match is None:
                    continue
                rel = path.decode("utf-8", "surrogateescape").removeprefix("./")
                if target == "." and rules.hidden(cwd, rel):  # a file named explicitly is always searched
                    continue
                shown = _display(cwd, rel, ctx)
                text = match.group(3).decode("utf-8", "surrogateescape")
                hits.add(shown, int(match.group(1)), match.group(2) == b":", text)
        if run.returncode == 2 and not hits.matches:
            message = run.stderr.splitlines()[-1] if run.stderr else "ripgrep error"
            raise ToolError(f"grep failed: {run.stderr or message}")
        return run.timed_out

    @staticmethod
    def _python(args: GrepArgs, root: Path, hits: _Hits, ctx: ToolContext) -> bool:
        flags = re.IGNORECASE if args.ignore_case else 0
        try:
            regex = re.compile(re.escape(args.pattern) if args.literal else args.pattern, flags)
        except re.error as exc:
            raise ToolError(f"grep failed: invalid regular expression: {exc}") from None
        spec = _glob_spec(args.glob) if args.glob else None
        files = [root] if root.is_file() else (item.path for item in walk_files(root))
        deadline = time.monotonic() + TIMEOUT
        for path in files:
            if time.monotonic() > deadline:
                return True
            if spec is not None and path != root and not spec.match_file(path.relative_to(root).as_posix()):
                continue
            try:
                if path.stat().st_size > FALLBACK_MAX_FILE:
                    continue
                data = path.read_bytes()
            except OSError:
                continue
            if is_binary(data):
                continue
            lines = data.decode("utf-8", "surrogateescape").split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            found = [i for i, line in enumerate(lines) if regex.search(line)]
            if found:
                GrepTool._emit(ctx.workspace.display(path), lines, found, args.context, hits)
        return False

    @staticmethod
    def _emit(shown: str, lines: list[str], found: list[int], context: int, hits: _Hits) -> None:
        matched = set(found)
        last = -2
        for index in found:
            start = max(index - context, last + 1, 0)
            if context and hits.lines and start > last + 1:
                hits.separator()
            for number in range(start, min(index + context, len(lines) - 1) + 1):
                if number <= last:
                    continue
                text = lines[number].rstrip("\r")
                if len(text) > MAX_COLUMNS:
                    text = text[:MAX_COLUMNS] + _LONG_LINE
                hits.add(shown, number + 1, number in matched, text)
                last = number
