"""The approval modal: which tool, why it asks, the command or the diff; y / a / n.

Keys pressed in the first ``GRACE`` seconds are ignored, so a keystroke typed into the prompt just before
the modal appeared cannot answer it.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from navtui.core.display import display_safe
from navtui.tools.approval import ApprovalRequest, ApprovalResponse
from navtui.widgets.diff_view import DiffStyles, render_diff


def _looks_like_diff(text: str) -> bool:
    lines = text.split("\n", 3)
    return any(line.startswith(("--- ", "+++ ", "@@")) for line in lines)


class ApprovalScreen(ModalScreen[ApprovalResponse]):
    GRACE = 0.3

    COMPONENT_CLASSES = {
        "approval--diff-added",
        "approval--diff-removed",
        "approval--diff-hunk",
        "approval--diff-header",
        "approval--diff-context",
    }

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        self._opened = time.monotonic()

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval") as box:
            box.border_title = Text(f"Allow {display_safe(request.tool)}?")  # Text: a title string is markup
            box.border_subtitle = "y once · a always (this session) · n deny · esc deny"
            # Everything below quotes the model's arguments: plain text, controls made visible.
            yield Static(Text(display_safe(request.reason or "needs your approval")), id="approval-reason")
            yield Static(Text(display_safe(request.summary)), id="approval-summary")
            if request.preview and request.preview.strip() != request.summary.strip():
                with VerticalScroll(id="approval-preview"):
                    yield Static(self._preview(request.preview), id="approval-preview-text")
            yield Input(placeholder="reason for the model (optional) · Enter denies", id="approval-why")

    def _preview(self, preview: str) -> Text:
        if not _looks_like_diff(preview):
            return Text(display_safe(preview))
        styles = DiffStyles(
            *(
                self.get_component_rich_style(f"approval--diff-{kind}", partial=True)
                for kind in ("added", "removed", "hunk", "header", "context")
            )
        )
        return render_diff(preview.rstrip("\n").split("\n"), styles)

    def on_mount(self) -> None:
        self._opened = time.monotonic()
        self.query_one("#approval-why", Input).display = False

    def on_key(self, event: events.Key) -> None:
        reason = self.query_one("#approval-why", Input)
        if reason.display and event.key != "escape":
            return  # typing the reason
        event.stop()
        event.prevent_default()
        if time.monotonic() - self._opened < self.GRACE:
            return
        key = event.key
        if key == "y":
            self.dismiss(ApprovalResponse(approved=True))
        elif key == "a":
            self.dismiss(ApprovalResponse(approved=True, always=True))
        elif key == "n":
            reason.display = True
            reason.focus()
        elif key == "escape":
            self.dismiss(ApprovalResponse(approved=False, reason=reason.value.strip() or None))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(ApprovalResponse(approved=False, reason=event.value.strip() or None))
