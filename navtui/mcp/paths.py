"""Where the MCP configuration files are (``mcp/config.py`` reads them): apart from the configuration's pydantic
models, so that a start-up with neither file present loads none of them (``mcp/startup.py``)."""

from __future__ import annotations

from pathlib import Path

from navtui.config.paths import find_repo_root, navtui_home


def user_config_path() -> Path:
    return navtui_home() / "mcp.json"


def project_root(cwd: Path) -> Path:
    return find_repo_root(cwd) or cwd


def project_config_path(cwd: Path) -> Path:
    return project_root(cwd) / ".mcp.json"


def present(path: Path) -> bool:
    """Whether ``path`` may hold servers: anything but a missing file (which ``load_config`` reads as empty) is
    read, so that a file that cannot be read still gets its warning."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True
