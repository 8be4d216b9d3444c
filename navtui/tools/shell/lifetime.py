"""Child processes die with navtui, even on ``kill -9``: a parent-death signal on each one it starts, a marker
in their environment, and a sweep of what an earlier run left behind.

- ``spawn(argv, policy, ...)`` starts ``argv`` through the launcher (``sandbox/exec.py``), which asks for
  SIGKILL when navtui goes (``PR_SET_PDEATHSIG``) and applies the sandbox policy before ``exec``.
- The signal is tied to the *thread* that forked, not the process, so every spawn happens on one daemon
  thread that lives as long as navtui: a worker thread that forks and then ends would kill its children.
- Every process carries ``NAVTUI_JOB_ID=<owner>-<hometag>.<random>-<job>``: ``<owner>`` is ``pid.starttime``
  of the navtui that started it, ``<hometag>`` a hash of its navtui home. The children of a killed job leader are not signalled by the kernel;
  ``sweep_leftovers()`` (run at start) stops every marked process of this user whose owner no longer runs and
  used the same navtui home, and removes the scratch dirs of this user's gone owners (of any home, unless one of
  that run's processes still lives).

MCP servers and any other long-lived child use the same calls: ``new_token()`` for the marker prefix,
``marked_env()``, and ``spawn()`` (or ``launcher_argv()`` when a library does the forking).
"""

from __future__ import annotations

import concurrent.futures
import os
import queue
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from navtui.tools.sandbox.exec import encode
from navtui.tools.shell import procs
from navtui.tools.shell.env import JOB_MARKER

T = TypeVar("T")
LAUNCHER = Path(__file__).parents[1] / "sandbox" / "exec.py"
SCRATCH_PREFIX = "navtui-scratch-"
_HAS_PDEATHSIG = sys.platform.startswith("linux")


