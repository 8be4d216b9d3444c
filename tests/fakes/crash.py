"""Running navtui as a real process for fault injection: named crash points, a full disk, a timeout.

``run_navtui(..., crash_at="write:after_temp_write")`` sets ``NAVTUI_CRASH_AT`` so the process dies there with
status 137 (see ``navtui/core/crash.py``). ``fsize_limit=N`` caps every file the process writes at ``N`` bytes
(``RLIMIT_FSIZE``, with ``SIGXFSZ`` ignored so writes fail with ``EFBIG`` instead of killing it): a full disk,
deterministic and unprivileged.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CRASHED = 137


def child_env(extra: Mapping[str, str] | None = None, *, crash_at: str | None = None) -> dict[str, str]:
    """The test's environment for a child process, with the repository importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("NAVTUI_CRASH_AT", None)
    if crash_at is not None:
        env["NAVTUI_CRASH_AT"] = crash_at
    env.update(extra or {})
    return env


def file_size_limit(limit: int) -> Callable[[], None]:
    """A ``preexec_fn`` that makes every write past ``limit`` bytes fail with EFBIG, as a full disk would."""

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def run_navtui(
    *args: str,
    cwd: Path,
    crash_at: str | None = None,
    fsize_limit: int | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """``python -m navtui ARGS`` in ``cwd``; stdin is empty, output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "navtui", *args],
        cwd=cwd,
        env=child_env(env, crash_at=crash_at),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        preexec_fn=file_size_limit(fsize_limit) if fsize_limit is not None else None,  # noqa: PLW1509
    )


def run_python(
    code: str, *args: str, crash_at: str | None = None, fsize_limit: int | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """A Python snippet in a child process (navtui importable), for layers tested below the CLI."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=child_env(crash_at=crash_at),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        preexec_fn=file_size_limit(fsize_limit) if fsize_limit is not None else None,  # noqa: PLW1509
    )
