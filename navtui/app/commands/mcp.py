"""/mcp: the MCP servers (state, transport, tools), reconnecting one, approving a repository's server, signing
in to an HTTP server with OAuth and out again."""

from __future__ import annotations

import asyncio

from navtui.app.commands import CommandContext, CommandRegistry
from navtui.core.errors import NavtuiError

USAGE = "/mcp [list] · /mcp reconnect NAME · /mcp approve NAME · /mcp login NAME · /mcp logout NAME"


async def mcp_command(ctx: CommandContext, args: str) -> None:
    from navtui.core.wording import counted
    from navtui.mcp.config import user_config_path

    manager = ctx.runtime.mcp
    if manager is None:
        ctx.notice(
            "No MCP servers configured. Add one with `navtui mcp add NAME -- COMMAND [ARGS...]` "
            f"(the user file is {user_config_path()}), or put a .mcp.json in the repository."
        )
        return
    action, _, name = args.strip().partition(" ")
    name = name.strip()
    if action in ("", "list"):
        from navtui.mcp.report import status_lines

        ctx.notice("\n".join(status_lines(manager)), title="MCP servers")
        return
    if action not in ("reconnect", "approve", "login", "logout") or not name:
        ctx.notice(f"Usage: {USAGE}", level="warning")
        return
    try:
        connection = manager.require(name)
        if action == "approve":
            if connection.spec.source != "project":
                ctx.notice(f"'{name}' is your own server ({connection.spec.path}); it needs no approval.")
                return
            from navtui.app.mcp_servers import ask

            await ask(ctx, manager, connection.spec)
            return
        if action == "login":
            await _login(ctx, name)
            return
        if action == "logout":
            removed = await manager.sign_out(name)
            ctx.notice(
                f"Signed out of '{name}': its tokens are forgotten. /mcp login {name} signs in again."
                if removed
                else f"'{name}' was not signed in (no tokens stored)."
            )
            ctx.refresh_status()
            return
        ctx.set_activity(True, f"mcp: reconnecting {name}")
        try:
            await manager.reconnect(name)
        finally:
            ctx.set_activity(False)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    if connection.state == "ready":
        ctx.notice(f"MCP server '{name}' reconnected: {counted(len(manager.offered(connection)), 'tool')}.")
    ctx.refresh_status()


async def _login(ctx: CommandContext, name: str) -> None:
    """The browser sign-in: the URL is shown (a browser opens where one can); Esc gives up waiting."""
    from navtui.core.wording import counted
    from navtui.mcp.oauth import SignIn

    manager = ctx.runtime.mcp
    assert manager is not None
    task = asyncio.current_task()

    def stop() -> None:
        if task is not None:
            task.cancel()

    ctx.set_activity(True, f"mcp: signing in to {name} (Esc stops waiting)", cancel=stop)
    try:
        connection = await manager.sign_in(name, SignIn(show=ctx.notice))
    except asyncio.CancelledError:
        ctx.notice(f"Sign-in to '{name}' stopped.", level="warning")
        return
    finally:
        ctx.set_activity(False)
        ctx.refresh_status()
    if connection.state == "ready":
        count = len(manager.offered(connection))
        if manager.signed_in(name):
            ctx.notice(f"Signed in to '{name}': {counted(count, 'tool')}.")
        else:
            ctx.notice(f"'{name}' did not ask for a sign-in; it is connected: {counted(count, 'tool')}.")


async def mcp_arguments(ctx: CommandContext) -> list[str]:
    """For the completion list: ``list``, ``reconnect NAME`` for each server that may start, ``approve NAME`` for
    each of the repository's."""
    manager = ctx.runtime.mcp
    if manager is None:
        return []
    connections = manager.connections.values()
    reconnect = [f"reconnect {c.name}" for c in connections if c.state not in ("unapproved", "denied", "disabled")]
    approve = [f"approve {c.name}" for c in connections if c.spec.source == "project"]
    oauth = [f"{verb} {c.name}" for c in connections if c.transport == "http" for verb in ("login", "logout")]
    return ["list", *reconnect, *approve, *oauth]


def register(registry: CommandRegistry) -> None:
    registry.command(
        "mcp",
        "MCP servers: list them, reconnect one, approve a repository's, sign in to one (OAuth) or out",
        args="[list|reconnect NAME|approve NAME|login NAME|logout NAME]",
        arguments=mcp_arguments,
    )(mcp_command)
