"""The approval modal: which tool, why it asks, the command or the diff; y / a / n.

Keys pressed in the first ``GRACE`` seconds are ignored, so a keystroke typed into the prompt just before
the modal appeared cannot answer it (``AnswerModal``, the MCP server modal's base too).
"""

from __future__ import annotations

import time
from typing import TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from navtui.core.display import display_safe
from navtui.styles import stylesheet
from navtui.tools.approval import ApprovalRequest, ApprovalResponse
from navtui.widgets.card_styles import card_styles
from navtui.widgets.diff_view import render_diff

AnswerT = TypeVar("AnswerT")


class AnswerModal(ModalScreen[AnswerT]):
    """A modal answered by single keys, deaf to them for its first ``GRACE`` seconds."""

    GRACE = 0.3

    def __init__(self) -> None:
        super().__init__()
        self._opened = time.monotonic()

    def on_mount(self) -> None:  # Textual calls each class's on_mount: a subclass's own runs as well
        self._opened = time.monotonic()

    def _too_soon(self) -> bool:
        return time.monotonic() - self._opened < self.GRACE


def _looks_like_diff(text: str) -> bool:
    lines = text.split("\n", 3)
    return any(line.startswith(("--- ", "+++ ", "@@")) for line in lines)


def _repeats(summary: str, preview: str | None) -> bool:
    """Whether ``preview`` quotes all of ``summary``: a shell command's ``$ command`` (its summary is the
    command's first line, `` …`` when it goes on)."""
    if not preview:
        return False
    said = summary.strip().removesuffix("…").strip()
    return bool(said) and preview.strip().removeprefix("$ ").startswith(said)


class ApprovalScreen(AnswerModal[ApprovalResponse]):
    # While the reason field has focus it takes the letters; Esc still reaches the screen.
    BINDINGS = [
        Binding("y", "allow(False)", "Allow once", show=False),
        Binding("a", "allow(True)", "Allow always", show=False),
        Binding("p", "allow_rule", "Allow this command's rule", show=False),
        Binding("n", "ask_reason", "Deny", show=False),
        Binding("escape", "deny", "Deny", show=False),
        Binding("ctrl+c", "interrupt", "Stop the turn", show=False),
    ]
    CSS_PATH = stylesheet("approval")
    # Only the preview may take the focus when the dialog opens (to scroll it). Textual's default focuses the
    # first focusable widget, hidden or not: for a request with no preview, the reason field, which took the y
    # as a reason (Esc then denied with it).
    AUTO_FOCUS = "#approval-preview"

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request
        self.interrupted = False  # ctrl+c: the call is denied and the turn stops (app/approver.py)

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval") as box:
            title = request.title or f"Allow {display_safe(request.tool)}?"
            box.border_title = Text(title)  # Text: a title string is markup
            box.border_subtitle = "y once · a always (this session) · n deny · esc deny"
            if request.rule:
                box.border_subtitle = f"y once · a always · p {display_safe(request.rule)} (saved) · n deny"
            if request.keep_change:
                box.border_subtitle = "y keep the change · n leave it undone · esc leave it undone"
            # Everything below quotes the model's arguments: plain text, controls made visible.
            yield Static(Text(display_safe(request.reason or "needs your approval")), id="approval-reason")
            summary = Static(Text(display_safe(request.summary)), id="approval-summary")
            summary.display = not _repeats(request.summary, request.preview)  # a command: its preview says it all
            yield summary
            if request.preview and request.preview.strip() != request.summary.strip():
                with VerticalScroll(id="approval-preview"):
                    yield Static(self._preview(request.preview), id="approval-preview-text")
            why = Input(placeholder="reason for the model (optional) · Enter denies", id="approval-why")
            why.display = False  # until n
            yield why

    def _preview(self, preview: str) -> Text:
        if not _looks_like_diff(preview):
            return Text(display_safe(preview))
        styles = card_styles(self.app.theme_variables).diff  # the colours of the diff in an edit's tool card
        return render_diff(preview.rstrip("\n").split("\n"), styles)

    def action_allow(self, always: bool) -> None:
        if self.request.keep_change and always:
            return  # a: there is nothing to allow for the session, only this change to keep
        if not self._too_soon():
            self.dismiss(ApprovalResponse(approved=True, always=always))

    def action_allow_rule(self) -> None:
        """p: allow every command the offered rule covers, from now on (the app saves it in tools.allow)."""
        if self.request.rule and not self._too_soon():
            self.dismiss(ApprovalResponse(approved=True, rule=self.request.rule))

    def action_ask_reason(self) -> None:
        """n: deny, after an optional reason for the model (Enter or Esc sends it)."""
        if not self._too_soon():
            reason = self.query_one("#approval-why", Input)
            reason.display = True
            reason.focus()

    def action_deny(self) -> None:
        if not self._too_soon():
            reason = self.query_one("#approval-why", Input).value.strip()
            self.dismiss(ApprovalResponse(approved=False, reason=reason or None))

    def action_interrupt(self) -> None:
        """ctrl+c, as at the prompt: the turn stops (the call denied). No grace: a ctrl+c meant for the prompt
        asks the same."""
        self.interrupted = True
        self.dismiss(ApprovalResponse(approved=False))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(ApprovalResponse(approved=False, reason=event.value.strip() or None))
