"""A tool call as a card: a title line with the key arguments, then its output, result or diff.

Pending cards show a spinner and the tail of the streamed output; finished ones turn green or red. Output
collapses to a short preview (errors and diffs open by default); a click on the card or ctrl+o (all cards)
toggles it. Everything shown is tool or model output, so it is rendered as ``Text`` (markup off) and passed
through ``display_safe`` (escape sequences shown, never interpreted).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import events
from textual.widget import Widget

from navtui.core.display import display_safe
from navtui.tools.files.diff import diff_stats
from navtui.widgets.card_styles import CardStyles, card_styles
from navtui.widgets.coalesce import Coalescer
from navtui.widgets.diff_view import render_diff
from navtui.widgets.items import ToolItem
from navtui.widgets.spinner import frame

RUNNING_TAIL = 6  # output lines shown while a tool runs
PREVIEW_LINES = 6  # lines shown by a collapsed card
DIFF_PREVIEW_LINES = 24  # a collapsed diff shows more: it is what the user wants to check
MAX_LINES = 400  # an expanded card stops here (the full output is in the model's context / artifacts)
KEEP_OUTPUT = 200  # streamed lines kept per card


class ToolCard(Widget):
    """One tool call. Call ``append_output`` while it runs and ``finish`` with its result."""

    def __init__(self, item: ToolItem, *, spinner_index: int | None = None) -> None:
        super().__init__(classes=f"-{item.status}")
        self.item = item
        self.spinner_index = spinner_index
        self._tail: deque[str] = deque(item.output[-KEEP_OUTPUT:], maxlen=KEEP_OUTPUT)
        self._partial = ""  # an output line still being written
        self._body: RenderableType | None = None  # cached: rebuilt only when the content or the theme changes
        self._body_theme: object = None  # the theme variables the cached body was styled with
        self._output = Coalescer(self, self._apply_output, 0.05)

    # ------------------------------------------------------------------ state
    @property
    def expanded(self) -> bool:
        item = self.item
        if item.expanded is not None:
            return item.expanded
        return item.status == "error" or bool(item.diff)

    def set_expanded(self, expanded: bool | None) -> None:
        self.item.expanded = expanded
        self._changed()

    def toggle(self) -> None:
        self.set_expanded(not self.expanded)

    def tick(self, index: int | None) -> None:
        """Advance the spinner (no layout: the height does not change)."""
        self.spinner_index = index
        if self.item.status == "pending":
            self.refresh()

    def append_output(self, text: str) -> None:
        self._output.add(text)

    def _apply_output(self, text: str) -> None:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        self._tail.extend(lines)
        self.item.output_lines += len(lines)
        self.item.output = list(self._tail)
        self._changed()

    def finish(self, result: str, *, is_error: bool, details: dict[str, Any] | None = None) -> None:
        self._output.flush_now()
        item = self.item
        item.status = "error" if is_error else "success"
        item.result = result
        item.details = details
        diff = (details or {}).get("diff")
        item.diff = diff if isinstance(diff, str) and diff.strip() else None
        self.set_class(False, "-pending")
        self.set_class(is_error, "-error")
        self.set_class(not is_error, "-success")
        self._changed()

    def _changed(self) -> None:
        self._body = None
        self.refresh(layout=True)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()

    # ------------------------------------------------------------------ rendering
    def render(self) -> RenderableType:
        variables = self.app.theme_variables
        if self._body is None or variables is not self._body_theme:  # a live theme switch repaints the output too
            self._body_theme = variables
            self._body = self._render_body()
        return Group(self._title(), self._body) if self._body else self._title()

    def _styles(self) -> CardStyles:
        return card_styles(self.app.theme_variables)

    def _title(self) -> Text:
        item = self.item
        status = item.status
        icon = {"pending": frame(self.spinner_index), "success": "✓", "error": "✗"}[status]
        styles = self._styles()
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(icon + " ", styles.icon[status])
        title.append(display_safe(item.name), styles.title)
        if item.title:
            title.append("  " + display_safe(item.title.replace("\n", " ")), styles.args)
        if item.diff:
            added, removed = diff_stats(item.diff)
            title.append(f"  +{added}", styles.diff.added)
            title.append(f" -{removed}", styles.diff.removed)
        return title

    def _render_body(self) -> RenderableType | None:
        item = self.item
        if item.status == "pending":
            lines = list(self._tail)[-RUNNING_TAIL:]
            if self._partial:
                lines = (lines + [self._partial])[-RUNNING_TAIL:]
            return self._lines(lines, hidden=0, clip=True) if lines else None
        expanded = self.expanded
        if item.diff:
            lines = item.diff.rstrip("\n").split("\n")
            limit = MAX_LINES if expanded else DIFF_PREVIEW_LINES
            shown = lines[:limit]
            body = render_diff(shown, self._styles().diff)
            return self._with_hint(body, len(lines) - len(shown))
        text = item.result.rstrip("\n")
        if not text:
            return None
        lines = text.split("\n")
        if expanded:
            return self._lines(lines[:MAX_LINES], hidden=len(lines) - min(len(lines), MAX_LINES), clip=False)
        if item.status == "error":
            shown = lines[:PREVIEW_LINES]
            return self._lines(shown, hidden=len(lines) - len(shown), clip=True)
        # Success, collapsed: a command's last lines (a test summary), nothing of a file read, else the first lines.
        if item.name in ("shell", "shell_status"):
            shown = lines[-PREVIEW_LINES:]
            return self._lines(shown, hidden=len(lines) - len(shown), clip=True, before=True)
        shown = [] if item.name == "read" else lines[: PREVIEW_LINES // 2]
        return self._lines(shown, hidden=len(lines) - len(shown), clip=True)

    def _lines(self, lines: list[str], *, hidden: int, clip: bool, before: bool = False) -> RenderableType | None:
        style = self._styles().output
        body = Text(no_wrap=clip, overflow="ellipsis" if clip else "fold")
        for index, line in enumerate(lines):
            if index:
                body.append("\n")
            body.append(display_safe(line), style)
        if not hidden:
            return body if lines else None
        if before or not lines:
            word = "earlier " if lines else ""
            hint = Text(f"… {hidden} {word}line{'s' * (hidden != 1)} · click or ctrl+o to show", self._styles().hint)
            return Group(hint, body) if lines else hint
        return self._with_hint(body, hidden)

    def _with_hint(self, body: Text, hidden: int) -> RenderableType:
        if hidden <= 0:
            return body
        hint = "ctrl+o to show all" if not self.expanded else "shown up to here"
        return Group(body, Text(f"… {hidden} more line{'s' * (hidden != 1)} · {hint}", self._styles().hint))
