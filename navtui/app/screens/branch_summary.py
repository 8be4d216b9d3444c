"""The small dialog asked after picking a tree entry: summarise the branch being left, or not.

Dismisses with a ``SummaryChoice`` or ``None`` (Esc: back to the tree, nothing moves).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option


@dataclass(frozen=True)
class SummaryChoice:
    summarize: bool
    instructions: str | None = None


class BranchSummaryScreen(ModalScreen[SummaryChoice | None]):
    DEFAULT_CSS = """
    BranchSummaryScreen {
        align: center middle;
    }
    BranchSummaryScreen > #summary-box {
        width: 64;
        height: auto;
        padding: 0 1;
        border: round $nav-border-accent;
        border-title-color: $nav-accent;
        border-subtitle-color: $nav-muted;
        background: $surface;
    }
    BranchSummaryScreen #summary-about {
        color: $nav-muted;
        padding: 0 0 1 0;
    }
    BranchSummaryScreen #summary-options {
        height: auto;
        border: none;
        padding: 0;
        background: transparent;
    }
    BranchSummaryScreen #summary-instructions {
        display: none;
        margin: 1 0 0 0;
    }
    BranchSummaryScreen #summary-instructions.asking {
        display: block;
    }
    """

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
            field = self.query_one("#summary-instructions", Input)
            field.add_class("asking")
            field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(SummaryChoice(True, event.value.strip() or None))

    def action_cancel(self) -> None:
        field = self.query_one("#summary-instructions", Input)
        if field.has_class("asking"):
            field.remove_class("asking")
            self.query_one(OptionList).focus()
        else:
            self.dismiss(None)


class SummaryProgressScreen(ModalScreen[None]):
    """Shown while the model writes the summary; Esc dismisses it, and the caller then cancels the request."""

    DEFAULT_CSS = """
    SummaryProgressScreen {
        align: center middle;
    }
    SummaryProgressScreen > #summary-progress {
        width: 64;
        height: auto;
        padding: 1 2;
        border: round $nav-border-accent;
        border-subtitle-color: $nav-muted;
        background: $surface;
        color: $nav-text;
    }
    """

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
