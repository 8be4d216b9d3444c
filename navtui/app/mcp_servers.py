"""MCP servers in the app: started after the first frame, a repository's servers approved in a modal,
failures shown as notices with the server's stderr, the status line while they start (``/mcp`` is in
``app/commands/mcp.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from navtui.core.errors import NavtuiError

if TYPE_CHECKING:
    from navtui.app.commands.registry import CommandContext, Handler
    from navtui.mcp.config import ServerSpec
    from navtui.mcp.manager import McpManager
    from navtui.mcp.prompts import PromptCommand


def start_servers(screen: Any) -> None:
    """Once the runtime is on screen: report the servers' events there, and start them in a worker."""
    manager = screen.runtime.mcp
    if manager is None:
        return
    manager.listener = lambda text, level: _on_event(screen, text, level)
    screen.run_worker(_start(screen, manager), group="mcp", exclusive=True)


async def _start(screen: Any, manager: McpManager) -> None:
    await manager.start()
    for spec in manager.unapproved():
        await ask(screen, manager, spec)


def _on_event(screen: Any, text: str | None, level: str) -> None:
    sync_prompt_commands(screen.runtime.mcp)  # also while closing: stopped servers' prompts leave the registry
    if not screen.is_attached:
        return
    if text:
        screen.notice(text, level=level)
    screen.show_status(screen.runtime.status(with_git=False))


async def ask(screen: Any, manager: McpManager, spec: ServerSpec) -> None:
    """The approval modal for one of the repository's servers, and what the answer does."""
    from navtui.app.screens.mcp_approval import McpApprovalScreen
    from navtui.core.wording import counted

    answer = await screen.app.push_screen_wait(McpApprovalScreen(spec))
    if answer in ("always", "once"):
        await manager.approve(spec.name, remember=answer == "always")
        connection = manager.connections[spec.name]
        if connection.state == "ready":
            screen.notice(f"MCP server '{spec.name}' started: {counted(len(manager.offered(connection)), 'tool')}.")
    elif answer == "deny":
        manager.deny(spec.name, remember=True)
        screen.notice(f"MCP server '{spec.name}' denied for this repository. /mcp approve {spec.name} asks again.")
    else:
        manager.deny(spec.name, remember=False)
        screen.notice(f"MCP server '{spec.name}' not started. /mcp approve {spec.name} when you want it.")


def sync_prompt_commands(manager: McpManager | None) -> None:
    """The running servers' prompts as slash commands (``/mcp__<server>__<prompt>``); gone ones removed."""
    from navtui.app.commands.registry import COMMANDS, SlashCommand
    from navtui.mcp.tool import PREFIX

    wanted = {command.name: command for command in manager.prompt_commands()} if manager is not None else {}
    for name in COMMANDS.names():
        if name.startswith(PREFIX) and name not in wanted:
            COMMANDS.unregister(name)
    for name, command in wanted.items():
        known = COMMANDS.get(name)
        if known is None or (known.help, known.args) != (command.help, command.args):
            COMMANDS.register(SlashCommand(name, command.help, _prompt_handler(command), args=command.args))


def _prompt_handler(command: PromptCommand) -> Handler:
    async def run(ctx: CommandContext, args: str) -> None:
        manager = ctx.runtime.mcp
        if manager is None:
            return
        ctx.set_activity(True, f"mcp: getting {command.prompt.name} from {command.server}")
        try:
            text = await manager.expand_prompt(command, args)
        except NavtuiError as exc:
            ctx.error(exc.message, exc.hint)
            return
        finally:
            ctx.set_activity(False)
        # As the user's message: a server's text never runs as a command, !cmd or $code, and its @mentions attach
        # nothing (a remote server would have the model read ~/.netrc); an @file the user passed still attaches.
        from navtui.agent.attachments import inert_mentions

        ctx.send(inert_mentions(text, keep=args))

    return run
