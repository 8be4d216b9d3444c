"""What a path in a shell command would hit: the whole filesystem, a home directory, a system directory, the
workspace, or a protected path. Used by the destructive-command rules (``rules.py``).
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from navtui.tools.files.protected import protected_what

DEVICE = re.compile(r"^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|loop|md|dm-|mapper/|sg|sr)")
SYSTEM_DIRS = frozenset(
    {"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt", "/proc", "/root", "/sbin", "/srv",
     "/sys", "/usr", "/var", "/Users", "/System", "/Library", "/Applications", "/usr/bin", "/usr/lib", "/usr/local",
     "/var/lib", "/Volumes", "/mnt", "/media", "/snap", "/nix"}
)  # fmt: skip
_GLOB = re.compile(r"[*?\[]")
_EVERYTHING = {"*", ".*", "*.*", ".[!.]*", "..?*", "{*,.*}"}  # globs that match (nearly) all of a directory
# Relative targets that mean "here" wherever here is.
_HERE = {".", "./", "*", ".*", "./*", "./.*", "..", "../", "../*", "./."}


@dataclass
class Scope:
    """Where a command runs: the workspace cwd, the directory an earlier ``cd`` moved to, the nesting depth."""

    cwd: Path | None = None
    depth: int = 0
    cd: str | None = None  # a static cd target seen earlier in the same text; "?" when it was computed

    def deeper(self) -> Scope:
        return Scope(self.cwd, self.depth + 1)

    @property
    def workdir(self) -> str:
        return os.path.normpath(str(self.cwd or Path.cwd()))


def _home() -> str:
    return os.path.normpath(os.path.expanduser("~"))


def absolute(value: str, scope: Scope) -> str | None:
    """The normalised absolute path ``value`` names (``~`` expanded, ``..`` collapsed); ``None`` when unknown."""
    if value.startswith("~+") and value[2:3] in ("", "/"):  # bash's $PWD
        return absolute("." + value[2:], scope)
    if value.startswith("~"):
        user, sep, rest = value[1:].partition("/")
        base = _home() if not user else ("/root" if user == "root" else f"/home/{user}")
        return posixpath.normpath(base + ("/" + rest if sep and rest else ""))
    if value.startswith("/"):
        return posixpath.normpath(value)
    base = scope.workdir
    if scope.cd is not None:
        if scope.cd == "?":
            return None
        moved = absolute(scope.cd, Scope(scope.cwd))
        if moved is None:
            return None
        base = moved
    return posixpath.normpath(posixpath.join(base, value))


def is_etc(value: str, scope: Scope) -> bool:
    path = absolute(value, scope)
    return path is not None and (path == "/etc" or path.startswith("/etc/"))


def _critical(path: str, scope: Scope, *, workspace_ok: bool) -> str | None:
    home = _home()
    if path == "/":
        return "the whole filesystem"
    if path == home:
        return "your home directory"
    if home.startswith(path + "/"):
        return f"{path}, which holds your home directory"
    if path in SYSTEM_DIRS:
        return f"the system directory {path}"
    workdir = scope.workdir
    if not workspace_ok:
        if path == workdir:
            return "the whole workspace"
        if workdir.startswith(path + "/"):
            return f"{path}, which holds the workspace"
    return None


def target_reason(
    value: str, scope: Scope, *, recursive: bool, workspace_ok: bool = False, protected_only: bool = False
) -> str | None:
    """What deleting (``recursive``: the tree under) or writing ``value`` would hit, or ``None`` when ordinary."""
    relative = not value.startswith(("/", "~"))
    if recursive and not workspace_ok and relative and (value in _HERE or value.rstrip("/") in _HERE):
        return "everything in the current directory"
    path = absolute(value, scope)
    if path is None:
        return None
    if not protected_only and recursive:
        glob = _GLOB.search(path)
        if glob is not None:
            directory = posixpath.dirname(path[: glob.start()] + "x")
            pattern = path[len(directory) + 1 :].split("/", 1)[0]
            if directory == "/" or pattern in _EVERYTHING:
                critical = _critical(directory, scope, workspace_ok=workspace_ok)
                if critical:
                    return f"everything in {critical}"
                if not workspace_ok and directory == scope.workdir:
                    return "everything in the current directory"
        else:
            critical = _critical(path, scope, workspace_ok=workspace_ok)
            if critical:
                return critical
    try:
        resolved = Path(path).resolve()
    except (OSError, RuntimeError):
        resolved = Path(path)
    what = protected_what(resolved)
    return f"{what}, a protected path" if what else None
