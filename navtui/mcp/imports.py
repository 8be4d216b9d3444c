"""Servers from Claude Desktop's and Claude Code's configuration files, for ``navtui mcp import``.

Both use the ``mcpServers`` shape navtui reads. Claude Desktop keeps one file per platform; Claude Code keeps
the user's servers at the top of ``~/.claude.json`` and each project's under ``projects.<path>.mcpServers``
(the working directory's are imported with the user's; a name in both is the project's, as Claude Code does).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from navtui.config.settings import read_json_object
from navtui.core.errors import ConfigError
from navtui.mcp.config import SERVER_NAME, ServerConfig

Origin = Literal["claude-desktop", "claude-code"]
ORIGINS: tuple[Origin, ...] = ("claude-desktop", "claude-code")


@dataclass
class Found:
    """The servers one file offers, and what could not be taken from it."""

    path: Path
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # "name: why"


def default_path(origin: Origin) -> Path:
    home = Path.home()
    if origin == "claude-code":
        return home / ".claude.json"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", home)) / "Claude" / "claude_desktop_config.json"
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return config_home / "Claude" / "claude_desktop_config.json"


def read_servers(origin: Origin, cwd: Path, path: Path | None = None) -> Found:
    """The servers of ``origin``'s file (``path`` overrides where it is). Raises ``ConfigError`` when the file is
    missing or unreadable."""
    where = path or default_path(origin)
    if not where.is_file():
        raise ConfigError(f"No {origin} configuration at {where}", hint="give its path with --from-file PATH")
    data = read_json_object(where)
    found = Found(where)
    entries: dict[str, Any] = {}
    top = data.get("mcpServers")
    if isinstance(top, dict):
        entries.update(top)
    if origin == "claude-code":
        projects = data.get("projects")
        project = projects.get(str(cwd.resolve())) if isinstance(projects, dict) else None
        servers = project.get("mcpServers") if isinstance(project, dict) else None
        if isinstance(servers, dict):
            entries.update(servers)
    for name, entry in entries.items():
        if not SERVER_NAME.match(name):
            found.skipped.append(f"{name}: the name may only use letters, digits, '_' and '-'")
            continue
        if isinstance(entry, dict) and entry.get("type") == "sse":
            found.skipped.append(f"{name}: the SSE transport is not supported (use its streamable HTTP URL)")
            continue
        try:
            found.servers[name] = ServerConfig.model_validate(_known_keys(entry))
        except ValidationError as exc:
            found.skipped.append(f"{name}: {exc.errors()[0]['msg'].removeprefix('Value error, ')}")
    return found


def _known_keys(entry: Any) -> Any:
    """Claude Code writes ``"type": "stdio"`` and sometimes empty ``env``; nothing navtui does not know is
    carried over into the user's file."""
    if not isinstance(entry, dict):
        return entry
    keys = ("type", "command", "args", "env", "cwd", "url", "headers", "disabled")
    return {key: value for key, value in entry.items() if key in keys and value not in (None, {}, [])}
