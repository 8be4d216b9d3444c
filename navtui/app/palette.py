"""The command palette (ctrl+p) lists every slash command from the same registry as the prompt and /help."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.message import Message

from navtui.app.commands import COMMANDS, SlashCommand


def _plain(text: str) -> str:
    """The palette reads help as markup: ``[MODEL]`` in a synopsis must stay text (``escape`` misses capitals)."""
    return text.replace("[", "\\[")


@dataclass
class CommandChosen(Message):
    """Posted to the screen the palette opened on: run ``/name``, or put it in the prompt to add arguments."""

    command: SlashCommand


class SlashCommandProvider(Provider):
    def _run(self, command: SlashCommand) -> None:
        self.screen.post_message(CommandChosen(command))

    def _commands(self) -> list[SlashCommand]:
        refresh = getattr(self.screen, "refresh_custom_commands", None)  # a command file added since counts
        if refresh is not None:
            refresh()
        return COMMANDS.all()

    # The usage is markup to the palette as well (a string prompt, and the matcher's highlight): "/model [MODEL]"
    # showed as "/model ", and a repository command's argument-hint could carry a link or an @click action.
    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(
                Content(command.usage), partial(self._run, command), text=command.usage, help=_plain(command.help)
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = max(matcher.match(command.usage), matcher.match(command.help) * 0.5)
            if score > 0:
                # Escaped, the usage's highlight is one cell off after a "[" (the name before it, where a query
                # matches, is exact).
                shown = matcher.highlight(_plain(command.usage))
                yield Hit(score, shown, partial(self._run, command), text=command.usage, help=_plain(command.help))
