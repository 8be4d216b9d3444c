"""What the launcher costs per shell command: start to exit of ``true`` through a JobRegistry.

    .venv/bin/python bench/bench_sandbox.py [--runs 40]

Rows: a bare ``bash -c true`` Popen (the floor), the launcher with only the parent-death signal (sandbox off),
and the launcher with Landlock in workspace-write and read-only. Each run is a whole job: fork on the spawner
thread, launcher, exec, exit, reaped by the watcher thread. Prints p50/p90 in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from navtui.tools.sandbox.policy import build_policy  # noqa: E402
from navtui.tools.shell.jobs import JobRegistry  # noqa: E402


def _bare(cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["bash", "-c", "true"], cwd=cwd, stdin=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


async def _job(registry: JobRegistry, cwd: Path, out: Path, sandbox) -> float:  # noqa: ANN001
    start = time.perf_counter()
    job = registry.start("true", cwd=cwd, env=dict(os.environ), output_dir=out, timeout=30, sandbox=sandbox)
    await job.wait(30)
    assert job.exit_code == 0, job.output_path.read_text()
    return time.perf_counter() - start


def _row(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[int(len(ms) * 0.9) - 1]
    return f"{name:<28} p50 {statistics.median(ms):6.1f} ms   p90 {p90:6.1f} ms"


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ws, out = root / "ws", root / "out"
        ws.mkdir()
        registry = JobRegistry()
        rows = {"bash -c true (no launcher)": [_bare(ws) for _ in range(runs)]}
        for name, policy in (
            ("launcher, sandbox off", build_policy("off")),
            ("launcher, workspace-write", build_policy("workspace-write", roots=[ws])),
            ("launcher, read-only", build_policy("read-only", roots=[ws])),
        ):
            await _job(registry, ws, out, policy)  # warm
            rows[name] = [await _job(registry, ws, out, policy) for _ in range(runs)]
        registry.kill_all_sync()
    print(f"per-command cost over {runs} runs (load average {os.getloadavg()[0]:.1f}):")
    for name, samples in rows.items():
        print(_row(name, samples))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    asyncio.run(main(parser.parse_args().runs))
