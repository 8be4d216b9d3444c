"""/help: every slash command (from the registry) and the keys."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
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
    ("Alt+Enter, \\ Enter, ctrl+j", "new line (Shift+Enter too where the terminal reports it)"),
    ("ctrl+g, ctrl+x ctrl+e", "edit the prompt in $VISUAL / $EDITOR"),
    ("Up / Down", "prompt history (Up on an empty prompt: edit the queued messages)"),
    ("ctrl+r", "search the prompts you sent before"),
    ("Tab", "complete /commands, their arguments and @paths (↑↓ Enter Esc in the list)"),
    ("Esc", "interrupt the agent (partial answer and a command's output so far kept)"),
    ("ctrl+c", "interrupt the agent; idle: clear the prompt (Up brings it back); twice on empty quits"),
    ("ctrl+d", "quit (on an empty prompt)"),
    ("ctrl+q", "quit (at any time)"),
    ("ctrl+p", "command palette"),
    ("ctrl+o", "expand / collapse tool output, thoughts and long pastes"),
    ("ctrl+l", "model picker"),
    ("ctrl+t", "theme picker"),
    ("shift+tab", "next thinking level"),
    ("PgUp / PgDn", "scroll the transcript (at the bottom it follows)"),
    ("F1", "this help (F1, Esc or q closes it)"),
)

PROMPT = (
    ("@path", "attach a file (Tab finds it by fuzzy name: @helpers)"),
    ("!cmd", "run a shell command yourself; the model sees it with your next message"),
    ("$code", "run Python yourself, the same way"),
    ("//text", "send a message that starts with /"),
)

USAGE_WIDTH = 24  # the commands' column; a longer synopsis (/mcp's, /advisor's) has a line of its own above its help
SIDE_BY_SIDE = 80  # narrower than this (an 80-column terminal) each command's help goes under it

STATUS = (
    ("main  *3 +1 ?2", "git branch; unstaged, staged and untracked files (a * alone: dirty)"),
    ("model++ (provider)", "the model; ++ the advisor reviews its work"),
    ("ctx 4.1k/32.8k 13%", "context used / window (warning colour above 70 %, error above 90 %)"),
    ("↑1.8k ↓212 $0.01", "tokens sent and received, and the cost when the provider has prices"),
    ("ask · workspace-write", "approval mode (/approval) · the shell sandbox"),
    ("⇄2", "handovers in this session (/handover)"),
    ("⚙1", "shell jobs running in the background"),
    ("mcp …", "MCP servers starting, failed or waiting for approval"),
    ("⠋ working", "what runs now (Esc stops it)"),
)


class CommandsTable:
    """The commands, laid out for the width given: synopsis, help and key side by side, or narrower than
    ``SIDE_BY_SIDE`` each help on the lines under its synopsis (beside it, it got a column of two words)."""

    def __init__(self, commands: Sequence[SlashCommand]) -> None:
        self.commands = commands

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= SIDE_BY_SIDE:
            yield from self._tables()
            return
        yield Text("Commands", "bold")
        for command in self.commands:
            line = Table.grid(expand=True)
            line.add_column(style="bold", ratio=1)
            line.add_column(no_wrap=True, style="dim", justify="right")
            line.add_row(Text(command.usage), Text(command.key or ""))
            yield line
            yield Padding(Text(command.help), (0, 0, 0, 4))

    def _tables(self) -> RenderResult:
        """Synopsis and help side by side, the key (if any) after the help, in a commands' column as wide as the
        commands that fit ``USAGE_WIDTH`` need: a longer synopsis is a line of its own and its help starts on the
        line under it. Held to the longest (/mcp's 62 cells cut to 32), every help got 45 cells of a 100-column
        terminal and wrapped; a column of its own for the keys (five commands have one) took 11 more."""
        fitting = [len(c.usage) for c in self.commands if len(c.usage) <= USAGE_WIDTH]
        usage_width = max(fitting, default=USAGE_WIDTH)

        def rows() -> Table:
            table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), pad_edge=False, expand=True)
            table.add_column(style="bold", width=usage_width, no_wrap=True)
            table.add_column(ratio=1)
            return table

        yield Text("Commands", "bold")
        table = rows()
        for command in self.commands:
            usage = Text(command.usage)
            if usage.cell_len > usage_width:
                if table.row_count:
                    yield table
                yield Text(command.usage, "bold")
                table = rows()
                usage = Text("")
            help_text = Text(command.help)
            if command.key:
                help_text.append(f" ({command.key})", "dim")
            table.add_row(usage, help_text)
        if table.row_count:
            yield table


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
            yield Static(CommandsTable(self.commands), id="help-commands")
            yield Static(self._pairs_table("Keys", KEYS), id="help-keys")
            yield Static(self._pairs_table("In the prompt", PROMPT), id="help-prompt")
            yield Static(
                self._pairs_table("Status line, left to right (narrow: model, context and mode stay)", STATUS),
                id="help-status",
            )

    @staticmethod
    def _pairs_table(title: str, pairs: Sequence[tuple[str, str]]) -> Table:
        table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=True, title_justify="left")
        table.title = Text(title, "bold")
        table.add_column(no_wrap=True, style="bold")
        table.add_column(ratio=1)
        for key, what in pairs:
            table.add_row(Text(key), Text(what))
        return table

    def action_close(self) -> None:
        self.dismiss(None)
