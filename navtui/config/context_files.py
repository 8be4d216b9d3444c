"""Context files (AGENTS.md, CLAUDE.md): the user's, then the repository root down to cwd.

A repository's context file is untrusted text the model will read as instructions, so what it holds is made
visible: a file over ``MAX_CONTEXT_FILE_BYTES`` is cut at a line end with a note saying so (to the model, and
a warning to the user), and invisible characters that can carry hidden instructions (Unicode tag characters,
bidirectional overrides, zero-width characters) reach the model as visible ``<U+E0069>`` codes, with a warning
that quotes what the tag characters spell. A repository's file is read only when it is a regular file inside the
repository (``config/repo_files.py``): ``AGENTS.md -> /proc/self/environ`` is refused with a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from navtui.config.paths import find_repo_root, navtui_home
from navtui.config.repo_files import RefusedFile, read_regular
from navtui.core.wording import counted

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")
MAX_CONTEXT_FILE_BYTES = 64 * 1024
# Tag characters (U+E0000-U+E007F) mirror ASCII invisibly; bidi controls reorder what a reviewer sees;
# zero-width characters hide inside words. None has a place in a plain instructions file.
# (ZWJ and ZWNJ are left alone: emoji sequences and several scripts need them.)
_HIDDEN = re.compile("[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200b\u2060-\u2064\ufeff]")
_TAGS = re.compile("[\U000e0020-\U000e007e]+")


@dataclass(frozen=True)
class ContextFile:
    path: Path
    text: str  # what the model reads: cut to the limit, hidden characters made visible
    size: int = 0  # bytes on disk
    truncated: bool = False
    hidden: int = 0  # invisible characters found (and made visible)
    hidden_message: str = ""  # what the tag characters spell, if any

    def warnings(self) -> list[str]:
        """What the user should know about this file (shown once at start)."""
        found: list[str] = []
        if self.truncated:
            found.append(
                f"{self.path} is {_size(self.size)}: only its first {_size(MAX_CONTEXT_FILE_BYTES)} are sent to the "
                "model (it is told so)"
            )
        if self.hidden:
            spelled = f'; the tag characters spell "{self.hidden_message[:200]}"' if self.hidden_message else ""
            found.append(
                f"{self.path} contains {counted(self.hidden, 'invisible character')} (tag, bidi or zero-width) that can hide "
                f"instructions: the model sees them as <U+...> codes{spelled}"
            )
        return found


def _size(count: int) -> str:
    return f"{count / 1024 / 1024:.1f} MB" if count >= 1024 * 1024 else f"{count // 1024} KB"


def _read(path: Path, inside: Path | None, refused: list[str] | None = None) -> ContextFile | None:
    """The file as the model reads it; ``inside``: the repository it must lie in (None: the user's own file).
    A file that is there but refused (a link out of the repository, a named pipe) is said in ``refused``."""
    try:
        data, size = read_regular(path, MAX_CONTEXT_FILE_BYTES + 1, inside=inside)
    except RefusedFile as exc:
        if refused is not None:
            refused.append(f"{path} {exc}")
        return None
    except OSError:
        return None
    data = data.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark from a Windows editor is not hidden text
    truncated = len(data) > MAX_CONTEXT_FILE_BYTES
    if truncated:
        data = data[:MAX_CONTEXT_FILE_BYTES]
        cut = data.rfind(b"\n")
        data = data[: cut + 1] if cut > 0 else data
    text = data.decode("utf-8", errors="ignore" if truncated else "replace").strip()
    if not text:
        return None
    message = "".join(chr(ord(ch) - 0xE0000) for run in _TAGS.findall(text) for ch in run)
    hidden = len(_HIDDEN.findall(text))
    if hidden:
        text = _HIDDEN.sub(lambda match: f"<U+{ord(match.group()):04X}>", text)
    if truncated:
        text += (
            f"\n\n[navtui: {path.name} is {_size(size)}; only its first {_size(MAX_CONTEXT_FILE_BYTES)} are included "
            "here, cut at a line end. Read the file with the read tool if you need the rest.]"
        )
    return ContextFile(path, text, size, truncated, hidden, message)


def _dirs_root_to_cwd(cwd: Path) -> tuple[Path, list[Path]]:
    """The repository root (``cwd`` outside one) and the directories from it down to ``cwd``."""
    cwd = cwd.resolve()
    root = find_repo_root(cwd) or cwd
    dirs = [cwd]
    while dirs[-1] != root and dirs[-1].parent != dirs[-1]:
        dirs.append(dirs[-1].parent)
    return root, list(reversed(dirs))


def _discover(cwd: Path, refused: list[str] | None) -> list[ContextFile]:
    found: list[ContextFile] = []
    user = _read(navtui_home() / "AGENTS.md", None, refused)
    if user:
        found.append(user)
    root, dirs = _dirs_root_to_cwd(cwd)
    for directory in dirs:
        for name in CONTEXT_FILE_NAMES:
            item = _read(directory / name, root, refused)  # a repository's file: inside it, a regular file
            if item:
                found.append(item)
                break
    return found


def discover_context_files(cwd: Path) -> list[ContextFile]:
    """User file first, then one file per directory from the repository root down to ``cwd``.

    In each directory AGENTS.md wins over CLAUDE.md, so a repository that keeps both for different tools
    does not send the model the same guidance twice. A repository's file that is a link out of it, or no regular
    file, is not read (``context_file_warnings`` says so): the next name in its directory is.
    """
    return _discover(cwd, None)


def context_file_warnings(cwd: Path) -> list[str]:
    """The warnings of every context file the model will read (cut short, hidden characters), and of those it
    will not (a link out of the repository, a named pipe)."""
    refused: list[str] = []
    found = _discover(cwd, refused)
    return [*refused, *(warning for item in found for warning in item.warnings())]


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
