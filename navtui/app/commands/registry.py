"""Slash commands: one registry used by the prompt (``/name args``), the command palette and ``/help``.

A command is a name, an argument synopsis, one line of help and an async handler ``(ctx, args)``. Each module
of ``COMMAND_MODULES`` has a ``register(registry)`` function; the app imports them after its first frame.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.app import App

    from navtui.app.events import EventRouter
    from navtui.app.ui_runtime import UiRuntime
    from navtui.widgets.items import Level, TranscriptItem
    from navtui.widgets.transcript import Transcript

COMMAND_MODULES = (
    "navtui.app.commands.builtin",
    "navtui.app.commands.models",
    "navtui.app.commands.tree",
    "navtui.app.commands.checkpoints",
    "navtui.app.commands.theme",
    "navtui.app.commands.compaction",
    "navtui.app.commands.advisor",
    "navtui.app.commands.index",
    "navtui.app.commands.mcp",
)


class CommandContext(Protocol):
    """What a handler may use (the main screen implements it)."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def runtime(self) -> UiRuntime: ...

    @property
    def transcript(self) -> Transcript: ...

    @property
    def router(self) -> EventRouter:
        """Shows agent events the way a turn does (``router.handle(event)``)."""
        ...

    def notice(self, text: str, level: Level = "info", title: str | None = None, tag: str | None = None) -> None:
        """Show a notice; one with a ``tag`` updates the notice just before it with the same tag instead."""
        ...

    def error(self, message: str, hint: str | None = None) -> None: ...

    def set_prompt(self, text: str) -> None: ...

    def submit(self, text: str) -> None:
        """Send ``text`` as the user's prompt (after the running turn)."""
        ...

    def send(self, text: str) -> None:
        """Send ``text`` to the model as the user's message, as it is: never run as a command, ``!cmd`` or ``$code``."""
        ...

    def refresh_status(self) -> None: ...

    def set_activity(self, active: bool, label: str = "", *, cancel: Callable[[], None] | None = None) -> None:
        """A long task runs: spinner and label in the status line; Esc calls ``cancel`` (default: abort the agent)."""
        ...

    def clear_transcript(self) -> None: ...

    def forget_arguments(self, command: str | None = None) -> None:
        """A command's known arguments changed (a model was pulled): the completion list asks again."""
        ...

    def reload_transcript(self, items: Sequence[TranscriptItem] | None = None) -> None:
        """Show the session's current path again; ``items``: its transcript items, made already."""
        ...


Handler = Callable[[CommandContext, str], Awaitable[None]]
ArgumentSource = Callable[[CommandContext], Awaitable[list[str]]]
"""The arguments a command knows (theme names, model names ...), for the completion list."""


@dataclass(frozen=True)
class SlashCommand:
    name: str
    help: str
    handler: Handler
    args: str = ""  # synopsis, e.g. "[name]" (optional) or "NAME" (required)
    key: str | None = None  # a key binding that does the same, shown in /help
    aliases: tuple[str, ...] = ()
    arguments: ArgumentSource | None = None

    @property
    def needs_args(self) -> bool:
        return bool(self.args) and not self.args.startswith("[")

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()


class CommandRegistry:
    def __init__(self) -> None:
        self._commands: dict[str, SlashCommand] = {}
        self._aliases: dict[str, str] = {}
        self._loaded = False

    def register(self, command: SlashCommand) -> None:
        """Add (or replace) a command."""
        self._commands[command.name] = command
        for alias in command.aliases:
            self._aliases[alias] = command.name

    def unregister(self, name: str) -> None:
        """Remove a command added at run time (an MCP server's prompt that went away)."""
        command = self._commands.pop(name, None)
        for alias in command.aliases if command is not None else ():
            self._aliases.pop(alias, None)

    def command(
        self,
        name: str,
        help: str,
        *,
        args: str = "",
        key: str | None = None,
        aliases: tuple[str, ...] = (),
        arguments: ArgumentSource | None = None,
    ) -> Callable[[Handler], Handler]:
        """Decorator form of ``register``."""

        def decorate(handler: Handler) -> Handler:
            self.register(SlashCommand(name, help, handler, args=args, key=key, aliases=aliases, arguments=arguments))
            return handler

        return decorate

    def get(self, name: str) -> SlashCommand | None:
        return self._commands.get(self._aliases.get(name, name))

    def names(self) -> list[str]:
        return sorted(self._commands)

    def all(self) -> list[SlashCommand]:
        return [self._commands[name] for name in self.names()]

    @staticmethod
    def import_modules(modules: tuple[str, ...] = COMMAND_MODULES) -> list[ModuleType]:
        """Import the command modules (safe in a thread: nothing is registered). A broken one raises."""
        return [importlib.import_module(name) for name in modules]

    def load(self, modules: tuple[str, ...] = COMMAND_MODULES) -> None:
        """Import every command module once and let it register its commands."""
        if self._loaded:
            return
        self._loaded = True
        for module in self.import_modules(modules):
            module.register(self)

    def suggestion(self, name: str) -> str | None:
        """The command a user most likely meant by an unknown ``/name``: a typo of one (``/comapct``), or the one
        that does here what a command of Claude Code's or Codex's does there (``/cost``, ``/status``)."""
        import difflib

        habits = {habit: command for habit, command in HABITS.items() if self.get(command) is not None}
        wanted = name.lower()
        if wanted not in habits:  # a typo of a command, an alias or a habit (/stauts)
            close = difflib.get_close_matches(wanted, [*self._commands, *self._aliases, *habits], n=1, cutoff=0.75)
            wanted = close[0] if close else ""
        meant = habits.get(wanted, self._aliases.get(wanted, wanted))
        return meant if meant and self.get(meant) is not None else None

    async def run(self, ctx: CommandContext, text: str) -> bool:
        """Run ``/name args``. Returns False (after telling the user) for an unknown command."""
        # Any whitespace ends the name: "/name" then Alt+Enter and the name on the next line is /name's argument.
        name, args = [*text.strip()[1:].split(maxsplit=1), "", ""][:2]
        command = self.get(name)
        if command is None:
            near = self.suggestion(name)
            if near is not None:
                ctx.notice(f"Unknown command: /{name}. Did you mean /{near}? Type /help for every one", level="warning")
            else:
                ctx.notice(f"Unknown command: /{name}. Type /help", level="warning")
            return False
        args = args.strip()
        if command.needs_args and not args:
            ctx.notice(f"Usage: {command.usage} — {command.help}", level="warning")
            return False
        await command.handler(ctx, args)
        return True


# Other agents' commands (Claude Code's, Codex's) and the one that does that here.
HABITS = {
    "cost": "context",
    "status": "context",
    "usage": "context",
    "reset": "clear",
    "rewind": "tree",
    "permissions": "approval",
    "approvals": "approval",
    "fork": "branch",
    "sessions": "resume",
    "continue": "resume",
    "rename": "name",
}

COMMANDS = CommandRegistry()
"""The app's registry, filled by ``load()`` from ``COMMAND_MODULES``."""
