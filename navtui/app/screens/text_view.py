"""A scrollable read-only view of a long text (the advisor's transcript), or of a diff in the diff's colours (/diff)."""

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

    def __init__(self, title: str, text: str | list[str], *, diff: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.lines = text.split("\n") if isinstance(text, str) else text
        self.diff = diff

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="text-view") as box:
            box.border_title = Text(display_safe(self.title_text))
            box.border_subtitle = "esc to close"
            yield Static(self._body(), id="text-view-body")

    def _body(self) -> Text:
        if not self.diff:
            return Text(display_safe("\n".join(self.lines)))  # model output: never markup, escapes made visible
        from navtui.widgets.card_styles import card_styles
        from navtui.widgets.diff_view import render_diff

        return render_diff(self.lines, card_styles(self.app.theme_variables).diff)  # (display_safe per line)

    def action_close(self) -> None:
        self.dismiss(None)
