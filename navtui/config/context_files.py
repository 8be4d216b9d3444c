"""Context files (AGENTS.md, CLAUDE.md): the user's, then the repository root down to cwd."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from navtui.config.paths import find_repo_root, navtui_home

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")
MAX_CONTEXT_FILE_BYTES = 64 * 1024


@dataclass(frozen=True)
class ContextFile:
    path: Path
    text: str


def _read(path: Path) -> ContextFile | None:
    try:
        data = path.read_bytes()[:MAX_CONTEXT_FILE_BYTES]
    except OSError:
        return None
    text = data.decode("utf-8", errors="replace").strip()
    return ContextFile(path, text) if text else None


def _dirs_root_to_cwd(cwd: Path) -> list[Path]:
    cwd = cwd.resolve()
    root = find_repo_root(cwd) or cwd
    dirs = [cwd]
    while dirs[-1] != root and dirs[-1].parent != dirs[-1]:
        dirs.append(dirs[-1].parent)
    return list(reversed(dirs))


def discover_context_files(cwd: Path) -> list[ContextFile]:
    """User file first, then one file per directory from the repository root down to ``cwd``.

    In each directory AGENTS.md wins over CLAUDE.md, so a repository that keeps both for different tools
    does not send the model the same guidance twice.
    """
    found: list[ContextFile] = []
    user = _read(navtui_home() / "AGENTS.md")
    if user:
        found.append(user)
    for directory in _dirs_root_to_cwd(cwd):
        for name in CONTEXT_FILE_NAMES:
            item = _read(directory / name)
            if item:
                found.append(item)
                break
    return found


def render_context_block(files: list[ContextFile], cwd: Path) -> str:
    if not files:
        return ""
    parts = ["<context>"]
    for item in files:
        try:
            shown = item.path.relative_to(cwd)
        except ValueError:
            shown = item.path
        parts.append(f'<file path="{shown}">\n{item.text}\n</file>')
    parts.append("</context>")
    return "\n".join(parts)
