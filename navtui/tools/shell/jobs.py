"""Shell jobs: one process group per command, output straight to a file, stopped whole.

The child writes to its output file itself (no pipe to drain), so a command that floods output costs disk,
not memory, and a job keeps running with nobody reading it. A watcher thread per job reaps it, enforces its
timeout and stops what it left behind; nothing here needs a running event loop, so jobs survive the loop
that started them and ``kill_all_sync`` works from ``atexit`` and signal handlers.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import functools
import itertools
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from navtui.core.errors import ToolError
from navtui.core.programs import find_program
from navtui.tools.shell import lifetime, procs

if TYPE_CHECKING:
    from navtui.tools.sandbox.guard import Baseline, GuardChange
    from navtui.tools.sandbox.policy import SandboxPolicy

JobStatus = Literal["running", "exited", "killed", "timed_out", "output_limit"]
GRACE_SECONDS = 2.0
# A command's output file may grow to this; past it the command is stopped at once. The model sees 32 KB of it
# anyway, and the file is in navtui's home: `yes`, or `cat /dev/zero`, wrote ~2 GB a second there until the
# timeout (600 s) or a full disk.
MAX_OUTPUT_BYTES = 1 << 30
WATCH_SLICE = 0.25  # how often the watcher looks at the output's size


def _shell() -> str:
    return find_program("bash") or "/bin/sh"


@dataclass(eq=False)  # identity: jobs live in sets
class Job:
    id: str
    command: str
    cwd: Path
    output_path: Path
    timeout: float
    marker: str
    process: subprocess.Popen[bytes]
    sandbox: SandboxPolicy | None = None  # the policy it ran under (None: unconfined)
    max_output: int = MAX_OUTPUT_BYTES
    started_at: float = field(default_factory=time.time)
    status: JobStatus = "running"
    exit_code: int | None = None
    ended_at: float | None = None
    leftovers: int = 0  # background processes the command left running, stopped when it exited
    guard_changes: list[GuardChange] = field(default_factory=list)  # guarded files it changed, put back at its end
    guard_kept: bool | None = None  # the user chose to keep those changes (None: not settled yet)
    guard_note: str | None = None  # how that was settled, for the model
    _baseline: Baseline | None = None  # what the guarded files held before (restored when it ends)
    _report: int | None = None  # the launcher's report pipe (leftovers counted inside its PID namespace)
    _kill_reason: JobStatus | None = None
    _done: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _callbacks: list[Callable[[], None]] = field(default_factory=list)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    @property
    def duration(self) -> float:
        return (self.ended_at or time.time()) - self.started_at

    def add_done_callback(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (from the watcher thread) when the job ends; at once if it already has."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(callback)
                return
        callback()

    def remove_done_callback(self, callback: Callable[[], None]) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._callbacks.remove(callback)

    async def wait(self, seconds: float | None = None) -> bool:
        """Wait up to ``seconds`` for the job to end; True when it has."""
        if self._done.is_set():
            return True
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[None] = loop.create_future()

        def end() -> None:
            if not ended.done():
                ended.set_result(None)

        def wake() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(end)

        self.add_done_callback(wake)
        try:
            await asyncio.wait_for(ended, seconds)
            return True
        except TimeoutError:
            return self._done.is_set()
        finally:
            self.remove_done_callback(wake)

    def wait_sync(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def kill(self, reason: JobStatus = "killed") -> None:
        """Stop the whole process tree in the background (TERM, then KILL after the grace period)."""
        if self._done.is_set():
            return
        with self._lock:
            if self._kill_reason is None:
                self._kill_reason = reason
        threading.Thread(target=self._terminate, name=f"navtui-kill-{self.id}", daemon=True).start()

    def _terminate(self) -> None:
        procs.terminate([self.pid], self.marker, grace=GRACE_SECONDS, keep=[self.pid])

    def _watch(self) -> None:
        code = self._wait_within_limits()
        # The command is over; whatever it started in the background goes with it (no orphans).
        leftovers = procs.terminate([self.pid], self.marker, grace=GRACE_SECONDS, keep=[self.pid])
        leftovers = max(leftovers, self._reported_leftovers())
        changes = self._baseline.restore() if self._baseline is not None else []
        with self._lock:
            self.exit_code = code
            self.leftovers = leftovers
            self.guard_changes = changes
            self.ended_at = time.time()
            self.status = self._kill_reason or "exited"
            self._done.set()
            callbacks, self._callbacks = self._callbacks, []
        _LIVE.discard(self)
        for callback in callbacks:
            with contextlib.suppress(Exception):
                callback()

    def _wait_within_limits(self) -> int:
        """The command's exit status, once it exits or is stopped for its timeout or its output's size."""
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            try:
                return self.process.wait(timeout=max(0.0, min(WATCH_SLICE, left)))
            except subprocess.TimeoutExpired:
                pass
            if left <= WATCH_SLICE:
                reason: JobStatus = "timed_out"
            elif self._output_size() > self.max_output:
                reason = "output_limit"
            else:
                continue
            with self._lock:
                self._kill_reason = self._kill_reason or reason
            if reason == "output_limit":  # no grace: a command that ignores SIGTERM writes on meanwhile
                procs.terminate([self.pid], self.marker, grace=0.0, keep=[self.pid])
            else:
                self._terminate()
            return self.process.wait()

    def _output_size(self) -> int:
        try:
            return self.output_path.stat().st_size
        except OSError:
            return 0

    def _reported_leftovers(self) -> int:
        """What the launcher counted in its PID namespace (those were stopped there, out of navtui's sight)."""
        if self._report is None:
            return 0
        try:
            os.set_blocking(self._report, False)
            text = os.read(self._report, 64).decode(errors="replace")
        except OSError:
            text = ""
        finally:
            os.close(self._report)
            self._report = None
        words = text.split()
        return int(words[1]) if len(words) == 2 and words[0] == "leftovers" and words[1].isdigit() else 0

    def describe(self) -> str:
        """One line: id, state, duration, command."""
        elapsed = f"{self.duration:.1f} s"
        if self.status == "running":
            state = f"running for {elapsed}"
        elif self.status == "timed_out":
            state = f"timed out after {elapsed} and was stopped"
        elif self.status == "killed":
            state = f"killed after {elapsed}"
        elif self.status == "output_limit":
            state = f"stopped after {elapsed}: its output passed {self.max_output >> 20} MB"
        else:
            state = f"{exit_text(self.exit_code)} after {elapsed}"
        return f"{self.id} {state}: {self.command[:120]}"


def exit_text(code: int | None) -> str:
    if code is None:
        return "no exit status"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name}"
    return f"exit code {code}"


