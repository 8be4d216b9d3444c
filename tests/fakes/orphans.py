"""Invariant I3: no process a test started outlives it. Found by a marker in ``/proc/<pid>/environ``.

A test puts ``NAVTUI_TEST_RUN=<id>`` in its environment; every command navtui runs inherits it, including
the ones that escaped with ``setsid``/``nohup``/a double fork. What still carries it after the test is an orphan.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

MARKER = "NAVTUI_TEST_RUN"


def marked_processes(run_id: str) -> list[tuple[int, str]]:
    """(pid, command line) of every live process whose environment carries this run's marker."""
    needle = f"{MARKER}={run_id}".encode()
    found: list[tuple[int, str]] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_bytes().rsplit(b")", 1)[-1].split()[0]
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        if state in (b"Z", b"X"):
            continue
        if environ.startswith(needle + b"\0") or b"\0" + needle + b"\0" in environ:
            found.append((int(entry.name), cmdline))
    return found


def wait_for_no_orphans(run_id: str, grace: float = 2.0) -> list[tuple[int, str]]:
    """The marked processes still alive after ``grace`` seconds (killed on the way out, so none leak on)."""
    deadline = time.monotonic() + grace
    alive = marked_processes(run_id)
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = marked_processes(run_id)
    for pid, _ in alive:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return alive
