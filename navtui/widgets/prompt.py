"""The prompt editor: a multi-line ``TextArea`` where Enter sends.

Enter sends; Shift+Enter and ctrl+j insert a newline; Up on the first line and Down on the last walk the
history; Tab asks the screen to complete; ctrl+c clears (on an empty prompt it asks the app to quit);
ctrl+d on an empty prompt quits. What to do with a prompt is the screen's business (messages go up).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import events
from textual.message import Message
from textual.widgets import TextArea

if TYPE_CHECKING:
    from navtui.app.completion import Completion
    from navtui.app.history import PromptHistory

Completer = Callable[[str, int], Awaitable["Completion | None"]]


class PromptEditor(TextArea):
    class Submitted(Message):
        def __init__(self, editor: PromptEditor, text: str, *, new_in_history: bool) -> None:
            super().__init__()
            self.editor = editor
            self.text = text
            self.new_in_history = new_in_history  # the screen appends it to the history file

    class QuitRequested(Message):
        """ctrl+c on an empty prompt (``confirm``: the app asks for a second press) or ctrl+d."""

        def __init__(self, confirm: bool) -> None:
            super().__init__()
            self.confirm = confirm

    class Cleared(Message):
        """ctrl+c cleared the prompt."""

    class Choices(Message):
        """Tab found several candidates; the screen shows them."""

        def __init__(self, choices: list[str]) -> None:
            super().__init__()
            self.choices = choices

    def __init__(self, *, history: PromptHistory | None = None, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus", compact=True)
        self.prompt_history = history
        self.completer: Completer | None = None

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        handled = True
        if key == "enter":
            self._submit()
        elif key in ("shift+enter", "ctrl+j", "alt+enter"):
            self.insert("\n")
        elif key == "up" and self.prompt_history and self.cursor_location[0] == 0 and not self.selected_text:
            self._recall(self.prompt_history.previous(self.text))
        elif (
            key == "down"
            and self.prompt_history
            and self.cursor_location[0] == self.document.line_count - 1
            and not self.selected_text
        ):
            self._recall(self.prompt_history.next())
        elif key == "tab":
            await self._complete()
        elif key == "ctrl+c":
            if self.text:
                self.clear()
                if self.prompt_history:
                    self.prompt_history.reset()
                self.post_message(self.Cleared())
            else:
                self.post_message(self.QuitRequested(confirm=True))
        elif key == "ctrl+d" and not self.text:
            self.post_message(self.QuitRequested(confirm=False))
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()  # TextArea's own handler (and bindings) must not run too

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        new = self.prompt_history.add(text) if self.prompt_history else False
        self.post_message(self.Submitted(self, text, new_in_history=new))
        self.clear()

    def _recall(self, text: str | None) -> None:
        if text is None:
            return
        self.load_text(text)
        self.move_cursor(self.document.end)

    async def _complete(self) -> None:
        if self.completer is None:
            return
        row, column = self.cursor_location
        line = self.document.get_line(row)
        completion = await self.completer(line, column)
        if completion is None:
            return
        if completion.text != line[completion.start : completion.end]:
            self.replace(completion.text, (row, completion.start), (row, completion.end))
        if completion.choices:
            self.post_message(self.Choices(completion.choices))
