"""MCP servers in the app: started after the first frame, a repository's servers approved in a modal,
failures shown as notices with the server's stderr, the status line while they start (``/mcp`` is in
``app/commands/mcp.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from navtui.mcp.config import ServerSpec
    from navtui.mcp.manager import McpManager


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
    if not screen.is_attached:
        return
    if text:
        screen.notice(text, level=level)
    screen.show_status(screen.runtime.status(with_git=False))


async def ask(screen: Any, manager: McpManager, spec: ServerSpec) -> None:
    """The approval modal for one of the repository's servers, and what the answer does."""
    from navtui.app.screens.mcp_approval import McpApprovalScreen

    answer = await screen.app.push_screen_wait(McpApprovalScreen(spec))
    if answer in ("always", "once"):
        await manager.approve(spec.name, remember=answer == "always")
        connection = manager.connections[spec.name]
        if connection.state == "ready":
            screen.notice(f"MCP server '{spec.name}' started: {len(manager.offered(connection))} tools.")
    elif answer == "deny":
        manager.deny(spec.name, remember=True)
        screen.notice(f"MCP server '{spec.name}' denied for this repository. /mcp approve {spec.name} asks again.")
    else:
        manager.deny(spec.name, remember=False)
        screen.notice(f"MCP server '{spec.name}' not started. /mcp approve {spec.name} when you want it.")
