"""pi's and omp's own session folders: navtui lists, resumes and exports their sessions where they live.

pi keeps a directory's sessions in ``<agent dir>/sessions/--<cwd with / as ->--/`` (navtui's own layout);
``PI_CODING_AGENT_DIR`` moves the agent dir from ``~/.pi/agent``. omp keeps them in ``~/.omp/agent/sessions/``
under a name relative to the home directory (``-work-app`` for ``~/work/app``), to the temp directory
(``-tmp-x`` for ``/tmp/x``), or else the absolute form pi uses; ``PI_CONFIG_DIR`` renames ``.omp``, and
``PI_CODING_AGENT_DIR`` (which omp honours too) makes both tools share one folder, listed once as pi's.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Literal

Origin = Literal["navtui", "pi", "omp"]


def foreign_roots() -> list[tuple[Origin, Path]]:
    """The sessions folders of pi and omp, whether or not they exist."""
    override = os.environ.get("PI_CODING_AGENT_DIR")
    if override:
        return [("pi", Path(override).expanduser() / "sessions")]
    home = Path.home()
    omp = home / (os.environ.get("PI_CONFIG_DIR") or ".omp") / "agent" / "sessions"
    return [("pi", home / ".pi" / "agent" / "sessions"), ("omp", omp)]


def _encode(text: str) -> str:
    return re.sub(r"[/\\:]", "-", text)


def pi_dir_name(cwd: Path) -> str:
    return "--" + _encode(str(cwd).lstrip("/\\")) + "--"


def omp_dir_names(cwd: Path) -> list[str]:
    """The names omp gives ``cwd``'s folder: its current one first, then the older absolute form."""
    real = cwd.resolve()
    names: list[str] = []
    temp, home = Path(tempfile.gettempdir()).resolve(), Path.home().resolve()
    if real == temp or real.is_relative_to(temp):
        relative = _encode(str(real.relative_to(temp))) if real != temp else ""
        names.append(f"-tmp-{relative}" if relative else "-tmp")
    elif real == home or real.is_relative_to(home):
        names.append("-" + (_encode(str(real.relative_to(home))) if real != home else ""))
    names.append(pi_dir_name(real))
    return list(dict.fromkeys(names))


def foreign_dirs(cwd: Path | None) -> list[tuple[Origin, Path]]:
    """Where pi and omp keep ``cwd``'s sessions (``None``: their whole sessions folders)."""
    out: list[tuple[Origin, Path]] = []
    for origin, root in foreign_roots():
        if cwd is None:
            out.append((origin, root))
            continue
        names = [pi_dir_name(cwd)] if origin == "pi" else omp_dir_names(cwd)
        out.extend((origin, root / name) for name in names)
    return out


def origin_of(path: Path) -> Origin:
    """Whose sessions folder ``path`` is in (navtui's when neither pi's nor omp's)."""
    for origin, root in foreign_roots():
        try:
            if path.is_relative_to(root):
                return origin
        except ValueError:
            continue
    return "navtui"
