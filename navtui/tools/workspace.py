"""Workspace confinement: which paths tools may touch."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from navtui.core.errors import ToolError


@dataclass
class Workspace:
    cwd: Path
    extra_roots: list[Path] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cwd = self.cwd.resolve()
        self.extra_roots = [Path(p).expanduser().resolve() for p in self.extra_roots]

    @property
    def roots(self) -> list[Path]:
        return [self.cwd, *self.extra_roots]

    def resolve(self, path: str | Path) -> Path:
        """Resolve ``path`` (relative to cwd, ``~`` expanded) through symlinks and ``..``."""
        candidate = Path(path).expanduser()
        if not candidate.is_absolute():
            candidate = self.cwd / candidate
        return candidate.resolve()

    def contains(self, resolved: Path) -> bool:
        return any(resolved == root or resolved.is_relative_to(root) for root in self.roots)

    def confine(self, path: str | Path, action: str = "write") -> Path:
        """The resolved path, or a ``ToolError`` when it lies outside every workspace root."""
        resolved = self.resolve(path)
        if not self.contains(resolved):
            raise ToolError(
                f"Refused to {action} {path}: it resolves to {resolved}, outside the workspace {self.cwd}",
                hint="work inside the workspace, or add the directory to tools.extra_roots in settings",
            )
        return resolved
