"""write: create or replace a whole file, atomically, keeping its mode, BOM and line endings."""

from __future__ import annotations

import asyncio
import functools
import os
import re
from pathlib import Path

from pydantic import BaseModel, Field

from navtui.core.errors import ToolError
from navtui.core.fs import atomic_write_bytes, write_error_text
from navtui.core.text import REPLACEMENT, NotEncodable, encode_file_text
from navtui.core.wording import counted
from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.files.diff import clip_diff, diff_stats, unified_diff
from navtui.tools.files.dropped import dropped_note, shadowed_note, unresolved_note
from navtui.tools.files.textfile import UTF8_BOM, decode_for_edit, require_regular
from navtui.tools.shell.output import human_size

# "// ... rest of the code unchanged": a model that elides code in a full-file write deletes it.
PREVIEW_DIFF_BYTES = 1_000_000  # a larger file's replacement is previewed by its new content's head
_PLACEHOLDER = re.compile(
    r"(?://|#|/\*|<!--|--|\*)\s*(?:\.\.\.|…)?\s*\(?\s*(?:rest of (?:the )?(?:code|file|implementation|function|class|"
    r"module|content)|existing (?:code|content|implementation)|(?:code|content|everything) (?:remains |stays )?"
    r"(?:unchanged|the same)|unchanged (?:code|content)|same as (?:before|above))",
    re.IGNORECASE,
)


