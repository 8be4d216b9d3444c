"""The command palette (ctrl+p) lists every slash command from the same registry as the prompt and /help."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from navtui.app.commands import COMMANDS, SlashCommand


class SlashCommandProvider(Provider):
    def _run(self, command: SlashCommand) -> None:
        screen = self.screen
        if command.needs_args and hasattr(screen, "set_prompt"):
            screen.set_prompt(f"/{command.name} ")  # it needs arguments: let the user type them
            return
        submit = getattr(screen, "submit", None)
        if submit is not None:
            submit(f"/{command.name}")

    async def discover(self) -> Hits:
        for command in COMMANDS.all():
            yield DiscoveryHit(command.usage, partial(self._run, command), help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in COMMANDS.all():
            score = max(matcher.match(command.usage), matcher.match(command.help) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(command.usage), partial(self._run, command), help=command.help)
