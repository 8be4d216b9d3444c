"""Protected paths: changing them can run code later or grant permissions, so it always asks (outside yolo).

In ``write`` mode a model could otherwise add ``core.fsmonitor`` to ``.git/config`` (run at the next
``git status``), drop a ``.git/hooks/pre-commit``, raise its own permissions in ``.navtui/settings.json``, add an
MCP server to ``.mcp.json``, plant variables in ``.env``/``.envrc``, or, through ``tools.extra_roots``, append to
``~/.bashrc`` or ``~/.ssh/authorized_keys``. A protected path forces a prompt even when the tool is in
``tools.allow`` or was allowed "always"; headless runs refuse it with the reason.

Paths are checked after ``Workspace.resolve`` (``~``, ``..`` and symlinks followed), and names are compared
case-insensitively, so ``link -> .git/config``, ``a/../.git/config`` and ``.GIT/config`` (on a case-insensitive
file system the same file) are all caught.
"""

from __future__ import annotations

import os
from pathlib import Path

from navtui.config.paths import navtui_home

# Anywhere in a path, inside the workspace or not.
_DIRS = {".git": "the repository's internals: config, hooks", ".navtui": "navtui's project settings"}
# File names, anywhere.
_FILES = {".mcp.json": "MCP servers (programs navtui may start)", ".gitmodules": "git submodule sources"}
_ENV_PREFIX = ".env"  # .env, .env.local, .envrc (direnv runs it on cd)
_ENV_TEMPLATES = (".example", ".sample", ".template", ".dist")  # .env.example holds no secret and is never loaded

# Under the home directory: shell start-up files and credentials.
_HOME_FILES = {
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
    ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout", ".xprofile",
    ".xsessionrc", ".inputrc", ".gitconfig", ".netrc", ".npmrc", ".pypirc",
}  # fmt: skip
_HOME_DIRS = {
    ".ssh": "SSH keys and authorized_keys",
    ".gnupg": "GnuPG keys",
    ".aws": "AWS credentials",
    ".config/git": "git's global config",
    ".config/fish": "fish start-up files",
    ".config/autostart": "programs started at login",
    ".config/systemd/user": "user services",
}
_SYSTEM_DIRS = ("/etc",)


def _fold(path: Path) -> tuple[str, ...]:
    return tuple(part.casefold() for part in path.parts)


def _under(path: tuple[str, ...], root: tuple[str, ...]) -> bool:
    return path[: len(root)] == root


def protected_reason(resolved: Path, home: Path | None = None) -> str | None:
    """Why changing ``resolved`` (an absolute, resolved path) must ask, or ``None``."""
    what = protected_what(resolved, home)
    return f"changes {what}" if what else None


def protected_what(resolved: Path, home: Path | None = None) -> str | None:
    """What ``resolved`` is, when it is protected: ``".git/ (the git repository's internals ...)"``."""
    parts = _fold(resolved)
    name = parts[-1] if parts else ""
    for directory, what in _DIRS.items():
        if directory in parts:
            return f"{directory}/ ({what})"
    if name in _FILES:
        return f"{resolved.name} ({_FILES[name]})"
    if name.startswith(_ENV_PREFIX) and not name.endswith(_ENV_TEMPLATES):
        return f"{resolved.name} (environment files hold secrets and direnv runs .envrc)"
    home = (home or Path(os.path.expanduser("~"))).resolve()
    home_parts = _fold(home)
    for root in (navtui_home(), home / ".navtui"):
        if _under(parts, _fold(root.expanduser().resolve())):
            return "navtui's own settings, sessions or themes"
    if _under(parts, home_parts) and len(parts) > len(home_parts):
        inside = parts[len(home_parts) :]
        if len(inside) == 1 and inside[0] in _HOME_FILES:
            return f"~/{resolved.name} (a shell start-up or credentials file)"
        for directory, what in _HOME_DIRS.items():
            if _under(inside, tuple(directory.split("/"))):
                return f"~/{directory}/ ({what})"
    for system in _SYSTEM_DIRS:
        if _under(parts, _fold(Path(system))):
            return f"{system}/ (system configuration)"
    return None
