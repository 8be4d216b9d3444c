"""Server processes that end with navtui, even when navtui is killed with SIGKILL.

The SDK spawns a stdio server itself (its own session, pipes, a spec-following shutdown), so navtui cannot
hand it a ``preexec_fn``. Instead the server is started through a tiny launcher: ``python -c`` that asks
the kernel for ``PR_SET_PDEATHSIG`` (SIGKILL when navtui dies) and then ``exec``s the server, which keeps
the setting. Its environment carries the same ``NAVTUI_JOB_ID`` marker as shell jobs, so a process the
server spawned (which does not inherit the death signal) can still be found and stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
from collections.abc import Callable, Sequence

from navtui.tools import procs
from navtui.tools.env import JOB_MARKER

# argv: -c <navtui pid> <command> <args...>. The parent check closes the race where navtui died before prctl.
_LAUNCHER = """\
import ctypes, os, signal, sys
ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    os._exit(1)
try:
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as exc:
    sys.stderr.write(f"navtui: cannot run {sys.argv[2]!r}: {exc.strerror}\\n")
    os._exit(127)
"""

LINUX = sys.platform.startswith("linux")


def launch_command(command: str, args: Sequence[str]) -> tuple[str, list[str]]:
    """The command line that runs ``command args`` with the parent-death signal set (Linux; as is elsewhere)."""
    if not LINUX:
        return command, list(args)
    return sys.executable, ["-I", "-S", "-c", _LAUNCHER, str(os.getpid()), command, *args]


def new_token() -> str:
    """A marker prefix unique to this navtui process: ``<pid>-<random>``, like shell jobs'."""
    return f"{os.getpid()}-{secrets.token_hex(4)}"


def marker_env(marker: str) -> dict[str, str]:
    return {JOB_MARKER: marker}


def server_pid(marker: str) -> int | None:
    """The server navtui started with ``marker`` (its direct child), or None when it is not running."""
    me = os.getpid()
    for pid in procs.find_processes(marker=marker):
        if procs.parent_of(pid) == me:
            return pid
    return None


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