class JobRegistry:
    """The jobs of one session; ``kill_all`` (or interpreter exit, SIGTERM, SIGHUP) stops every one."""

    def __init__(self, *, grace: float = GRACE_SECONDS, max_output: int = MAX_OUTPUT_BYTES) -> None:
        self.token = lifetime.new_token()
        self.jobs: dict[str, Job] = {}
        self.grace = grace
        self.max_output = max_output
        self._ids = itertools.count(1)
        self._scratch: Path | None = None
        self._baseline: Baseline | None = None
        self.said_fallback = False  # the model was told why guarded files are checked after each command
        self.on_end: Callable[[Job], None] | None = None  # called (on the job's watcher thread) as each job ends
        procs.become_subreaper()  # orphans of a job come back to us, to be stopped and reaped
        install_exit_cleanup()

    def start(
        self,
        command: str,
        *,
        cwd: Path,
        env: Mapping[str, str],
        output_dir: Path,
        timeout: float,
        sandbox: SandboxPolicy | None = None,
    ) -> Job:
        """Start ``command`` under bash (or sh) in its own session, stdin from /dev/null, through the launcher
        (dies with navtui; confined by ``sandbox`` when that is active). ``TMPDIR`` is the registry's scratch dir.
        """
        job_id = f"j{next(self._ids)}"
        marker = f"{self.token}-{job_id}"
        stamp = time.strftime("%Y%m%d-%H%M%S")
        output_path = output_dir / f"shell-{stamp}-{marker}.log"
        try:
            output_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            # O_APPEND: a command that reopens its output (`echo x >> /dev/stderr`) must not overwrite it.
            fd = os.open(output_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise ToolError(f"Cannot create the output file {output_path}: {exc.strerror or exc}") from exc
        scratch = self.scratch()
        env = {**lifetime.marked_env(env, marker), "TMPDIR": str(scratch)}
        if sandbox is not None and sandbox.active:
            env["NAVTUI_SANDBOX"] = sandbox.mode
            if sandbox.network_blocked:
                env["NAVTUI_SANDBOX_NETWORK_DISABLED"] = "1"
        report_r, report_w = os.pipe()
        baseline = self._guard_baseline(sandbox)
        if sandbox is not None:
            policy = sandbox.launcher_policy(
                os.getpid(),
                write_dirs=[scratch],
                write_files=[output_path],
                report=report_w,
                guarded=baseline.guarded if baseline is not None else None,
            )
        else:
            policy = _unconfined(os.getpid(), report=report_w)
        try:
            process = lifetime.spawn(
                [_shell(), "-c", command],
                policy,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
                pass_fds=(report_w,),
            )
        except OSError as exc:
            output_path.unlink(missing_ok=True)
            os.close(report_r)
            raise ToolError(f"Could not start the command in {cwd}: {exc.strerror or exc}") from exc
        finally:
            os.close(fd)
            os.close(report_w)
        job = Job(
            job_id,
            command,
            cwd,
            output_path,
            timeout,
            marker,
            process,
            sandbox if sandbox and sandbox.active else None,
            self.max_output,
        )
        job._baseline = baseline
        job._report = report_r
        self.jobs[job_id] = job
        _LIVE.add(job)
        job.add_done_callback(lambda: self._ended(job))
        threading.Thread(target=job._watch, name=f"navtui-job-{job_id}", daemon=True).start()
        return job

    def _ended(self, job: Job) -> None:
        listener = self.on_end
        if listener is not None:
            listener(job)

    def _guard_baseline(self, sandbox: SandboxPolicy | None) -> Baseline | None:
        """What the guarded files hold now, shared by the sandboxed jobs running side by side (a job that starts
        while another runs must not take that one's changes for the original)."""
        from navtui.tools.sandbox.guard import Baseline

        if sandbox is None or not sandbox.active:
            return None
        if self._baseline is not None and any(j._baseline is self._baseline for j in self.running()):
            return self._baseline
        self._baseline = Baseline.take(sandbox.guarded(), contents=not sandbox.namespaces)
        return self._baseline

    def scratch(self) -> Path:
        """This registry's private temp dir (created on first use, removed when its jobs are all stopped)."""
        if self._scratch is None or not self._scratch.is_dir():
            self._scratch = lifetime.scratch_dir(self.token)
            _SCRATCH.add(self._scratch)
        return self._scratch

    def get(self, job_id: str) -> Job | None:
        key = job_id.strip().lower()
        if key.isdigit():
            key = f"j{key}"
        return self.jobs.get(key)

    def require(self, job_id: str) -> Job:
        job = self.get(job_id)
        if job is None:
            known = "; ".join(j.describe() for j in self.jobs.values()) or "none yet"
            raise ToolError(f"No shell job '{job_id}'. Jobs in this session: {known}")
        return job

    def running(self) -> list[Job]:
        return [job for job in self.jobs.values() if job.running]

    def kill_all_sync(self, grace: float | None = None) -> int:
        """Stop every job of this registry and anything they started; returns how many processes ran."""
        for job in self.running():
            with job._lock:
                job._kill_reason = job._kill_reason or "killed"
        groups = [job.pid for job in self.running()]
        leaders = [job.pid for job in self.jobs.values()]
        wait = self.grace if grace is None else grace
        stopped = procs.terminate(groups, f"{self.token}-", grace=wait, prefix=True, keep=leaders)
        for job in list(self.jobs.values()):
            job.wait_sync(1.0)
        if self._scratch is not None:
            _SCRATCH.discard(self._scratch)
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        return stopped

    async def kill_all(self) -> None:
        await asyncio.to_thread(self.kill_all_sync)


def _unconfined(parent: int, *, report: int | None = None) -> dict[str, object]:
    """No sandbox, but the process tree still goes with navtui (the launcher stays its parent and reaper)."""
    policy: dict[str, object] = {"parent": parent, "deathsig": int(signal.SIGKILL), "tree": True}
    if report is not None:
        policy["report"] = report
    return policy


# Running jobs of every registry, held strongly: a registry dropped without kill_all must not leave orphans.
_LIVE: set[Job] = set()
_SCRATCH: set[Path] = set()  # scratch dirs to remove at exit
_installed = False


def _cleanup_all(grace: float = 1.0) -> None:
    groups: dict[str, list[int]] = {}
    for job in list(_LIVE):
        with job._lock:
            job._kill_reason = job._kill_reason or "killed"
        groups.setdefault(job.marker.rsplit("-", 1)[0], []).append(job.pid)
    for token, pids in groups.items():
        with contextlib.suppress(Exception):
            procs.terminate(pids, f"{token}-", grace=grace, prefix=True, keep=pids)
    for path in list(_SCRATCH):
        shutil.rmtree(path, ignore_errors=True)


def _on_signal(signum: int, frame: object, previous: object) -> None:
    _cleanup_all(grace=0.5)
    if callable(previous):
        previous(signum, frame)
        return
    # The default action (terminate): restore it and deliver the signal again.
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def install_exit_cleanup() -> None:
    """Stop all jobs at interpreter exit and on SIGTERM/SIGHUP (chaining to earlier handlers). Idempotent."""
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(_cleanup_all)
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, signal.SIGHUP):
        previous = signal.getsignal(signum)
        if previous is signal.SIG_IGN:
            continue
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signum, functools.partial(_on_signal, previous=previous))
