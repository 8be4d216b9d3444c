"""The session's MCP manager, built only when a server is configured.

Without one, only the configuration is read: neither the ``mcp`` SDK nor ``navtui.mcp.manager`` and what it
imports (connections, the tool adapter, resources, prompts, search: ~0.5 MB of a process) are loaded. Without
either configuration file, not even the configuration's pydantic models (``mcp/config.py``) are.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from navtui.mcp.manager import McpManager
    from navtui.tools.base import ToolRegistry


def build_manager(
    cwd: Path, settings: Any, tools: ToolRegistry, artifacts_dir: Path, *, trust_project: bool = False
) -> McpManager | None:
    """The session's manager, or None when no MCP server is configured."""
    from navtui.mcp.paths import present, project_config_path, user_config_path

    if not present(user_config_path()) and not present(project_config_path(cwd)):
        return None  # neither file: nothing to read, and the configuration's models are not loaded
    from navtui.mcp.config import load_config

    config = load_config(cwd)
    if not config.servers and not config.warnings:
        return None
    from navtui.mcp.manager import manager_for

    return manager_for(config, cwd, settings, tools, artifacts_dir, trust_project=trust_project)
