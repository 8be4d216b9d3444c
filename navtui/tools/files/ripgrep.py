"""Locating ripgrep and streaming its output line by line, with a deadline and bounded memory."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import sys
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from pathlib import Path

from navtui.core.programs import find_program
from navtui.core.walk import SKIPPED_DIRS

MAX_LINE_BYTES = 64 * 1024  # longer lines are cut (rg's --max-columns already shortens matches)
# Flags every call shares: hidden files searched, ignore files honoured outside git repos too, and the
# directories the repository walker never enters skipped (core/walk.py; callers filter what globs cannot say).
COMMON_FLAGS = [
    "--no-config",
    "--color",
    "never",
    "--hidden",
    "--no-require-git",
    *(flag for name in sorted(SKIPPED_DIRS) for flag in ("--glob", f"!{name}/")),
]


@functools.cache
def find_rg() -> str | None:
    """The ``rg`` next to this Python (the PyPI ``ripgrep`` wheel installs it there), else on PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return find_program("rg")


@dataclass
class RgRun:
    returncode: int | None = None
    stderr: str = ""
    timed_out: bool = False


async def rg_lines(args: list[str], cwd: Path, run: RgRun, *, seconds: float = 30.0) -> AsyncGenerator[bytes, None]:
    """Yield rg's stdout lines (without the newline); ``run`` gets the exit code, stderr and timeout flag."""
    rg = find_rg()
    if rg is None:
        raise FileNotFoundError("rg")
    process = await asyncio.create_subprocess_exec(
        rg,
        *COMMON_FLAGS,
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    stderr_task = asyncio.create_task(process.stderr.read(64 * 1024))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    pending = b""
    try:
        while True:
            left = deadline - loop.time()
            if left <= 0:
                run.timed_out = True
                break
            try:
                chunk = await asyncio.wait_for(process.stdout.read(65536), left)
            except TimeoutError:
                run.timed_out = True
                break
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            if len(pending) > MAX_LINE_BYTES:
                pending = pending[:MAX_LINE_BYTES]
            for line in lines:
                yield line[:MAX_LINE_BYTES]
        if pending and not run.timed_out:
            yield pending
    finally:
        if process.returncode is None and (run.timed_out or not process.stdout.at_eof()):
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        run.returncode = await process.wait()
        with contextlib.suppress(Exception):
            run.stderr = (await stderr_task).decode("utf-8", "replace").strip()
