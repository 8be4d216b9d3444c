"""The programs navtui starts by name (git, rg, bash, a clipboard tool, the editor), found on ``PATH``'s absolute
folders only.

An empty ``PATH`` entry (``a::b``, a trailing ``:``) and ``.`` mean the current folder, which for navtui is the
workspace: a cloned repository that ships an executable ``git`` would have run at the first status line, ``xclip``
at ``/copy`` on a machine without one. A shell looks there because the user asked it to; navtui's own calls do not.
Commands navtui runs for the model or the user (the shell tool, ``!cmd``) keep ``PATH`` as it is for the programs
*they* start; the sandbox launcher finds the command itself the same way (``tools/sandbox/namespaces.py``).
"""

from __future__ import annotations

import errno
import os
import shutil


def absolute_path_entries(path: str | None = None) -> str:
    """``PATH`` (or ``path``) without its relative entries."""
    value = os.environ.get("PATH", os.defpath) if path is None else path
    kept = os.pathsep.join(folder for folder in value.split(os.pathsep) if os.path.isabs(folder))
    return kept or os.defpath  # an empty PATH is the current folder again for exec: the system's default instead


def find_program(name: str) -> str | None:
    """``shutil.which(name)`` over ``PATH``'s absolute folders; a name with a slash is taken as it is."""
    if os.sep in name:
        return shutil.which(name)
    return shutil.which(name, path=absolute_path_entries())


def program(name: str) -> str:
    """The path to start ``name`` with; ``FileNotFoundError`` when no absolute folder of ``PATH`` holds it (handing
    the bare name to ``subprocess`` would search the workspace again)."""
    found = find_program(name)
    if found is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), name)
    return found