@functools.cache
def _new_file_mode() -> int:
    """0o666 minus the umask, read without changing it (``os.umask`` is process-wide and racy)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _placeholder_line(content: str) -> tuple[int, str] | None:
    for number, line in enumerate(content.split("\n"), start=1):
        if _PLACEHOLDER.search(line):
            return number, line.strip()
    return None


class WriteArgs(BaseModel):
    path: str = Field(min_length=1, description="File to create or replace, relative to the workspace.")
    content: str = Field(description="The complete new content of the file.")


class WriteTool(Tool[WriteArgs]):
    name = "write"
    description = (
        "Create a file, or replace an existing file's whole content (read it first). Parent directories are "
        "created. To change part of a file use edit instead. content is the whole new file, exactly as it "
        "should be saved."
    )
    Args = WriteArgs
    tier = "write"

    def summary(self, args: WriteArgs) -> str:
        return f"{args.path} ({counted(len(args.content.splitlines()), 'line')})"

    def changes(self, args: WriteArgs, ctx: ToolContext) -> list[str]:
        return [args.path]

    def preview(self, args: WriteArgs, ctx: ToolContext) -> str | None:
        """What the approval shows: the diff when it replaces a text file (what changes), else the new content."""
        found = self._text_before(args.path, ctx)
        if found is not None:
            shown, before = found
            diff = unified_diff(before, args.content.replace("\r\n", "\n"), shown)
            return clip_diff(diff) if diff else "(the same content: the file does not change)"
        lines = args.content.splitlines()
        head = "\n".join(lines[:40])
        return head + (f"\n[... {len(lines) - 40} more lines]" if len(lines) > 40 else "")

    @staticmethod
    def _text_before(path_arg: str, ctx: ToolContext) -> tuple[str, str] | None:
        """(the path as shown, the text) of the file the write would replace; ``None`` for a new, binary, large
        or unreadable one."""
        try:
            path = ctx.workspace.confine(path_arg, action="write")
            shown = ctx.workspace.display(path)
            if not path.is_file() or require_regular(path, shown) > PREVIEW_DIFF_BYTES:
                return None
            return shown, decode_for_edit(path.read_bytes(), shown).text.replace("\r\n", "\n")
        except (ToolError, OSError):
            return None

    async def run(self, args: WriteArgs, ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(self._write, args, ctx)

    def _write(self, args: WriteArgs, ctx: ToolContext) -> ToolResult:
        path = ctx.workspace.confine(args.path, action="write")
        shown = ctx.workspace.display(path)
        _require_workspace(path, ctx)
        if path.is_dir():
            raise ToolError(f"{shown} is a directory; give a file path")
        exists = path.exists()
        blind = False
        before = ""
        content = args.content
        bom = b""
        old_bytes = b""
        if exists:
            require_regular(path, shown)
            ctx.file_state.ensure_fresh(path, shown, require_seen=True)
            old_bytes = path.read_bytes()
            blind = ctx.file_state.check_whole(path, shown, args.content.encode("utf-8", "surrogatepass"))
            try:
                old = decode_for_edit(old_bytes, shown)
            except ToolError:
                old = None  # a binary or non-UTF-8 file is simply replaced
            if old is not None:
                before = old.text
                if old.crlf and "\r" not in content:
                    content = content.replace("\n", "\r\n")
                if old.bom and not content.startswith("\ufeff"):
                    bom = UTF8_BOM
        _refuse_replacement_characters(content, old_bytes, shown)
        try:
            data = bom + encode_file_text(content)  # a byte held as U+DC80+byte goes back as that byte
        except NotEncodable as exc:
            raise ToolError(f"Not written: {exc}. Leave it out of {shown}'s content.") from None
        try:
            atomic_write_bytes(path, data, mode=None if exists else _new_file_mode(), inside=ctx.workspace.roots)
        except OSError as exc:
            raise ToolError(f"Could not write {shown}: {write_error_text(exc)}") from exc
        ctx.file_state.record(path, data)
        after = content.replace("\r\n", "\n")
        diff = unified_diff(before, after, shown)
        added, removed = diff_stats(diff)
        line_count = len(after.splitlines())
        if exists:
            text = (
                f"Replaced {shown}: {counted(line_count, 'line')} ({human_size(len(data))}), +{added} -{removed} lines."
            )
        else:
            text = f"Created {shown}: {counted(line_count, 'line')} ({human_size(len(data))})."
        placeholder = _placeholder_line(after) if exists else None
        if placeholder:
            text += (
                f"\nWarning: line {placeholder[0]} looks like a placeholder ({placeholder[1][:80]!r}). write replaces "
                "the whole file, so any code it stands for is now gone; restore it if that was not intended."
            )
        if exists and blind:
            text += f"\nWarning: you had seen only part of {shown}; the lines you had not seen are replaced too."
        dropped = dropped_note(ctx.cwd, path, before, after, ctx.later_writes, ctx.moves) if exists else None
        for note in (
            dropped,
            shadowed_note(ctx.cwd, path, after),
            unresolved_note(ctx.cwd, path, after, ctx.later_writes),
        ):
            if note:
                text += "\n" + note
        details = {"path": str(path), "diff": diff, "created": not exists, "added": added, "removed": removed}
        return ToolResult(text, details=details)


def _require_workspace(path: Path, ctx: ToolContext) -> None:
    """Parent folders are created, but never the workspace itself: gone, it was deleted or moved away."""
    for root in ctx.workspace.roots:
        if path.is_relative_to(root) and not root.is_dir():
            raise ToolError(
                f"The workspace {root} no longer exists (deleted or moved while navtui ran); nothing was written. "
                "Tell the user: navtui has to be started again in an existing directory."
            )


def _refuse_replacement_characters(content: str, old: bytes, shown: str) -> None:
    """U+FFFD is what a byte that is not UTF-8 became on its way to the model (a Latin-1 file read, say); writing
    it would replace those bytes for good. Only as many as the file already holds are let through."""
    count = content.count(REPLACEMENT)
    if count and count > old.count(REPLACEMENT.encode("utf-8")):
        raise ToolError(
            f"Not written: the content holds {count} U+FFFD (\ufffd) replacement character(s). They stand for bytes "
            f"that are not UTF-8 in what you read (e.g. a Latin-1 file): writing them would replace those bytes in "
            f"{shown} for good. Convert the source to UTF-8 first (shell: iconv -f latin1 -t utf-8) and read it "
            "again, or leave those characters out."
        )
