"""A scrollable read-only view of a long text (the advisor's transcript)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from navtui.core.display import display_safe
from navtui.styles import stylesheet


class TextViewScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "close", "Close", show=False)]
    CSS_PATH = stylesheet("text_view")

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="text-view") as box:
            box.border_title = Text(display_safe(self.title_text))
            box.border_subtitle = "esc to close"
            yield Static(Text(display_safe(self.text)))  # model output: never markup, escapes made visible

    def action_close(self) -> None:
        self.dismiss(None)
