"""Start-up benchmark: ``navtui --help``, and spawn -> the first complete frame on a real 120x40 terminal, against a
minimal stock Textual app measured the same way in the same run.

"Complete" is what a user needs: for navtui the welcome card, the prompt box and the status line with the model
drawn (for the stock app its header, input and footer), as a VT emulator shows them (``bench/terminal.py``);
then a typed key echoed. Runs alternate between the two apps. navtui runs against a fake Ollama server, in an
empty directory, with one NAVTUI_HOME for all runs (a warm-up run fills its caches, as any earlier use would).
Bytecode is compiled first (``compileall``), as an install would.

``--instructions`` counts instead of timing: each app runs under ``valgrind --tool=callgrind``, dumped when the
complete frame is on screen. Instruction counts do not depend on what else the machine is doing, so they
compare start-up costs on a busy box (wall-clock figures need a quiet one).

A first start in an empty NAVTUI_HOME (no theme cache yet: the themes are loaded before the first frame) is
measured too, in the same alternation.

``--mcp N`` configures N stdio MCP servers (the tests' server) in the user file: they start in the background
after the first frame and must not move it or the key echo.

Usage: ``python bench/bench_startup.py [--reps 5] [--instructions] [--mcp N]``
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_terminal import STOCK_APP, Probe, _has, child_env_for, navtui_ready  # noqa: E402
from common import ROOT, verdict  # noqa: E402
from terminal import Terminal  # noqa: E402

MODEL = "qwen2.5-coder:7b"
stock_ready = _has("NavBenchTitle", "prompt", "palette")


def time_help(reps: int) -> list[float]:
    times = []
    for _ in range(reps + 1):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "navtui", "--help"], capture_output=True, check=True, cwd=ROOT)
        times.append((time.perf_counter() - start) * 1000)
    return times[1:]  # the first run warms the page cache


def run(argv: list[str], home: str, ready: Any, *, instructions: bool = False, settle: bool = False) -> dict[str, Any]:
    """One start of ``argv``. ``settle``: a warm-up run, kept running until navtui has written what a later
    start reads (its theme cache), as any earlier use would have."""
    with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryDirectory() as dumps:
        if instructions:
            argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={dumps}/cg.%p", *argv]
        term = Terminal(argv, env=child_env_for(home), cwd=cwd)
        try:
            shown = term.wait(ready, timeout=300 if instructions else 60)
            if shown is None:
                raise SystemExit("no complete frame; the screen ends with:\n" + "\n".join(term.display()[-8:]))
            if instructions:
                subprocess.run(["callgrind_control", "--dump", str(term.proc.pid)], capture_output=True, check=False)
                time.sleep(1.0)
                return {"instructions": _dumped(Path(dumps))}
            first = (shown - term.started) * 1000
            echo = Probe(term).once()
            rss = term.rss_mb()[0]
            if settle:
                cache = Path(home, "cache", "theme.json")
                deadline = time.monotonic() + 30
                while not cache.exists() and time.monotonic() < deadline:
                    time.sleep(0.1)
            return {"first_frame_ms": first, "echo_ms": None if echo is None else first + echo, "rss_mb": rss}
        finally:
            term.close()


def _dumped(directory: Path) -> int:
    """Instructions in the dump callgrind_control asked for (``cg.PID.1``)."""
    for path in sorted(directory.glob("cg.*.1")):
        for line in path.read_text().splitlines():
            if line.startswith("summary:"):
                return int(line.split()[1])
    raise SystemExit("callgrind wrote no dump (is valgrind installed?)")


def write_mcp_servers(home: Path, count: int) -> None:
    """``count`` stdio MCP servers (the tests' server) in the user file of ``home``."""
    if not count:
        return
    entry = {"command": sys.executable, "args": [str(ROOT / "tests" / "mcp" / "mcp_server.py")]}
    servers = {f"s{n}": {**entry, "env": {"MCP_TEST_DIR": str(home)}} for n in range(count)}
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}))


def stats(values: list[float]) -> str:
    return f"min {min(values):6.0f}  p50 {statistics.median(values):6.0f}  max {max(values):6.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="count instructions under callgrind")
    parser.add_argument("--mcp", type=int, default=0, metavar="N", help="configure N stdio MCP servers")
    args = parser.parse_args()
    if args.instructions and not shutil.which("callgrind_control"):
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    compileall.compile_dir(str(ROOT / "navtui"), quiet=1)
    from tests.fakes import FakeServer

    server = FakeServer().start()
    server.set_model(MODEL)
    navtui = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", server.url, "-m", MODEL]
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(STOCK_APP)
    stock = [sys.executable, handle.name]
    reps = 1 if args.instructions else args.reps
    try:
        help_ms = [] if args.instructions else time_help(args.reps)
        # One NAVTUI_HOME for all runs, as for a user: the warm-up run leaves the theme cache and history behind.
        with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as stock_home:
            write_mcp_servers(Path(home), args.mcp)
            run(navtui, home, navtui_ready, settle=True)
            run(stock, stock_home, stock_ready)
            ours, theirs, first_ever = [], [], []
            for _ in range(reps):  # alternating: both see the same load
                ours.append(run(navtui, home, navtui_ready, instructions=args.instructions))
                theirs.append(run(stock, stock_home, stock_ready, instructions=args.instructions))
                with tempfile.TemporaryDirectory() as empty:  # a first start: no theme cache yet
                    write_mcp_servers(Path(empty), args.mcp)
                    first_ever.append(run(navtui, empty, navtui_ready, instructions=args.instructions))
    finally:
        server.stop()
        os.unlink(handle.name)
    if args.instructions:
        n, s, e = (runs[0]["instructions"] for runs in (ours, theirs, first_ever))
        print(f"instructions, spawn -> complete first frame: navtui {n / 1e6:,.0f} M, stock Textual {s / 1e6:,.0f} M")
        print(f"ratio {n / s:.2f}x (target <= 1.1x: {verdict(n / s, 1.1)})")
        print(f"navtui's first start in an empty NAVTUI_HOME (no theme cache yet): {e / 1e6:,.0f} M ({e / s:.2f}x)")
        return
    first = [r["first_frame_ms"] for r in ours]
    stock_first = [r["first_frame_ms"] for r in theirs]
    echo = [r["echo_ms"] for r in ours if r["echo_ms"] is not None]
    ratio = statistics.median(first) / statistics.median(stock_first)
    print(
        f"navtui --help                             {stats(help_ms)}   target p50 < 80 ms: {verdict(statistics.median(help_ms), 80)}"
    )
    print(f"navtui spawn -> complete first frame      {stats(first)}")
    print(f"stock Textual app -> complete first frame {stats(stock_first)}")
    print(f"navtui / stock (medians)                  {ratio:.2f}x   target <= 1.1x: {verdict(ratio, 1.1)}")
    print(f"navtui, first start (empty NAVTUI_HOME)   {stats([r['first_frame_ms'] for r in first_ever])}")
    if echo:
        print(f"navtui spawn -> typed key echoed          {stats(echo)}")
    print(
        f"RSS at the first frame                    navtui {statistics.median(r['rss_mb'] for r in ours):.0f} MB, "
        f"stock {statistics.median(r['rss_mb'] for r in theirs):.0f} MB"
    )


if __name__ == "__main__":
    main()
