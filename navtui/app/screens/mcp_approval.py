"""Asking before a repository's MCP server runs: what it runs (or where it connects), from which file.

a: allow, remembered for this repository · y: this session only · n: deny, remembered · esc: not now (asked
again at the next start). Keys in the first ``GRACE`` seconds are ignored, as in the tool approval modal.
"""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from navtui.app.screens.approval import AnswerModal
from navtui.core.display import display_safe
from navtui.mcp.config import ServerSpec
from navtui.styles import stylesheet

Answer = Literal["always", "once", "deny", "later"]


class McpApprovalScreen(AnswerModal[Answer]):
    BINDINGS = [
        Binding("a", "answer('always')", "Allow always", show=False),
        Binding("y", "answer('once')", "Allow this session", show=False),
        Binding("n", "answer('deny')", "Deny", show=False),
        Binding("escape", "answer('later')", "Later", show=False),
    ]
    CSS_PATH = stylesheet("approval")

    def __init__(self, spec: ServerSpec) -> None:
        super().__init__()
        self.spec = spec

    def compose(self) -> ComposeResult:
        spec = self.spec
        with Vertical(id="approval") as box:
            box.border_title = Text(f"Start the MCP server '{spec.name}'?")  # Text: a title string is markup
            box.border_subtitle = "a always (this repository) · y this session · n deny · esc later"
            # The entry comes from the repository, untrusted: shown with markup off and controls made visible.
            reason = f"{spec.path} asks navtui to run this server; its tools would be offered to the model."
            yield Static(Text(display_safe(reason)), id="approval-reason")
            verb = "connects to" if spec.config.url else "runs"
            yield Static(Text(display_safe(f"{verb} {spec.target}")), id="approval-summary")
            details = self._details()
            if details:
                with VerticalScroll(id="approval-preview"):
                    yield Static(Text(display_safe(details)), id="approval-preview-text")

    def _details(self) -> str:
        config = self.spec.config
        lines = [f"cwd: {config.cwd}"] if config.cwd else []
        lines += [f"env {name}={value}" for name, value in config.env.items()]  # as written: ${VAR} unexpanded
        lines += [f"header {name}: {value}" for name, value in config.headers.items()]
        return "\n".join(lines)

    def action_answer(self, answer: Answer) -> None:
        if not self._too_soon():
            self.dismiss(answer)