def _start_time(pid: int) -> str | None:
    """The process start time in clock ticks since boot (with the pid, it names one process for good)."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    return fields[19].decode() if len(fields) > 19 else None


_PROCESS = f"{os.getpid()}.{_start_time(os.getpid()) or 0}"


def _home_tag() -> str:
    """A short tag of the navtui home in use: the sweep only stops leftovers of runs that shared it (so test
    suites with their own homes, running side by side, never stop each other's processes)."""
    import hashlib

    from navtui.config.paths import navtui_home

    return hashlib.sha1(str(navtui_home().expanduser().resolve()).encode()).hexdigest()[:6]


def owner_token() -> str:
    """``pid.starttime`` of this process: names one process for good (a pid alone can be reused)."""
    global _PROCESS
    if not _PROCESS.startswith(f"{os.getpid()}."):  # a forked copy of navtui (tests do this) is another owner
        _PROCESS = f"{os.getpid()}.{_start_time(os.getpid()) or 0}"
    return _PROCESS


def new_token() -> str:
    """A marker prefix for one job registry or MCP manager: ``<owner>-<hometag>.<random>``."""
    return f"{owner_token()}-{_home_tag()}.{secrets.token_hex(4)}"


def owner_alive(owner: str) -> bool:
    """Whether the navtui named by an owner token still runs. Tokens without a start time match by pid."""
    pid_text, _, start = owner.partition(".")
    if not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if not procs.is_alive(pid):
        return False
    return not start or start == "0" or _start_time(pid) == start


def _owner_and_home(token: str) -> tuple[str, str | None]:
    """``<owner>-<hometag>.<random>...`` -> (owner, hometag); markers from before home tags give None."""
    owner, _, rest = token.partition("-")
    head = rest.split("-", 1)[0]
    return owner, (head.split(".", 1)[0] if "." in head else None)


def _leftover(token: str, tag: str) -> bool:
    """A marker (or scratch name) of a navtui that shared our home (or predates home tags) and is gone."""
    owner, home = _owner_and_home(token)
    return home in (None, tag) and not owner_alive(owner)


def marked_env(env: Mapping[str, str], marker: str) -> dict[str, str]:
    """``env`` plus the job marker (which replaces a marker inherited from an outer navtui)."""
    return {**env, JOB_MARKER: marker}


def launcher_argv(argv: Sequence[str], policy: Mapping[str, Any] | None = None) -> list[str]:
    """``argv`` run through the launcher: ``-E -s -S`` keep the interpreter start small and the user's
    ``PYTHON*`` variables out of it (they still reach the command). Without a ``policy`` the child only gets
    SIGKILL when navtui goes; fork it from a thread that lives as long as navtui (the event loop's, or
    ``spawn``), since the signal follows the forking thread."""
    if policy is None:
        policy = {"parent": os.getpid(), "deathsig": int(signal.SIGKILL)}
    return [sys.executable, "-E", "-s", "-S", str(LAUNCHER), *encode(dict(policy)), "--", *argv]


class _Spawner:
    """One daemon thread that does every fork, so the parent-death signal fires only when navtui exits."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue[tuple[Callable[[], Any], concurrent.futures.Future[Any]]] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, work: Callable[[], T]) -> T:
        if threading.current_thread() is self._thread:
            return work()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="navtui-spawner", daemon=True)
                self._thread.start()
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._requests.put((work, future))
        return future.result()

    def _serve(self) -> None:
        while True:
            work, future = self._requests.get()
            try:
                future.set_result(work())
            except BaseException as exc:  # handed to the caller, whatever it is
                future.set_exception(exc)


_SPAWNER = _Spawner()


def spawn(argv: Sequence[str], policy: Mapping[str, Any] | None = None, **popen: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(argv, **popen)`` through the launcher, forked on the spawner thread.

    ``policy`` is a ``SandboxPolicy.launcher_policy()`` object; without one the child only gets the
    parent-death signal. Where that signal does not exist (not Linux) ``argv`` runs directly.
    """
    if _HAS_PDEATHSIG:
        argv = launcher_argv(argv, policy)
    return _SPAWNER.run(lambda: subprocess.Popen(list(argv), **popen))


def scratch_dir(token: str) -> Path:
    """A private temp dir for the jobs of one registry (their ``TMPDIR``); removed when they are all stopped."""
    path = Path(tempfile.gettempdir()) / f"{SCRATCH_PREFIX}{token}"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def _markers() -> Iterator[tuple[int, str]]:
    """(pid, marker) of each live process of this user that carries a job marker."""
    if not procs.HAS_PROC:
        return
    uid, needle = os.getuid(), f"{JOB_MARKER}=".encode()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            environ = Path(entry.path, "environ").read_bytes()
        except OSError:
            continue
        marker = next((v[len(needle) :] for v in environ.split(b"\0") if v.startswith(needle)), None)
        if marker is not None:
            yield int(entry.name), marker.decode(errors="replace")


def _leftovers() -> list[int]:
    """Live processes of this user whose marker names an owner that no longer runs."""
    me, tag = os.getpid(), _home_tag()
    return [pid for pid, marker in _markers() if pid != me and _leftover(marker, tag) and procs.is_alive(pid)]


def _live_tokens() -> set[str]:
    """The registry tokens (``<owner>-<hometag>.<random>``) in the markers of this user's live processes."""
    return {marker.rsplit("-", 1)[0] for _, marker in _markers()}


def _stale_scratch() -> list[Path]:
    """This user's scratch dirs whose navtui is gone, whatever its home: a test's or a script's navtui home is
    seldom used again, so "the next start in the same home" never came for them, and /tmp kept one folder per
    killed run. A dir of another home is kept while a process of that run still lives (that home's next start
    stops it, and its TMPDIR stays until then)."""
    stale, tag, uid, live = [], _home_tag(), os.getuid(), None
    for path in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*"):
        token = path.name.removeprefix(SCRATCH_PREFIX)
        try:
            info = path.lstat()
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
            continue  # another user's (not ours to remove, nor can we), or not a dir navtui made
        owner, home = _owner_and_home(token)
        if owner_alive(owner):
            continue
        if home not in (None, tag):
            live = _live_tokens() if live is None else live
            if token in live:
                continue
        stale.append(path)
    return stale


def sweep_leftovers(grace: float = 1.0) -> int:
    """Stop what earlier navtui runs left behind (marked processes, scratch dirs); returns how many processes.

    SIGTERM, then SIGKILL after ``grace`` seconds for those still running.
    """
    pids = _leftovers()
    if pids:
        procs.signal_all(pids, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(procs.is_alive(p) for p in pids):
            time.sleep(0.05)
        procs.signal_all([p for p in pids if procs.is_alive(p)], signal.SIGKILL)
    for path in _stale_scratch():
        shutil.rmtree(path, ignore_errors=True)
    return len(pids)
