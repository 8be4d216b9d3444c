"""``@path`` in a prompt attaches the file: one step for the app, ``--print`` and ``--json`` alike.

Every ``@path`` that names a readable text file in the working directory has its contents appended after the
prompt, in ``<attached_file path="...">`` blocks (the transcript shows only "attached: path"). An ``@mention``
that is no file (an e-mail address, a decorator) stays plain text. Binary files are refused with a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from navtui.core.walk import is_binary

ATTACH_LIMIT = 100_000  # bytes of one attached file
_AT_TOKEN = re.compile(r"(?:^|(?<=\s))@(\S+)")


@dataclass
class Attached:
    """The prompt for the model, the paths attached, and what to tell the user about the rest."""

    text: str
    paths: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def attached_paths(text: str) -> list[str]:
    """The ``@path`` references in a prompt, in order, without repeats."""
    seen: list[str] = []
    for match in _AT_TOKEN.finditer(text):
        path = match.group(1).rstrip(".,;:!?)")
        if path and path not in seen:
            seen.append(path)
    return seen


def attach_files(text: str, cwd: Path) -> Attached:
    """Append the contents of every ``@path`` that names a readable text file. Blocking: call it in a thread."""
    blocks: list[str] = []
    result = Attached(text)
    for ref in attached_paths(text):
        path = (cwd / ref).resolve()
        if not path.is_file():
            continue  # an @mention that is not a file (an e-mail, a decorator) stays plain text
        try:
            data = path.read_bytes()[: ATTACH_LIMIT + 1]
        except OSError as exc:
            result.problems.append(f"@{ref}: cannot read ({exc.strerror})")
            continue
        if is_binary(data):
            result.problems.append(f"@{ref}: a binary file, not attached")
            continue
        body = data[:ATTACH_LIMIT].decode("utf-8", errors="replace")
        note = f' truncated="{ATTACH_LIMIT} bytes"' if len(data) > ATTACH_LIMIT else ""
        blocks.append(f'<attached_file path="{ref}"{note}>\n{body.rstrip()}\n</attached_file>')
        result.paths.append(ref)
    if blocks:
        result.text = text.rstrip() + "\n\n" + "\n".join(blocks) + "\n"
    return result
