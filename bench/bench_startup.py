"""Startup benchmark: ``navtui --help``, and spawn -> first frame on a real 120x40 pty, against a minimal stock
Textual app measured in the same run.

navtui runs against a fake Ollama server (in this process), in an empty directory, with one NAVTUI_HOME for all
runs (a warm-up run fills its caches, as any earlier use would).
A reader thread drains the pty like a terminal and timestamps when the welcome card's text appears (the first
full frame), then types a marker and times its echo in the prompt, then quits with ctrl+q. Bytecode is
compiled first (``compileall``), as an install would.

Usage: ``python bench/bench_startup.py [--reps 5] [--mcp N]`` (about half a minute). ``--mcp N`` configures N
stdio MCP servers (the tests' server) in the user file: they start in the background and must not move the
first frame or the key echo.
"""

from __future__ import annotations

import argparse
import compileall
import fcntl
import json
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, verdict  # noqa: E402

MODEL = "qwen2.5-coder:7b"
STOCK_APP = """
from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Input, Static

class Minimal(App):
    TITLE = "NavBenchTitle"
    def compose(self):
        yield Header()
        with VerticalScroll():
            yield Static("hello")
        yield Input(placeholder="prompt")
        yield Footer()

Minimal().run()
"""


class PtyRun:
    """Spawn ``argv`` on a 120x40 pty and watch its output for markers."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.buffer = bytearray()
        self.lock = threading.Condition()
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            with self.lock:
                self.buffer.extend(data)
                self.lock.notify_all()

    def wait_for(self, marker: bytes, start: int = 0, timeout: float = 20.0) -> tuple[float, int]:
        """Seconds since spawn when ``marker`` appeared after ``start``, and where the buffer ended."""
        deadline = time.perf_counter() + timeout
        with self.lock:
            while marker not in self.buffer[start:]:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    tail = bytes(self.buffer[-400:])
                    raise SystemExit(f"timed out waiting for {marker!r}; last output: {tail!r}")
                self.lock.wait(remaining)
            return time.perf_counter() - self.t0, len(self.buffer)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def peak_rss_mb(self) -> float | None:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def idle_cpu_share(self, seconds: float) -> float:
        """CPU used while nothing happens, as a share of one core (after start-up has settled)."""
        time.sleep(1.0)
        before = self.cpu_seconds()
        time.sleep(seconds)
        return (self.cpu_seconds() - before) / seconds

    def close(self) -> float:
        """Quit with ctrl+q; returns seconds from the request to the process exit."""
        asked = time.perf_counter()
        self.write(b"\x11")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        done = time.perf_counter() - asked
        self.reader.join(timeout=2)
        os.close(self.master)
        return done


def child_env(home: str) -> dict[str, str]:
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", NAVTUI_HOME=home)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(ROOT)
    return env


def time_help(reps: int) -> list[float]:
    times = []
    for _ in range(reps + 1):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "navtui", "--help"], capture_output=True, check=True, cwd=ROOT)
        times.append((time.perf_counter() - start) * 1000)
    return times[1:]  # the first run warms the page cache


def run_navtui(url: str, home: str, launcher: str | None = None, linger: float = 0.0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cwd:
        argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", url, "-m", MODEL]
        if launcher:  # an alternative entry script (experiments: what a lighter CLI path would give)
            argv = [sys.executable, launcher, url, MODEL]
        run = PtyRun(argv, child_env(home), cwd)
        first, end = run.wait_for(b"attach a file")
        run.write(b"Zq7")
        echo, _ = run.wait_for(b"Zq7", start=end)
        rss = run.peak_rss_mb()
        time.sleep(linger)  # the warm-up run stays until the app has finished starting (caches written)
        idle = run.idle_cpu_share(seconds=2.0) if not linger else None
        exit_s = run.close()
    return {
        "first_frame_ms": first * 1000,
        "key_echo_ms": echo * 1000,
        "rss_mb": rss,
        "exit_ms": exit_s * 1000,
        "idle_cpu": idle,
    }


def run_stock(script: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        run = PtyRun([sys.executable, script], child_env(home), cwd)
        first, _ = run.wait_for(b"NavBenchTitle")
        rss = run.peak_rss_mb()
        run.close()
    return {"first_frame_ms": first * 1000, "rss_mb": rss}


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
    parser.add_argument("--launcher", help="run this script (argv: URL MODEL) instead of `python -m navtui`")
    parser.add_argument("--mcp", type=int, default=0, metavar="N", help="configure N stdio MCP servers")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "navtui"), quiet=1)
    from tests.fakes import FakeServer

    server = FakeServer().start()
    server.set_model(MODEL)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(STOCK_APP)
        stock_script = handle.name
    try:
        help_ms = time_help(args.reps)
        # One NAVTUI_HOME for all runs, as for a user: the warm-up run leaves the theme cache and history behind.
        with tempfile.TemporaryDirectory() as home:
            write_mcp_servers(Path(home), args.mcp)
            run_navtui(server.url, home, args.launcher, linger=1.5)
            navtui = [run_navtui(server.url, home, args.launcher) for _ in range(args.reps)]
        run_stock(stock_script)
        stock = [run_stock(stock_script) for _ in range(args.reps)]
    finally:
        server.stop()
        os.unlink(stock_script)
    first = [r["first_frame_ms"] for r in navtui]
    echo = [r["key_echo_ms"] for r in navtui]
    stock_first = [r["first_frame_ms"] for r in stock]
    rss = [r["rss_mb"] for r in navtui if r["rss_mb"]]
    print(
        f"navtui --help                     {stats(help_ms)}   target p50 < 80 ms: {verdict(statistics.median(help_ms), 80)}"
    )
    print(
        f"navtui spawn -> first frame (pty) {stats(first)}   target p50 <= 250, max <= 350 ms: "
        f"{verdict(statistics.median(first), 250)}/{verdict(max(first), 350)}"
    )
    print(
        f"navtui spawn -> typed key echoed  {stats(echo)}   target p50 <= 300 ms: {verdict(statistics.median(echo), 300)}"
    )
    print(f"stock Textual app -> first frame  {stats(stock_first)}   (Header/Footer/VerticalScroll/Input baseline)")
    idle = [r["idle_cpu"] for r in navtui if r["idle_cpu"] is not None]
    if idle:
        print(f"navtui idle CPU after start-up    {statistics.median(idle) * 100:5.1f} % of a core (target ~0)")
    if rss:
        print(
            f"navtui peak RSS at first frame    {statistics.median(rss):6.1f} MB (stock {statistics.median(r['rss_mb'] for r in stock if r['rss_mb']):.1f} MB)"
        )


if __name__ == "__main__":
    main()
