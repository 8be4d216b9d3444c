"""Files the prompt names are attached to it, so a small model need not write a read call to see them.

"Read README.md and ..." sends README.md's text with the prompt, as an ``@README.md`` attachment would
(``<attached_file path="...">`` blocks, the format the app's ``@path`` attachments use). Only files that exist
inside the workspace are attached, text files only, within a byte budget taken from the window; anything
left out is said in a notice. aider won the one task small models finished this way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from navtui.tools.protected import protected_reason

MAX_FILES = 4
DEFAULT_BUDGET = 32_000  # bytes, when the window is unknown
WINDOW_SHARE = 0.25  # of the window (in bytes at ~4 per token) the attachments may take
# A file name as people write it in a prompt: a path with an extension, not part of a URL or an @mention.
_NAMED = re.compile(r"(?<![\w@/.:-])((?:\.{0,2}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8})(?![\w/])")
_ATTACHED = re.compile(r'<attached_file path="([^"]+)"')


@dataclass
class Attachments:
    text: str
    attached: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path (why)"


def budget_for(window: int | None) -> int:
    return int(window * 4 * WINDOW_SHARE) if window else DEFAULT_BUDGET


def named_files(prompt: str, cwd: Path) -> list[str]:
    """Workspace files the prompt names, in order, without the ones already attached."""
    root = cwd.resolve()
    already = set(_ATTACHED.findall(prompt))
    found: list[str] = []
    for match in _NAMED.finditer(prompt.split("<attached_file", 1)[0]):
        name = match.group(1).rstrip(".")
        if name in found or name in already:
            continue
        path = (root / name).resolve()
        if path.is_file() and path.is_relative_to(root) and protected_reason(path) is None:
            found.append(name)  # a protected file (.env, .git/config) is never sent without a tool call
    return found[:MAX_FILES]


def attach_named_files(
    prompt: str, cwd: Path, window: int | None, seen: Callable[[Path, bytes], None] | None = None
) -> Attachments:
    """The prompt with the files it names appended, within the window's budget. Blocking (reads files).

    ``seen`` is told each attached file and its bytes: the model has read it, so it may edit it at once.
    """
    result = Attachments(text=prompt)
    budget = budget_for(window)
    blocks: list[str] = []
    for name in named_files(prompt, cwd):
        try:
            data = (cwd / name).read_bytes()
        except OSError as exc:
            result.skipped.append(f"{name} (cannot read: {exc.strerror})")
            continue
        if b"\0" in data[:8192]:
            continue  # binary: the model can ask for a description
        if len(data) > budget:
            result.skipped.append(f"{name} ({len(data)} bytes, more than the {budget} left for attachments)")
            continue
        budget -= len(data)
        if seen is not None:
            seen((cwd / name).resolve(), data)
        blocks.append(f'<attached_file path="{name}">\n{data.decode("utf-8", errors="replace")}</attached_file>')
        result.attached.append(name)
    if blocks:
        result.text = prompt.rstrip() + "\n\n" + "\n".join(blocks) + "\n"
    return result
