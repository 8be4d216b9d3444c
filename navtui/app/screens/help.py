"""/help: every slash command (from the registry) and the keys."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from navtui.app.commands import SlashCommand
from navtui.styles import stylesheet

KEYS = (
    ("Enter", "send (while the agent works: queue)"),
    ("Shift+Enter, ctrl+j", "new line"),
    ("Up / Down", "prompt history"),
    ("Tab", "complete /commands, their arguments and @paths (↑↓ Enter Esc in the list)"),
    ("Esc", "interrupt the agent (partial answer kept)"),
    ("ctrl+c", "clear the prompt; twice on empty quits"),
    ("ctrl+d", "quit (on an empty prompt)"),
    ("ctrl+p", "command palette"),
    ("ctrl+o", "expand / collapse tool output, thoughts and long pastes"),
    ("ctrl+l", "model picker"),
    ("ctrl+t", "theme picker"),
    ("PgUp / PgDn", "scroll the transcript (at the bottom it follows)"),
)


class HelpScreen(ModalScreen[None]):
    CSS_PATH = stylesheet("help")
    BINDINGS = [Binding("escape,q,f1", "close", "Close", show=False)]

    def __init__(self, commands: Sequence[SlashCommand]) -> None:
        super().__init__()
        self.commands = list(commands)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = "navtui help"
            box.border_subtitle = "esc to close"
            yield Static(self._commands_table(), id="help-commands")
            yield Static(self._keys_table(), id="help-keys")

    def _commands_table(self) -> Table:
        table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=True, title_justify="left")
        table.title = Text("Commands", "bold")
        table.add_column(no_wrap=True, style="bold")
        table.add_column(ratio=1)
        table.add_column(no_wrap=True, style="dim")
        for command in self.commands:
            table.add_row(Text(command.usage), Text(command.help), Text(command.key or ""))
        return table

    def _keys_table(self) -> Table:
        table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=True, title_justify="left")
        table.title = Text("Keys", "bold")
        table.add_column(no_wrap=True, style="bold")
        table.add_column(ratio=1)
        for key, what in KEYS:
            table.add_row(Text(key), Text(what))
        return table

    def action_close(self) -> None:
        self.dismiss(None)
