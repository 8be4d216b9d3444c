"""edit: replace exact text in a file (one change or a batch, all or nothing) and show the diff."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, model_validator

from navtui.core.errors import ToolError
from navtui.core.fs import atomic_write_bytes, write_error_text
from navtui.core.wording import counted
from navtui.tools.base import Tool, ToolContext, ToolResult
from navtui.tools.files.diff import clip_diff, diff_stats, unified_diff
from navtui.tools.files.dropped import dropped_note, shadowed_note, unresolved_note
from navtui.tools.files.textfile import TextContent, decode_for_edit, encode_text, require_regular
from navtui.tools.shell.output import human_size

if TYPE_CHECKING:
    from navtui.tools.files.editmatch import Applied

MAX_EDIT_BYTES = 20 * 1024 * 1024


class EditItem(BaseModel):
    old_text: str = Field(description="Exact text to find (copy it from read output, without line numbers).")
    new_text: str = Field(description="Replacement text (empty string deletes old_text).")
    replace_all: bool = Field(False, description="Replace every occurrence instead of requiring exactly one.")


class EditArgs(BaseModel):
    path: str = Field(min_length=1, description="File to edit, relative to the workspace.")
    old_text: str | None = Field(None, description="Exact text to find; it must occur exactly once.")
    new_text: str | None = Field(None, description="Replacement text (empty string deletes old_text).")
    replace_all: bool = Field(False, description="Replace every occurrence of old_text.")
    edits: list[EditItem] | None = Field(
        None, description="Several changes to the same file, applied in order; if one fails, none is applied."
    )

    @model_validator(mode="after")
    def _one_form(self) -> EditArgs:
        if self.edits is not None:
            if self.old_text is not None or self.new_text is not None:
                raise ValueError("give either old_text/new_text or edits, not both")
            if not self.edits:
                raise ValueError("edits is empty")
            return self
        missing = [name for name in ("old_text", "new_text") if getattr(self, name) is None]
        if missing:
            raise ValueError(f"missing {' and '.join(missing)} (or pass edits: [{{old_text, new_text}}, ...])")
        return self

    def items(self) -> list[EditItem]:
        if self.edits is not None:
            return self.edits
        assert self.old_text is not None and self.new_text is not None
        return [EditItem(old_text=self.old_text, new_text=self.new_text, replace_all=self.replace_all)]


@dataclass
class _Plan:
    path: Path
    shown: str
    content: TextContent
    after: str
    applied: list[Applied]
    diff: str


class EditTool(Tool[EditArgs]):
    name = "edit"
    description = (
        "Replace exact text in an existing file. old_text must match the file exactly once (copy it from read "
        "output, without line numbers, with a few lines of context to make it unique). For several changes to one "
        "file pass edits: a list of objects with old_text and new_text. Returns the diff."
    )
    Args = EditArgs
    tier = "write"

    def summary(self, args: EditArgs) -> str:
        count = len(args.edits) if args.edits is not None else 1
        return f"{args.path} ({count} edits)" if count > 1 else args.path

    def changes(self, args: EditArgs, ctx: ToolContext) -> list[str]:
        return [args.path]

    def preview(self, args: EditArgs, ctx: ToolContext) -> str | None:
        try:
            return clip_diff(self._plan(args, ctx).diff)
        except ToolError as exc:  # asked all the same (denying tells the model); the user sees it cannot apply
            return f"This edit cannot be applied as it is: {exc.message}"

    def _plan(self, args: EditArgs, ctx: ToolContext) -> _Plan:
        path = ctx.workspace.confine(args.path, action="edit")
        shown = ctx.workspace.display(path)
        try:
            size = require_regular(path, shown)
        except ToolError as exc:
            if not path.exists():
                raise ToolError(f"File not found: {shown}. To create a new file use write.") from exc
            raise
        if size > MAX_EDIT_BYTES:
            raise ToolError(f"{shown} is {human_size(size)}, too large to edit safely; change it with shell")
        ctx.file_state.ensure_fresh(path, shown)
        content = decode_for_edit(path.read_bytes(), shown)
        text = content.text
        items = args.items()
        from navtui.tools.files.editmatch import apply_edit  # with the first edit: its tolerant matching, ~40 KB

        applied: list[Applied] = []
        for number, item in enumerate(items, start=1):
            old, new = item.old_text, item.new_text
            if content.crlf:
                old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
            try:
                result = apply_edit(text, old, new, replace_all=item.replace_all, shown=shown)
            except ToolError as exc:
                if len(items) > 1:
                    raise ToolError(
                        f"Edit {number} of {len(items)} failed, so none was applied: {exc.message}"
                    ) from exc
                raise
            applied.append(result)
            text = result.text
        if text == content.text:
            raise ToolError(f"The edit leaves {shown} unchanged.")
        return _Plan(path, shown, content, text, applied, unified_diff(content.text, text, shown))

    async def run(self, args: EditArgs, ctx: ToolContext) -> ToolResult:
        # Off the event loop: a 20 MB file takes long enough to stall a UI.
        return await asyncio.to_thread(self._apply, args, ctx)

    def _apply(self, args: EditArgs, ctx: ToolContext) -> ToolResult:
        plan = self._plan(args, ctx)
        data = encode_text(plan.content, plan.after)
        try:
            atomic_write_bytes(plan.path, data, inside=ctx.workspace.roots)
        except OSError as exc:
            raise ToolError(f"Could not write {plan.shown}: {write_error_text(exc)}; the file is unchanged") from exc
        ctx.file_state.record(plan.path, data)
        added, removed = diff_stats(plan.diff)
        replacements = sum(a.count for a in plan.applied)
        lines = [f"Edited {plan.shown}: {counted(replacements, 'replacement')}, +{added} -{removed} lines."]
        for number, applied in enumerate(plan.applied, start=1):
            if applied.fuzzy:
                which = f"edit {number}" if len(plan.applied) > 1 else "old_text"
                lines.append(f"Note: {which} matched only {applied.fuzzy} (at line {applied.first_line}).")
        dropped = dropped_note(ctx.cwd, plan.path, plan.content.text, plan.after, ctx.later_writes, ctx.moves)
        unresolved = unresolved_note(ctx.cwd, plan.path, plan.after, ctx.later_writes)
        lines.extend(note for note in (dropped, shadowed_note(ctx.cwd, plan.path, plan.after), unresolved) if note)
        lines.append(clip_diff(plan.diff))
        details = {
            "path": str(plan.path),
            "diff": plan.diff,
            "added": added,
            "removed": removed,
            "replacements": replacements,
            "first_changed_line": min(a.first_line for a in plan.applied),
            "fuzzy": [a.fuzzy for a in plan.applied if a.fuzzy],
        }
        return ToolResult("\n".join(lines), details=details)
