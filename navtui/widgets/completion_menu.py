"""The completion list under the prompt: the candidates for the token being typed.

It never takes focus; the prompt keeps typing and drives it (↑↓ move, Tab or Enter take, Esc hides). A click
on a candidate takes it too (``Chosen`` goes up to the screen, which hands it to the prompt).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from navtui.core.display import display_safe

if TYPE_CHECKING:
    from navtui.app.completion import Candidate, Completion


class CompletionMenu(OptionList, can_focus=False):
    class Chosen(Message):
        """A candidate was clicked."""

        def __init__(self, candidate: Candidate) -> None:
            super().__init__()
            self.candidate = candidate

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.completion: Completion | None = None

    def on_mount(self) -> None:
        self.display = False

    @property
    def open(self) -> bool:
        return self.display and self.completion is not None

    @property
    def candidate(self) -> Candidate | None:
        """The highlighted candidate."""
        if self.completion is None or self.highlighted is None:
            return None
        return self.completion.candidates[self.highlighted]

    def show(self, completion: Completion) -> None:
        self.completion = completion
        width = max(len(c.value) for c in completion.candidates) + 2
        self.set_options([Option(self._label(c, width)) for c in completion.candidates])
        exact = next((i for i, c in enumerate(completion.candidates) if c.value == completion.typed), 0)
        self.highlighted = exact
        self.display = True

    def hide(self) -> None:
        self.completion = None
        self.display = False

    def move(self, step: int) -> None:
        if self.completion is None:
            return
        count = len(self.completion.candidates)
        self.highlighted = ((self.highlighted or 0) + step) % count

    @staticmethod
    def _label(candidate: Candidate, width: int) -> Text:
        label = Text(display_safe(candidate.value).ljust(width), no_wrap=True, overflow="ellipsis")
        if candidate.detail:
            label.append(display_safe(candidate.detail), "dim")
        return label

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.completion is not None:
            self.post_message(self.Chosen(self.completion.candidates[event.option_index]))
