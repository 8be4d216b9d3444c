"""Editing the prompt in the user's own editor (ctrl+g, or ctrl+x ctrl+e as in bash).

The prompt's text goes into a temporary file, ``$VISUAL`` (else ``$EDITOR``, else ``vi``) opens it with the app
suspended (the terminal is the editor's until it exits), and the saved text comes back. An editor that cannot
start or exits with an error leaves the prompt as it was and says why. Where the app cannot suspend (a headless
or web driver) the editor still runs, which suits editors with their own window (``code --wait``).

The file is ``prompt.md`` in a new 0700 folder of navtui's home (``~/.navtui/draft-XXXX/``), not in ``/tmp``: a
sandboxed command may write ``/tmp`` (and a background one runs while you type), so a draft there could be
rewritten between the editor's save and navtui's read, putting its words in your prompt. The folder also holds
what the editor writes beside the file (swap and backup files) and is removed with them. Where navtui's home cannot be
made (a ``HOME`` that is not there), the prompt keeps its text and a notice says why.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
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
    from navtui.core.programs import program

    try:
        completed = subprocess.run([program(argv[0]), *argv[1:]], check=False)  # never the workspace's `vi`
    except OSError as exc:
        return f"could not start {argv[0]}: {exc.strerror or exc}; set $VISUAL or $EDITOR"
    if completed.returncode != 0:
        return f"{shlex.join(argv[:-1])} exited with status {completed.returncode}"
    return ""


@contextmanager
def draft(text: str) -> Iterator[Path]:
    """A text file holding ``text``, in a private folder removed afterwards with whatever the editor left there.

    Its last line ends with a newline, as editors write them (an editor or a script that appends a line must not
    glue it to the prompt's last word).
    """
    from navtui.config.paths import navtui_home

    home = navtui_home()
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="draft-", dir=home))  # 0700, a fresh name: nobody else's
    try:
        path = folder / "prompt.md"
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text + "\n" if text and not text.endswith("\n") else text)
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _read_back(path: Path) -> EditorResult:
    try:
        edited = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return EditorResult(None, f"could not read what the editor saved: {exc}")
    return EditorResult(edited.rstrip("\n"))  # editors end the file with a newline; a prompt does not


async def edit_text(app: App[Any], text: str) -> EditorResult:
    """Let the user edit ``text`` in their editor; the text they saved, or why there is none."""
    from navtui.config.paths import navtui_home

    with ExitStack() as stack:
        try:
            path = stack.enter_context(draft(text))
        except OSError as exc:  # navtui's home cannot be made (a HOME that is not there or not ours: nobody's)
            where = navtui_home()
            return EditorResult(None, f"no draft could be made in {where}: {exc.strerror or exc}; set NAVTUI_HOME")
        argv = [*editor_command(), str(path)]
        try:
            with app.suspend():
                problem = _run(argv)  # the terminal is the editor's: the app waits, as Textual's docs do
        except SuspendNotSupported:
            problem = await asyncio.to_thread(_run, argv)
        return EditorResult(None, problem) if problem else _read_back(path)
