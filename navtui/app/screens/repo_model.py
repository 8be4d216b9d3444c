"""The modal for one repository model choice (``app/repo_models.py`` asks each and acts on the answer).

It asks before a repository's settings move the conversation to another provider or endpoint.

a: use it, remembered for this repository · n: keep mine, remembered · esc: keep mine for now (asked again at the
next start). Keys in the first ``GRACE`` seconds are ignored, as in the tool approval modal.
"""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from navtui.app.screens.approval import AnswerModal
from navtui.config.project_rules import HeldModel
from navtui.core.display import display_safe
from navtui.styles import stylesheet

Answer = Literal["allow", "deny", "later"]


class RepoModelScreen(AnswerModal[Answer]):
    BINDINGS = [
        Binding("a", "answer('allow')", "Use it", show=False),
        Binding("n", "answer('deny')", "Keep mine", show=False),
        Binding("escape", "answer('later')", "Later", show=False),
    ]
    CSS_PATH = stylesheet("approval")

    def __init__(self, held: HeldModel) -> None:
        super().__init__()
        self.held = held

    def compose(self) -> ComposeResult:
        held = self.held
        (provider, url), (user_provider, user_url) = held.endpoint, held.user_endpoint
        with Vertical(id="approval") as box:
            box.border_title = Text(f"Send this repository's work to {provider}?")  # Text: a title string is markup
            box.border_subtitle = "a use it (this repository) · n keep mine · esc not now"
            # The value and the file come from the repository, untrusted: markup off, controls made visible.
            reason = f"{held.source} sets {held.path}. navtui keeps your endpoint until you answer."
            yield Static(Text(display_safe(reason)), id="approval-reason")
            summary = f"{held.value} on {provider} at {url}\ninstead of {user_provider} at {user_url}"
            yield Static(Text(display_safe(summary)), id="approval-summary")

    def action_answer(self, answer: Answer) -> None:
        if not self._too_soon():
            self.dismiss(answer)
