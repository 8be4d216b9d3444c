"""The servers as text: one line per server (name, source, transport, state, target), details below it.

``navtui mcp list`` prints it; ``/mcp`` shows it in the app.
"""

from __future__ import annotations

from navtui.mcp.manager import McpManager, ServerStatus

STATE_TEXT = {
    "unapproved": "needs approval",
    "denied": "denied",
    "disabled": "disabled",
    "ready": "ready",
    "failed": "failed",
    "stopped": "not started",
    "starting": "starting",
    "signin": "needs sign-in",
}


def status_lines(manager: McpManager) -> list[str]:
    rows = manager.status()
    if not rows:  # every entry was refused (the warnings say why)
        return ["No MCP servers can be started: see the warnings above."]
    width = max(len(row.name) for row in rows) + 2
    lines: list[str] = []
    for row in rows:
        state = STATE_TEXT.get(row.state, row.state)
        lines.append(f"{row.name.ljust(width)}{row.source:<8} {row.transport:<6} {state:<15} {row.target}")
        lines.extend(f"{' ' * width}{line}" for line in _details(row, manager))
    return lines


def _details(row: ServerStatus, manager: McpManager) -> list[str]:
    if row.state == "ready":
        names = ", ".join(row.tools) or "(none)"
        hidden = f" ({row.hidden} hidden by mcp.tools)" if row.hidden else ""
        lines = [f"tools ({len(row.tools)}): {names}{hidden}"]
        if row.resources:
            shown = ", ".join(f"@{row.name}:{uri}" for uri in row.resources[:10])
            lines.append(
                f"resources: {shown}" + (f" (+{len(row.resources) - 10} more)" if len(row.resources) > 10 else "")
            )
        if row.prompts:
            lines.append("prompts: " + ", ".join(f"/{name}" for name in row.prompts))
        if row.withheld:
            lines.append("left out of requests: the tool schemas do not fit the model's window (see mcp.tools)")
        return lines
    if row.state == "failed":
        lines = (row.error or "").splitlines()[:3]
        tail = manager.connections[row.name].stderr_tail()
        return lines + [f"stderr: {line}" for line in tail.splitlines()[-5:]]
    if row.state == "signin":
        return [row.error or f"sign in with /mcp login {row.name} (or: navtui mcp login {row.name})"]
    if row.state == "unapproved":
        return [f"from {row.config_path}: approve it in navtui (/mcp approve {row.name}), or run with --mcp-trust"]
    if row.state == "denied":
        return [f"denied for this repository; /mcp approve {row.name} asks again"]
    return []
