"""Server processes that end with navtui, even when navtui is killed with SIGKILL.

The SDK spawns a stdio server itself (its own session, pipes, a spec-following shutdown), so navtui cannot
hand it a ``preexec_fn``. Instead the server's command line goes through the shell jobs' launcher
(``tools/sandbox/exec.py``, unconfined here): it asks for ``PR_SET_PDEATHSIG`` (SIGKILL when navtui dies) and
``exec``s the relay (``relay.py``: it drops a message over ``MAX_MESSAGE_BYTES`` while reading it), which keeps the
setting and starts the server through the launcher again, with the same signal for the relay's death. The signal is tied to the thread that forked: the SDK forks on
the event loop's thread, which lives as long as navtui. The environment carries the shell jobs' marker
(``NAVTUI_JOB_ID=<owner>-...``), so what a server spawned (which does not inherit the death signal) is found
and stopped, and ``tools.lifetime.sweep_leftovers`` stops what a killed navtui left behind at the next start.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from navtui.tools.shell import lifetime, procs

LINUX = sys.platform.startswith("linux")


RELAY = Path(__file__).with_name("relay.py")
MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # one message from a stdio server; a longer one is refused while read (relay.py)


def launch_command(command: str, args: Sequence[str]) -> tuple[str, list[str]]:
    """The command line that runs ``command args`` with the parent-death signal set, its stdout through the relay
    that refuses a message over ``MAX_MESSAGE_BYTES`` (Linux; as is elsewhere)."""
    if not LINUX:
        return command, list(args)
    deathsig = int(signal.SIGKILL)
    server_launcher = lifetime.launcher_argv([], {"deathsig": deathsig})[:-1]  # the relay adds parent= and --
    relay = [sys.executable, "-E", "-s", "-S", str(RELAY), str(MAX_MESSAGE_BYTES), "--", *server_launcher]
    argv = lifetime.launcher_argv([*relay, "--", command, *args], {"parent": os.getpid(), "deathsig": deathsig})
    return argv[0], argv[1:]


def new_token() -> str:
    """A marker prefix unique to this navtui run, as shell jobs' are (``<owner>-<hometag>.<random>``)."""
    return lifetime.new_token()


def server_pid(marker: str) -> int | None:
    """The process navtui started for the server with ``marker`` (its direct child: the relay, which ends as the
    server ends), or None when it is not running."""
    me = os.getpid()
    for pid in procs.find_processes(marker=marker):
        if procs.parent_of(pid) == me:
            return pid
    return None


def end_server(marker: str) -> None:
    """Send the server with ``marker`` a TERM (its relay, which passes it on and ends after the server). Blocking."""
    pid = server_pid(marker)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def stop_leftovers(marker: str) -> int:
    """Stop every process still carrying ``marker`` (what a server spawned and left behind). Blocking."""
    return procs.terminate([], marker, grace=1.0)


def watch_exit(pid: int, on_exit: Callable[[], None]) -> Callable[[], None] | None:
    """Call ``on_exit`` on the running loop when ``pid`` ends (a pidfd: no polling). Returns the way to stop
    watching, or None where pidfds are not available (the server's death is then noticed on the next call)."""
    try:
        fd = os.pidfd_open(pid)  # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):
        return None
    loop = asyncio.get_running_loop()
    closed = False

    def stop() -> None:
        nonlocal closed
        if closed:
            return
        closed = True
        with contextlib.suppress(Exception):
            loop.remove_reader(fd)
        os.close(fd)

    def fire() -> None:
        stop()
        on_exit()

    try:
        loop.add_reader(fd, fire)
    except (NotImplementedError, RuntimeError):
        os.close(fd)
        return None
    return stop
