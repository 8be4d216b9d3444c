"""A long session resumed, from outside: ``navtui -r`` of an ``--entries``-entry session (bench_terminal.py's resume
session: the benchmark's four-entry turns, scaled) on a 120x40 pty, timed from the spawn:

* the complete first frame showing the session's last entry (read from the file's end), and a key typed then
  echoed;
* usable: the runtime built and the whole path shown (the status line's "starting" gone), the CPU seconds the
  process had used by then, and a key typed then echoed.

``--baseline DIR`` runs navtui from another checkout too (before/after with the same script); runs are
interleaved, every other round in reverse order. It prints each run, the medians and the load average; it
asserts nothing.

Usage: ``python bench/bench_resume.py [--entries 20000] [--runs 3] [--baseline DIR]``
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_terminal import MODEL, ROOT, Probe, child_env_for, navtui_argv, write_resume_session  # noqa: E402
from terminal import Terminal  # noqa: E402

TAIL = "last entry of the session"


def _framed(lines: list[str]) -> bool:
    return MODEL in lines[-1] and lines[-2].lstrip().startswith("╰")


def run(root: Path, session: str, home: str, cwd: str) -> dict[str, float]:
    argv = navtui_argv("http://127.0.0.1:9") + ["-r", session]  # nothing listens there: no model is asked
    term = Terminal(argv, env=child_env_for(home, root), cwd=cwd)
    try:
        tail = term.wait(lambda lines: _framed(lines) and any(TAIL in line for line in lines), timeout=60)
        if tail is None:
            raise SystemExit(f"{root}: the session's tail never showed:\n" + "\n".join(term.display()[-10:]))
        echo = Probe(term).once()
        usable = term.wait(lambda lines: _framed(lines) and "starting" not in lines[-1], timeout=120)
        if usable is None:
            raise SystemExit(f"{root}: still starting after 120 s:\n" + "\n".join(term.display()[-10:]))
        cpu = term.cpu_seconds()
        after = Probe(term).once()
        return {
            "tail_ms": (tail - term.started) * 1000,
            "echo_ms": (tail - term.started) * 1000 + echo if echo is not None else float("nan"),
            "usable_ms": (usable - term.started) * 1000,
            "cpu_s": cpu,
            "echo_after_ms": after if after is not None else float("nan"),
        }
    finally:
        term.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", metavar="DIR", help="run navtui from this checkout too, as 'before'")
    args = parser.parse_args()
    apps = {"navtui": ROOT, **({"before": Path(args.baseline).resolve()} if args.baseline else {})}
    for root in apps.values():
        compileall.compile_dir(str(root / "navtui"), quiet=1)
    scratch = Path(tempfile.mkdtemp(prefix="bench-resume-"))
    home, cwd = str(scratch / "home"), scratch / "work"
    cwd.mkdir()
    load_before = os.getloadavg()
    results: dict[str, list[dict[str, float]]] = {name: [] for name in apps}
    try:
        session = write_resume_session(cwd, home, args.entries)
        print(f"{args.entries:,} entries, {os.path.getsize(session) / 1e6:.1f} MB", flush=True)
        pristine = Path(session).read_bytes()
        for root in apps.values():  # warm-up: bytecode, the page cache
            run(root, session, home, str(cwd))
        for round_ in range(args.runs):
            names = list(apps) if round_ % 2 == 0 else list(reversed(apps))
            for name in names:
                Path(session).write_bytes(pristine)
                result = run(apps[name], session, home, str(cwd))
                results[name].append(result)
                cells = ", ".join(f"{key} {value:,.1f}" for key, value in result.items())
                print(f"run {round_ + 1} {name}: {cells}; load {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    load_after = os.getloadavg()
    print(f"\nmedians over {args.runs} runs")
    for name, runs in results.items():
        cells = ", ".join(f"{key} {statistics.median(r[key] for r in runs):,.1f}" for key in runs[0])
        print(f"{name}: {cells}")
    print(
        f"load average (1, 5, 15 min): before {' '.join(f'{v:.2f}' for v in load_before)}; "
        f"after {' '.join(f'{v:.2f}' for v in load_after)}"
    )


if __name__ == "__main__":
    main()
