"""Shell output files (``~/.navtui/artifacts``) are pruned at start: by age, then oldest first down to a size.

Every command writes its whole output there (and MCP servers their stderr and their large results), so without
pruning the folder only grows. A file whose owner
(the navtui named in its file name) still runs is never removed: another open navtui may be reading it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from navtui.tools.shell.lifetime import owner_alive

_PATTERNS = ("shell-*.log", "mcp-*.log", "mcp-*.txt")


@dataclass
class PruneReport:
    removed: int = 0
    freed: int = 0  # bytes
    kept: int = 0
    kept_bytes: int = 0


def _owner(path: Path) -> str:
    """``shell-<date>-<time>-<owner>-<hex>-<job>.log`` (``mcp-`` files alike) -> ``<owner>`` (``pid.starttime``,
    or a bare pid)."""
    parts = path.stem.split("-")
    return parts[3] if len(parts) >= 6 else ""


def prune_artifacts(folder: Path, *, max_age_days: float, max_bytes: int, now: float | None = None) -> PruneReport:
    """Delete output files older than ``max_age_days``, then the oldest until the rest fit in ``max_bytes``."""
    report = PruneReport()
    now = time.time() if now is None else now
    files: list[tuple[float, int, Path]] = []
    try:
        entries = [path for pattern in _PATTERNS for path in folder.glob(pattern)]
    except OSError:
        return report
    for path in entries:
        try:
            info = path.stat()
        except OSError:
            continue
        files.append((info.st_mtime, info.st_size, path))
    files.sort()  # oldest first
    total = sum(size for _, size, _ in files)
    cutoff = now - max_age_days * 86400
    for mtime, size, path in files:
        if mtime >= cutoff and total <= max_bytes:
            break  # everything after this one is newer and fits
        owner = _owner(path)
        if owner and owner_alive(owner):
            continue
        try:
            os.unlink(path)
        except OSError:
            continue
        report.removed += 1
        report.freed += size
        total -= size
    report.kept = len(files) - report.removed
    report.kept_bytes = total
    return report
