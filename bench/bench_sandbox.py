"""What the launcher costs per shell command: start to exit of ``true`` through a JobRegistry.

    .venv/bin/python bench/bench_sandbox.py [--runs 40]

Rows: a bare ``bash -c true`` Popen (the floor), the launcher with sandbox off (parent-death signal, the tree
kept by a subreaper), and the launcher with Landlock in workspace-write and read-only, with namespaces (user,
mount with git's files bound read-only, PID with its own /proc) and without (the fallback: git's files hashed
before and checked after). The workspace is a git repository. Each run is a whole job: fork on the spawner
thread, launcher, exec, exit, reaped by the watcher thread. Prints p50/p90 wall time and the CPU time (user +
sys of navtui's children and navtui's own) per command, which the machine's load moves far less.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
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


def _cpu() -> float:
    both = (resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF))
    return sum(r.ru_utime + r.ru_stime for r in both)


async def _job(registry: JobRegistry, cwd: Path, out: Path, sandbox, cpu: list[float]) -> float:  # noqa: ANN001
    start, used = time.perf_counter(), _cpu()
    job = registry.start("true", cwd=cwd, env=dict(os.environ), output_dir=out, timeout=30, sandbox=sandbox)
    await job.wait(30)
    assert job.exit_code == 0, job.output_path.read_text()
    elapsed = time.perf_counter() - start
    cpu.append(_cpu() - used)
    return elapsed


def _row(name: str, samples: list[float], cpu: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[int(len(ms) * 0.9) - 1]
    cpu_ms = statistics.median(c * 1000 for c in cpu) if cpu else float("nan")
    return f"{name:<36} p50 {statistics.median(ms):6.1f} ms   p90 {p90:6.1f} ms   cpu p50 {cpu_ms:5.1f} ms"


def _policy(mode: str, ws: Path, *, namespaces: bool):  # noqa: ANN202
    os.environ["NAVTUI_SANDBOX_NAMESPACES"] = "1" if namespaces else "0"
    try:
        return build_policy(mode, roots=[ws])  # type: ignore[arg-type]
    finally:
        os.environ.pop("NAVTUI_SANDBOX_NAMESPACES")


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ws, out = root / "ws", root / "out"
        ws.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)  # noqa: ASYNC221 - set-up, before timing
        registry = JobRegistry()
        start = _cpu()
        rows = {"bash -c true (no launcher)": ([_bare(ws) for _ in range(runs)], [(_cpu() - start) / runs])}
        for name, policy in (
            ("launcher, sandbox off", build_policy("off")),
            ("workspace-write, namespaces", _policy("workspace-write", ws, namespaces=True)),
            ("workspace-write, no namespaces", _policy("workspace-write", ws, namespaces=False)),
            ("read-only, namespaces", _policy("read-only", ws, namespaces=True)),
        ):
            await _job(registry, ws, out, policy, [])  # warm
            cpu: list[float] = []
            rows[name] = ([await _job(registry, ws, out, policy, cpu) for _ in range(runs)], cpu)
        registry.kill_all_sync()
    print(f"per-command cost over {runs} runs (load average {os.getloadavg()[0]:.1f}):")
    for name, (samples, cpu) in rows.items():
        print(_row(name, samples, cpu))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    asyncio.run(main(parser.parse_args().runs))
