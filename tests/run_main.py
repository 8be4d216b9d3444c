"""``navtui ARGS`` called in the test's own process (``navtui.cli.main``), answered like ``subprocess.run``.

For tests about what a run does (its answer, its messages, its exit code, the files it leaves), not about the
process: a fresh interpreter costs 1.5-2 s of CPU per run (10 s and more on a loaded box). What only a process
shows stays a subprocess test: ``python -m navtui`` itself (tests/test_cli.py), signals and kill -9
(tests/tools/shell/test_lifetime.py, tests/reliability/test_tools.py), crash points and a full disk
(tests/fakes/crash.py), a closed pipe, a pty.

As in a subprocess: stdin is empty (/dev/null), stdout and stderr are real files (not terminals) read back as text,
the working directory is ``cwd``, ``env`` is added to the environment for the run, and a ``SystemExit`` (argparse's
usage errors) is the exit code.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path


@contextlib.contextmanager
def _environment(extra: Mapping[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_main(*args: str, cwd: Path, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``navtui ARGS`` in ``cwd`` through ``navtui.cli.main``; stdin empty, output captured as text."""
    from navtui.cli import main

    assert "NAVTUI_CRASH_AT" not in os.environ and "NAVTUI_CRASH_AT" not in (env or {}), "crash points need a process"
    with contextlib.ExitStack() as stack:
        stdin = stack.enter_context(open(os.devnull, encoding="utf-8"))  # noqa: SIM115
        out = stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogateescape"))
        err = stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogateescape"))
        stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(_environment(env or {}))
        saved = sys.stdin, sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = stdin, out, err
        try:
            code = main(list(args))
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(["navtui", *args], code, out.read(), err.read())
