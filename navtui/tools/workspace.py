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
        self.cwd = Path(self.cwd).resolve()
        self.extra_roots = [Path(p).expanduser().resolve() for p in self.extra_roots]

    @property
    def roots(self) -> list[Path]:
        return [self.cwd, *self.extra_roots]

    def resolve(self, path: str | Path) -> Path:
        """Resolve ``path`` (relative to cwd, ``~`` expanded) through symlinks and ``..``."""
        text = str(path)
        if "\x00" in text:
            raise ToolError(f"Invalid path {text!r}: it contains a NUL byte")
        candidate = Path(text).expanduser()
        if not candidate.is_absolute():
            candidate = self.cwd / candidate
        try:
            return candidate.resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
            raise ToolError(f"Cannot resolve path {text}: {exc}") from exc

    def contains(self, resolved: Path) -> bool:
        return any(resolved == root or resolved.is_relative_to(root) for root in self.roots)

    def is_inside(self, path: str | Path) -> bool:
        """True when ``path`` resolves inside a workspace root (unresolvable paths count as outside)."""
        try:
            return self.contains(self.resolve(path))
        except ToolError:
            return False

    def confine(self, path: str | Path, action: str = "write") -> Path:
        """The resolved path, or a ``ToolError`` when it lies outside every workspace root."""
        resolved = self.resolve(path)
        if not self.contains(resolved):
            raise ToolError(
                f"Refused to {action} {path}: it resolves to {resolved}, outside the workspace {self.cwd}",
                hint="work inside the workspace, or add the directory to tools.extra_roots in settings",
            )
        return resolved

    def display(self, resolved: Path) -> str:
        """A short form for output: relative to cwd when inside it, else absolute."""
        if resolved == self.cwd:
            return "."
        if resolved.is_relative_to(self.cwd):
            return str(resolved.relative_to(self.cwd))
        return str(resolved)
