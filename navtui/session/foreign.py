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


# ---------------------------------------------------------------------------- custom providers
# pi's and omp's wire API names -> navtui's providers (omp's "ollama-chat" is Ollama's /api/chat).
_API_PROVIDERS = {
    "openai-completions": "openai",
    "openai-responses": "openai",
    "anthropic-messages": "anthropic",
    "ollama-chat": "ollama",
}


def custom_providers() -> dict[str, tuple[str, str]]:
    """The providers pi's and omp's ``models.json`` define: name -> (navtui provider, base URL). pi's first."""
    import json

    found: dict[str, tuple[str, str]] = {}
    for _origin, sessions in foreign_roots():
        path = sessions.parent / "models.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        providers = data.get("providers") if isinstance(data, dict) else None
        for name, entry in (providers or {}).items() if isinstance(providers, dict) else ():
            if not isinstance(entry, dict) or name in found:
                continue
            url, api = entry.get("baseUrl"), entry.get("api")
            navtui = _API_PROVIDERS.get(api) if isinstance(api, str) else "openai"
            if isinstance(url, str) and url and navtui is not None:
                found[name] = (navtui, url.rstrip("/"))
    return found


def custom_provider(name: str) -> tuple[str, str] | None:
    """(navtui provider, base URL) of a pi/omp custom provider name (``lmstudio``, ``vllm`` ...), else None."""
    return custom_providers().get(name)


def custom_name_for(provider: str, base_url: str) -> str | None:
    """The name pi and omp give the server at ``base_url`` (their custom provider with that URL), else None."""
    wanted = base_url.rstrip("/")
    for name, (kind, url) in custom_providers().items():
        if kind == provider and url == wanted:
            return name
    return None
