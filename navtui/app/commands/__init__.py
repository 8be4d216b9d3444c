"""Slash commands: the registry (``registry``) and one module per group of commands.

``COMMANDS`` is the app's registry; ``load_commands`` fills it from every module in ``COMMAND_MODULES``.
"""

from navtui.app.commands.registry import (
    COMMAND_MODULES,
    COMMANDS,
    CommandContext,
    CommandRegistry,
    Handler,
    SlashCommand,
)

__all__ = ["COMMANDS", "COMMAND_MODULES", "CommandContext", "CommandRegistry", "Handler", "SlashCommand"]
