"""Editing the prompt in the user's own editor (ctrl+g, or ctrl+x ctrl+e as in bash).

The prompt's text goes into a temporary file, ``$VISUAL`` (else ``$EDITOR``, else ``vi``) opens it with the app
suspended (the terminal is the editor's until it exits), and the saved text comes back. An editor that cannot
start or exits with an error leaves the prompt as it was and says why. Where the app cannot suspend (a headless
or web driver) the editor still runs, which suits editors with their own window (``code --wait``).
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported


@dataclass(frozen=True)
class EditorResult:
    text: str | None  # the edited text; None when the editor failed
    problem: str = ""  # what went wrong, for the user


def editor_command() -> list[str]:
    """``$VISUAL``, else ``$EDITOR``, else ``vi``, split as a shell would (``code --wait`` is two words)."""
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError:
                return [value]
    return ["vi"]


def _run(argv: list[str]) -> str:
    """Run the editor; '' when it went well, else what went wrong."""
    try:
        completed = subprocess.run(argv, check=False)
    except OSError as exc:
        return f"could not start {argv[0]}: {exc.strerror or exc}; set $VISUAL or $EDITOR"
    if completed.returncode != 0:
        return f"{shlex.join(argv[:-1])} exited with status {completed.returncode}"
    return ""


def _write_draft(text: str) -> Path:
    """A text file holding ``text``: its last line ends with a newline, as editors write them (an editor or a
    script that appends a line must not glue it to the prompt's last word)."""
    handle, name = tempfile.mkstemp(prefix="navtui-prompt-", suffix=".md")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text + "\n" if text and not text.endswith("\n") else text)
    return Path(name)


def _read_back(path: Path) -> EditorResult:
    try:
        edited = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return EditorResult(None, f"could not read what the editor saved: {exc}")
    return EditorResult(edited.rstrip("\n"))  # editors end the file with a newline; a prompt does not


async def edit_text(app: App[Any], text: str) -> EditorResult:
    """Let the user edit ``text`` in their editor; the text they saved, or why there is none."""
    path = _write_draft(text)
    try:
        argv = [*editor_command(), str(path)]
        try:
            with app.suspend():
                problem = _run(argv)  # the terminal is the editor's: the app waits, as Textual's docs do
        except SuspendNotSupported:
            problem = await asyncio.to_thread(_run, argv)
        return EditorResult(None, problem) if problem else _read_back(path)
    finally:
        path.unlink(missing_ok=True)  # noqa: ASYNC240 (a temporary file of ours: no waiting)
