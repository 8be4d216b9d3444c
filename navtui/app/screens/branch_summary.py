"""The small dialog asked after picking a tree entry: summarise the branch being left, or not.

Dismisses with a ``SummaryChoice`` or ``None`` (Esc: back to the tree, nothing moves).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from navtui.styles import stylesheet


@dataclass(frozen=True)
class SummaryChoice:
    summarize: bool
    instructions: str | None = None


class BranchSummaryScreen(ModalScreen[SummaryChoice | None]):
    CSS_PATH = stylesheet("branch_summary")
    asking: var[bool] = var(False, toggle_class="-asking")  # the instructions field is open

    BINDINGS = [Binding("escape", "cancel", "Back to the tree", show=False)]

    def __init__(self, abandoned_count: int) -> None:
        super().__init__()
        self.abandoned_count = abandoned_count

    def compose(self) -> ComposeResult:
        with Vertical(id="summary-box") as box:
            box.border_title = "Summarize the branch you are leaving?"
            box.border_subtitle = "enter choose · esc back to the tree"
            entries = "entry" if self.abandoned_count == 1 else "entries"
            yield Static(
                f"{self.abandoned_count} {entries} stay behind on the old branch. A summary written by the model "
                "keeps what they found in the context.",
                id="summary-about",
            )
            yield OptionList(
                Option("No summary", id="none"),
                Option("Summarize", id="summarize"),
                Option("Summarize with instructions…", id="instructions"),
                id="summary-options",
            )
            yield Input(placeholder="What should the summary focus on?", id="summary-instructions")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == "none":
            self.dismiss(SummaryChoice(False))
        elif event.option.id == "summarize":
            self.dismiss(SummaryChoice(True))
        else:
            self.asking = True
            self.query_one("#summary-instructions", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(SummaryChoice(True, event.value.strip() or None))

    def action_cancel(self) -> None:
        if self.asking:
            self.asking = False
            self.query_one(OptionList).focus()
        else:
            self.dismiss(None)


class SummaryProgressScreen(ModalScreen[None]):
    """Shown while the model writes the summary; Esc dismisses it, and the caller then cancels the request."""

    CSS_PATH = stylesheet("branch_summary")

    BINDINGS = [Binding("escape", "cancel", "Cancel the summary", show=False)]

    def compose(self) -> ComposeResult:
        box = Static(
            "The model is summarizing the branch you are leaving…\nNothing moves until it is done.",
            id="summary-progress",
        )
        box.border_subtitle = "esc cancels"
        yield box

    def action_cancel(self) -> None:
        self.dismiss(None)
