"""The two questions about files: ``/undo``'s (put back what the last turn changed?) and the tree's (this point's
code too?). Both list the files with what happened to each, mark the ones the user changed by hand since
(``!``: kept unless **o** says overwrite them), and show the diff on **d**.

``UndoScreen`` dismisses with a ``RestoreAnswer`` or ``None`` (Esc: nothing changes); ``RestoreCodeScreen``
with a ``RestoreAnswer`` whose ``choice`` is ``both``, ``conversation`` or ``code`` (``branch`` mode: ``code``
or ``conversation``), ``None`` on Esc.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.reactive import var
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from navtui.app.screens.approval import AnswerModal
from navtui.checkpoints.present import FileLine
from navtui.core.display import display_safe
from navtui.styles import stylesheet
from navtui.widgets.card_styles import card_styles
from navtui.widgets.diff_view import render_diff

Choice = Literal["both", "conversation", "code", "undo"]
MAX_ROWS = 40


@dataclass(frozen=True)
class RestoreAnswer:
    choice: Choice
    overwrite: bool = False  # also put back the files the user changed by hand since


def file_rows(lines: list[FileLine]) -> Text:
    """``  changed  calc.py`` rows; ``!`` marks a file changed by hand since the checkpoint."""
    text = Text()
    width = max((len(line.what) for line in lines[:MAX_ROWS]), default=0) + 2
    for line in lines[:MAX_ROWS]:
        text.append(" ! " if line.conflict else "   ", style="bold" if line.conflict else "")
        text.append(f"{line.what:<{width}}", style="dim")
        text.append(display_safe(line.path))  # a path the model chose: controls made visible
        if line.detail:
            text.append(f"  {display_safe(line.detail)}", style="dim")
        text.append("\n")
    if len(lines) > MAX_ROWS:
        text.append(f"   … and {len(lines) - MAX_ROWS} more\n", style="dim")
    text.rstrip()
    return text


class _FilesModal(AnswerModal[RestoreAnswer | None]):
    CSS_PATH = stylesheet("restore")
    DIFF_TITLE = "What changed:"
    overwrite: var[bool] = var(False)
    showing_diff: var[bool] = var(False, toggle_class="-diff")

    def __init__(self, lines: list[FileLine], diff: str) -> None:
        super().__init__()
        self.lines = lines
        self.diff = diff
        self.conflicts = [line.path for line in lines if line.conflict]

    def _files(self) -> ComposeResult:
        yield Static(file_rows(self.lines), id="restore-files")
        if self.conflicts:
            yield Static(id="restore-conflicts")
        with VerticalScroll(id="restore-diff"):
            yield Static(id="restore-diff-text")

    def watch_overwrite(self, overwrite: bool) -> None:
        if not self.conflicts:
            return
        names = ", ".join(display_safe(path) for path in self.conflicts[:5])
        more = f" and {len(self.conflicts) - 5} more" if len(self.conflicts) > 5 else ""
        one = len(self.conflicts) == 1
        if overwrite:
            fate = "it will be overwritten" if one else "they will be overwritten"
            said = f"! You changed {names}{more} since the checkpoint: {fate} (o: keep {'it' if one else 'them'})."
        else:
            fate = "it stays as you made it" if one else "they stay as you made them"
            said = f"! You changed {names}{more} since the checkpoint: {fate} (o: overwrite {'it' if one else 'them'} too)."
        self.query_one("#restore-conflicts", Static).update(Text(said))

    def on_mount(self) -> None:
        self.watch_overwrite(self.overwrite)

    def action_toggle_overwrite(self) -> None:
        if self.conflicts and not self._too_soon():
            self.overwrite = not self.overwrite

    def action_diff(self) -> None:
        if self.showing_diff:
            self.showing_diff = False
            return
        styles = card_styles(self.app.theme_variables).diff
        text = self.diff.rstrip("\n")
        body = Text(self.DIFF_TITLE + "\n", style="dim")
        body.append_text(render_diff(text.split("\n"), styles) if text else Text("No text differences."))
        self.query_one("#restore-diff-text", Static).update(body)
        self.showing_diff = True

    def action_cancel(self) -> None:
        self.dismiss(None)


class UndoScreen(_FilesModal):
    DIFF_TITLE = "What the turn did (undoing takes it back):"
    BINDINGS = [
        Binding("y", "undo", "Put them back", show=False),
        Binding("o", "toggle_overwrite", "Overwrite yours too", show=False),
        Binding("d", "diff", "Show the diff", show=False),
        Binding("escape,n", "cancel", "Keep the files", show=False),
    ]

    def __init__(self, lines: list[FileLine], diff: str, title: str = "Undo the last turn's changes?") -> None:
        super().__init__(lines, diff)
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="restore") as box:
            box.border_title = self.title_text
            box.border_subtitle = (
                "y put back · d diff · " + ("o overwrite yours · " if self.conflicts else "") + ("esc keep")
            )
            yield from self._files()

    def action_undo(self) -> None:
        if not self._too_soon():
            self.dismiss(RestoreAnswer("undo", self.overwrite))


class RestoreCodeScreen(_FilesModal):
    """After picking a point in the tree: the conversation, the code, or both."""

    DIFF_TITLE = "What changed since that point (its code takes it back):"

    BINDINGS = [
        Binding("o", "toggle_overwrite", "Overwrite yours too", show=False),
        Binding("d", "diff", "Show the diff", show=False),
        Binding("escape", "cancel", "Back", show=False),
    ]

    def __init__(self, lines: list[FileLine], diff: str, *, branch: bool = False) -> None:
        super().__init__(lines, diff)
        self.branch = branch

    def compose(self) -> ComposeResult:
        with Vertical(id="restore") as box:
            box.border_title = "The files changed since that point"
            box.border_subtitle = (
                "enter choose · d diff · " + ("o overwrite yours · " if self.conflicts else "") + ("esc back")
            )
            if self.branch:
                options = [
                    Option("Start the new session with that point's code", id="both"),
                    Option("Keep the files as they are", id="conversation"),
                ]
            else:
                options = [
                    Option("Conversation and code", id="both"),
                    Option("Conversation only (the files stay as they are)", id="conversation"),
                    Option("Code only (the conversation stays here)", id="code"),
                ]
            yield OptionList(*options, id="restore-options")
            yield from self._files()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0  # both (or, for /branch, that point's code): the workspace changed since
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice: Choice = event.option.id  # type: ignore[assignment]
        self.dismiss(RestoreAnswer(choice, self.overwrite))
