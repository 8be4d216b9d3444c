"""Finding and stopping the processes a command started, including the ones that left its process group.

Every job's environment carries ``NAVTUI_JOB_ID=<marker>``; ``setsid``/``nohup`` escapees keep it, so a
scan of ``/proc`` finds them. On Linux navtui makes itself a child subreaper, so orphans of a job become
navtui's children instead of init's, and the ones it stops are reaped here: no zombie stays behind even
where init never reaps (containers and micro-VMs often run such an init).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from navtui.tools.shell.env import JOB_MARKER

_PROC = Path("/proc")
HAS_PROC = (_PROC / "self" / "stat").exists()
_PR_SET_CHILD_SUBREAPER = 36
_subreaper = False


def become_subreaper() -> bool:
    """Adopt orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``); False where unsupported. Idempotent."""
    global _subreaper
    if _subreaper or not sys.platform.startswith("linux"):
        return _subreaper
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


@dataclass(frozen=True)
class _Stat:
    state: str
    ppid: int
    pgrp: int

    @property
    def dead(self) -> bool:
        return self.state in ("Z", "X")


def _stat(pid: int) -> _Stat | None:
    try:
        data = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    if len(fields) < 3:
        return None
    return _Stat(fields[0].decode(), int(fields[1]), int(fields[2]))


def parent_of(pid: int) -> int | None:
    """The parent pid of a running process (None when it is gone or /proc is missing)."""
    info = _stat(pid)
    return info.ppid if info is not None and not info.dead else None


def _has_marker(pid: int, needle: bytes) -> bool:
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return environ.startswith(needle) or b"\0" + needle in environ


def is_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie is not running)."""
    if HAS_PROC:
        info = _stat(pid)
        return info is not None and not info.dead
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pids() -> list[int]:
    return [int(entry.name) for entry in os.scandir(_PROC) if entry.name.isdigit()]


def find_processes(
    pgids: Iterable[int] = (),
    marker: str | None = None,
    *,
    prefix: bool = False,
    reap: Iterable[int] = (),
    keep: Iterable[int] = (),
) -> list[int]:
    """Live processes in one of ``pgids`` or whose environment holds the job ``marker`` (or starts with it).

    Dead children of ours in those groups, or listed in ``reap``, are reaped on the way (never those in
    ``keep``: a ``Popen`` owns them and must get their exit status itself).
    """
    if not HAS_PROC:
        return []
    groups = set(pgids)
    known = set(reap)
    owned = set(keep)
    needle = f"{JOB_MARKER}={marker}".encode() if marker else None
    if needle is not None and not prefix:
        needle += b"\0"
    me = os.getpid()
    found: list[int] = []
    for pid in _pids():
        if pid == me:
            continue
        info = _stat(pid)
        if info is None:
            continue
        if info.dead:
            if info.ppid == me and pid not in owned and (info.pgrp in groups or pid in known):
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)
            continue
        if info.pgrp in groups or (needle is not None and _has_marker(pid, needle)):
            found.append(pid)
    return found


def signal_all(pids: Iterable[int], sig: int, pgids: Iterable[int] = ()) -> None:
    """Send ``sig`` to each group and each pid, ignoring the ones already gone."""
    for pgid in pgids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def terminate(
    pgids: Iterable[int],
    marker: str | None = None,
    *,
    grace: float = 2.0,
    prefix: bool = False,
    keep: Iterable[int] = (),
) -> int:
    """SIGTERM the groups and every marked process, SIGKILL what is left after ``grace`` seconds.

    Returns how many processes were running at the start. Safe to call when nothing runs. ``keep`` are
    pids whose exit status belongs to a ``Popen`` (the job leaders): signalled, never reaped here.
    """
    groups = list(pgids)
    owned = set(keep)
    seen: set[int] = set()

    def remaining() -> list[int]:
        if not HAS_PROC:
            return [g for g in groups if _group_exists(g)]
        alive = find_processes(groups, marker, prefix=prefix, reap=seen, keep=owned)
        seen.update(alive)
        return alive

    targets = remaining()
    found = len(targets)
    if not found:
        return 0
    signal_all(targets, signal.SIGTERM, groups)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        time.sleep(0.05)
        targets = remaining()
        if not targets:
            remaining()  # one more pass reaps what died last
            return found
    # Some ignore SIGTERM (or trap it); the rest are killed, and so is anything they spawned meanwhile.
    for _ in range(5):
        signal_all(targets, signal.SIGKILL, groups)
        time.sleep(0.05)
        targets = remaining()
        if not targets:
            break
    remaining()
    return found
