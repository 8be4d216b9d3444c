"""What the command line asks of one navtui run. Light on purpose: the app imports it before its first frame."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_MODEL = "qwen2.5-coder:7b"  # when no model is set anywhere (a local one: nothing leaves the machine)
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
"""pi's and omp's thinking levels, lowest first (``--thinking``, the prompt border's colours)."""


@dataclass
class LaunchOptions:
    cwd: Path = field(default_factory=Path.cwd)
    model: str | None = None
    provider: str | None = None
    base_url: str | None = None
    approval: str | None = None
    sandbox: str | None = None  # --sandbox: workspace-write, read-only or off
    continue_session: bool = False
    resume: str | None = None  # an id/prefix/path; "" means "pick one"
    enable_handover: bool = False
    theme: str | None = None
    thinking: str | None = None  # off|minimal|low|medium|high|xhigh; None: the session's, else the settings'
    advisor: str | None = None
    prompt: str | None = None
    mcp_trust: bool = False  # start the repository's .mcp.json servers for this run without asking
    ephemeral: bool = False  # no session file (tests, benchmarks)

    def overrides(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "model": self.model,
            "provider": self.provider,
            "base_url": self.base_url,
            "approval": self.approval,
        }
        if self.sandbox:
            data["sandbox"] = {"mode": self.sandbox}
        if self.enable_handover:
            data["handover"] = {"enabled": True}
        if self.theme:
            data["ui"] = {"theme": self.theme}
        if self.advisor:
            data["model_roles"] = {"advisor": self.advisor}
            data["advisor"] = {"enabled": True}
        return data
