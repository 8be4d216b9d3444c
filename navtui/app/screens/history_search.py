"""ctrl+r: search the prompts sent before (the prompt history, newest first), as in a shell and Claude Code.

Typing filters (every word, in any case); ↑↓ choose; Enter puts the prompt chosen in the prompt; Esc leaves the
prompt as it was. Dismisses with the text chosen, or ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList

from navtui.core.display import display_safe
from navtui.styles import stylesheet

SHOWN = 200  # matches listed (the newest)


class HistorySearchScreen(ModalScreen[str | None]):
    CSS_PATH = stylesheet("history_search")
    BINDINGS = [
        Binding("escape", "close", "Close", show=False),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("enter", "choose", show=False, priority=True),
    ]
    AUTO_FOCUS = "#history-query"

    def __init__(self, entries: Sequence[str]) -> None:
        super().__init__()
        self.entries = list(dict.fromkeys(reversed(entries)))  # newest first, each prompt once
        self.matches: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="history-box") as box:
            box.border_title = "Search your prompts"
            box.border_subtitle = "↑↓ choose · enter use · esc cancel"
            yield Input(placeholder="words of a prompt you sent", id="history-query", compact=True)
            yield OptionList(id="history-list", compact=True)

    def on_mount(self) -> None:
        self._fill("")

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill(event.value)

    def _fill(self, query: str) -> None:
        words = query.lower().split()
        self.matches = [text for text in self.entries if all(word in text.lower() for word in words)][:SHOWN]
        options = self.query_one(OptionList)
        options.clear_options()
        # Prompts the user typed, or pasted: one line each, never markup, escapes made visible.
        options.add_options([Text(display_safe(" ⏎ ".join(text.split("\n"))), no_wrap=True) for text in self.matches])
        options.highlighted = 0 if self.matches else None
        self.query_one(
            "#history-box"
        ).border_subtitle = f"{len(self.matches)} of {len(self.entries)} · ↑↓ choose · enter use · esc cancel"

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if self.matches:
            current = options.highlighted if options.highlighted is not None else 0
            options.highlighted = max(0, min(len(self.matches) - 1, current + step))

    def action_choose(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None and highlighted < len(self.matches):
            self.dismiss(self.matches[highlighted])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.matches[event.option_index])

    def action_close(self) -> None:
        self.dismiss(None)
