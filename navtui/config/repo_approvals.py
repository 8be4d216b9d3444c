"""The user's answers about a repository's model choices that would leave the user's endpoint, per repository.

A repository's ``.navtui/settings.json`` may pick a model on the provider and endpoint the user configured; one
served elsewhere (``{"model": "claude-sonnet-4-5"}`` in a repository, with a local Ollama configured) is asked
about once (``config/project_rules.py: SameEndpoint``). The answer is stored with the model and where it would go,
so it does not carry over to another model or endpoint. The file lives in the user's navtui home, where no
repository can write an answer for itself (as ``mcp-approvals.json``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Literal

from navtui.config.paths import navtui_home
from navtui.config.project_rules import HeldModel

Decision = Literal["allow", "deny"]


def approvals_path() -> Path:
    return navtui_home() / "repository-approvals.json"


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or unreadable: it only held answers, and asking again is the safe side
    return data if isinstance(data, dict) else {}


class RepoApprovals:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or approvals_path()

    def decision(self, root: Path, held: HeldModel) -> Decision | None:
        """The remembered answer for this model at this path in this repository (None: ask)."""
        projects = _read(self.path).get("projects")
        entry = projects.get(str(root), {}).get(held.path) if isinstance(projects, dict) else None
        if not isinstance(entry, dict) or entry.get("value") != held.value:
            return None
        if entry.get("endpoint") != list(held.endpoint):
            return None
        decision = entry.get("decision")
        return decision if decision in ("allow", "deny") else None

    def remember(self, root: Path, held: HeldModel, decision: Decision) -> None:
        from navtui.core.fs import atomic_write_text

        data = _read(self.path)
        projects = data.setdefault("projects", {})
        if not isinstance(projects, dict):
            projects = data["projects"] = {}
        answers = projects.setdefault(str(root), {})
        answers[held.path] = {
            "decision": decision,
            "value": held.value,
            "endpoint": list(held.endpoint),
            "at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        atomic_write_text(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o600)
