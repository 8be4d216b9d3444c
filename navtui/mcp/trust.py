"""The user's answers about a repository's MCP servers, remembered per repository and server.

A repository's ``.mcp.json`` names programs to run; cloning a repository must never be enough to run them.
Each answer is stored with the server entry's fingerprint, so an approval does not carry over to a changed
command. The file lives in the user's navtui home, where no repository can write an approval for itself.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Literal

from navtui.config.paths import navtui_home
from navtui.config.settings import read_json_object
from navtui.core.errors import ConfigError
from navtui.mcp.config import ServerSpec

Decision = Literal["allow", "deny"]


def trust_path() -> Path:
    return navtui_home() / "mcp-approvals.json"


class TrustStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or trust_path()

    def decision(self, root: Path, spec: ServerSpec) -> Decision | None:
        """The remembered answer for this exact server entry in this repository (None: ask)."""
        entry = self._projects().get(str(root), {}).get(spec.name)
        if not isinstance(entry, dict) or entry.get("fingerprint") != spec.fingerprint():
            return None
        decision = entry.get("decision")
        return decision if decision in ("allow", "deny") else None

    def remember(self, root: Path, spec: ServerSpec, decision: Decision) -> None:
        from navtui.core.fs import atomic_write_text

        try:
            data = read_json_object(self.path)
        except ConfigError:
            data = {}  # an unreadable file only held answers; asking again is the safe side
        projects = data.setdefault("projects", {})
        if not isinstance(projects, dict):
            projects = data["projects"] = {}
        servers = projects.setdefault(str(root), {})
        servers[spec.name] = {
            "decision": decision,
            "fingerprint": spec.fingerprint(),
            "target": spec.target,
            "at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o600)

    def _projects(self) -> dict[str, dict[str, object]]:
        try:
            data = read_json_object(self.path)
        except ConfigError:
            return {}
        projects = data.get("projects")
        return projects if isinstance(projects, dict) else {}
