"""Workspace confinement: which paths tools may touch."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from navtui.core.errors import ToolError
from navtui.core.text import REPLACEMENT, for_wire

# Linux's limits (PATH_MAX, NAME_MAX): a longer path fails in every system call, so it is refused up front.
MAX_PATH_BYTES = 4095
MAX_NAME_BYTES = 255


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
        if REPLACEMENT in text and not os.path.lexists(candidate):
            candidate = _name_with_bytes(candidate)
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
            raise ToolError(f"Cannot resolve path {_clip(text)}: {exc}") from exc
        longest = max((len(os.fsencode(part)) for part in resolved.parts), default=0)
        if len(os.fsencode(str(resolved))) > MAX_PATH_BYTES or longest > MAX_NAME_BYTES:
            raise ToolError(
                f"Invalid path {_clip(text)}: too long (paths are limited to {MAX_PATH_BYTES} bytes and each "
                f"name to {MAX_NAME_BYTES})"
            )
        return resolved

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

    def display(self, resolved: Path) -> str:
        """A short form for output: relative to cwd when inside it, else absolute."""
        if resolved == self.cwd:
            return "."
        if resolved.is_relative_to(self.cwd):
            return str(resolved.relative_to(self.cwd))
        return str(resolved)


def _clip(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def _name_with_bytes(path: Path) -> Path:
    """``path`` with each name the model could only write with U+FFFD (the disk's name holds a byte that is not
    UTF-8, which the model was shown as U+FFFD) replaced by the one name on disk that matches it, if exactly one
    does; otherwise ``path`` as it was (and the tool says it is not found)."""
    found = Path(path.parts[0])
    for part in path.parts[1:]:
        if REPLACEMENT in part and not os.path.lexists(found / part):
            try:
                matches = [name for name in os.listdir(found) if name != part and for_wire(name) == part]
            except OSError:
                return path
            if len(matches) != 1:
                return path
            part = matches[0]
        found = found / part
    return found
