"""What the launcher costs per shell command: start to exit of ``true`` through a JobRegistry.

    .venv/bin/python bench/bench_sandbox.py [--runs 40]

Rows: a bare ``bash -c true`` Popen (the floor), the launcher with sandbox off (parent-death signal, the tree
kept by a subreaper), and the launcher with Landlock in workspace-write and read-only, with namespaces (user,
mount with git's files bound read-only, PID with its own /proc) and without (the fallback: git's files hashed
before and checked after). The workspace is a git repository; the last row runs in one with 1,000 folders
(``--folders``), where the guard's walk for ``.env*`` files and new git dirs shows. Each run is a whole job:
fork on the spawner thread, launcher, exec, exit, reaped by the watcher thread. Prints p50/p90 wall time, the CPU
time (user + sys of navtui's children and navtui's own) per command, and navtui's own part of it (policy,
guard, spawn, watcher), which the machine's load moves far less.
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


def _own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


async def _job(registry: JobRegistry, cwd: Path, out: Path, sandbox, cpu: list[float], own: list[float]) -> float:  # noqa: ANN001
    start, used, used_here = time.perf_counter(), _cpu(), _own_cpu()
    job = registry.start("true", cwd=cwd, env=dict(os.environ), output_dir=out, timeout=30, sandbox=sandbox)
    await job.wait(30)
    assert job.exit_code == 0, job.output_path.read_text()
    elapsed = time.perf_counter() - start
    cpu.append(_cpu() - used)
    own.append(_own_cpu() - used_here)
    return elapsed


def _row(name: str, samples: list[float], cpu: list[float], own: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[int(len(ms) * 0.9) - 1]
    cpu_ms = statistics.median(c * 1000 for c in cpu) if cpu else float("nan")
    own_ms = statistics.median(c * 1000 for c in own) if own else float("nan")
    return (
        f"{name:<44} p50 {statistics.median(ms):6.1f} ms   p90 {p90:6.1f} ms   cpu p50 {cpu_ms:5.1f} ms"
        f"   navtui's own {own_ms:5.1f} ms"
    )


def _policy(mode: str, ws: Path, *, namespaces: bool):  # noqa: ANN202
    os.environ["NAVTUI_SANDBOX_NAMESPACES"] = "1" if namespaces else "0"
    try:
        return build_policy(mode, roots=[ws])  # type: ignore[arg-type]
    finally:
        os.environ.pop("NAVTUI_SANDBOX_NAMESPACES")


def _big_workspace(ws: Path, folders: int) -> None:
    """``folders`` folders of three small files each, ten to a level, in a git repository."""
    ws.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    for index in range(folders):
        folder = ws.joinpath(*f"{index:04d}"[:-1], f"d{index}")
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("a.py", "b.txt", "c.json"):
            (folder / name).write_text("x\n")


async def main(runs: int, folders: int) -> None:
    load_at_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ws, big, out = root / "ws", root / "big", root / "out"
        ws.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)  # noqa: ASYNC221 - set-up, before timing
        _big_workspace(big, folders)
        registry = JobRegistry()
        start = _cpu()
        rows = {"bash -c true (no launcher)": ([_bare(ws) for _ in range(runs)], [(_cpu() - start) / runs], [])}
        for name, cwd, policy in (
            ("launcher, sandbox off", ws, build_policy("off")),
            ("workspace-write, namespaces", ws, _policy("workspace-write", ws, namespaces=True)),
            ("workspace-write, no namespaces", ws, _policy("workspace-write", ws, namespaces=False)),
            ("read-only, namespaces", ws, _policy("read-only", ws, namespaces=True)),
            (
                f"workspace-write, namespaces, {folders:,} folders",
                big,
                _policy("workspace-write", big, namespaces=True),
            ),
        ):
            await _job(registry, cwd, out, policy, [], [])  # warm
            cpu: list[float] = []
            own: list[float] = []
            rows[name] = ([await _job(registry, cwd, out, policy, cpu, own) for _ in range(runs)], cpu, own)
        registry.kill_all_sync()
    print(
        f"per-command cost over {runs} runs (load average {load_at_start:.1f} at start, {os.getloadavg()[0]:.1f} at end):"
    )
    for name, (samples, cpu, own) in rows.items():
        print(_row(name, samples, cpu, own))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--folders", type=int, default=1000)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, arguments.folders))
