"""Memory over a long session, from outside: navtui on a pty (bench/terminal.py) streams ``--replies`` answers of
``--tokens`` tokens each from the fake server, one prompt after another, and the RSS of its process is read
once each answer is shown and the app is idle again (after the collection a turn's end schedules). Then the
same home resumes a 5,000-entry session, and its RSS is read the same way.

The fake model's window is 32,768 tokens, so a long session compacts (from the third reply on): a turn is busy
while the status line says "working" or "compacting", and each summary request takes a scripted reply too.
``--baseline DIR`` runs navtui from another checkout (before/after figures with the same script).

Usage: ``python bench/bench_memory.py [--replies 10] [--tokens 20000] [--rate 5000] [--resume-entries 5000]
[--baseline DIR]``

It prints one row per reply (RSS, growth since the first reply) and the load average; it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_terminal import (  # noqa: E402
    MODEL,
    Server,
    build_apps,
    child_env_for,
    navtui_argv,
    start,
    write_resume_session,
)
from terminal import Terminal  # noqa: E402

SETTLE_S = 4.0  # navtui's full collection runs 3 s after a turn ends (app/gc_policy.py)


def _working(lines: list[str]) -> bool:
    return "working" in lines[-1] or "compacting" in lines[-1]


def _stuck(term: Terminal, home: str | None) -> str:
    """What to look at when a turn seems not to end: is the program alive, did the emulator fail to draw (a stale
    screen), what the screen shows, and what the session recorded last (an answer recorded means the turn ended
    inside navtui and only the screen did not say so)."""
    alive = term.proc.poll() is None
    lines = [f"navtui {'runs' if alive else f'exited with {term.proc.returncode}'} (pid {term.proc.pid})"]
    lines += [f"the emulator failed: {error}" for error in term.emulator_errors[-3:]]
    lines += ["the screen ends with:", *term.display()[-6:]]
    sessions = sorted(Path(home).rglob("*.jsonl"), key=lambda path: path.stat().st_mtime) if home else []
    if sessions:
        tail = sessions[-1].read_bytes().splitlines()[-3:]
        lines.append(f"the session's last entries ({sessions[-1].name}):")
        lines += [line[:160].decode(errors="replace") for line in tail]
    return "\n".join(lines)


def run(replies: int, tokens: int, rate: float, baseline: str | None) -> list[float]:
    args = argparse.Namespace(baseline=baseline, vibe2=None, vibe3=None, apps="before" if baseline else "navtui")
    (app,) = build_apps(args, "", "")
    # A turn that compacts sends one summary request or more first, and each takes a scripted reply: with too few
    # scripted, the last turns were answered "ok" (the figures of ten replies were those of seven).
    server = Server(rate, tokens, replies * 4)
    scratch = tempfile.mkdtemp(prefix="bench-memory-")
    cwd = os.path.join(scratch, "work")
    os.mkdir(cwd)
    term: Terminal | None = None
    rss: list[float] = []
    try:
        term, _ = start(app, server.url, cwd)
        time.sleep(SETTLE_S)
        print(f"idle before the first prompt: {term.rss_mb()[0]:.1f} MB", flush=True)
        for n in range(replies):
            term.write(b"write it\r")
            if term.wait(_working, timeout=120) is None:
                raise SystemExit(f"reply {n + 1}: the turn did not start")
            if term.wait(lambda lines: not _working(lines), timeout=tokens / rate * 6 + 120) is None:
                raise SystemExit(f"reply {n + 1}: the turn did not end\n{_stuck(term, app.home)}")
            time.sleep(SETTLE_S)
            rss.append(term.rss_mb()[0])
            print(f"reply {n + 1:2d}: RSS {rss[-1]:6.1f} MB  (+{rss[-1] - rss[0]:5.1f} MB since reply 1)", flush=True)
    finally:
        if term is not None:
            term.close()
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
        if app.home is not None:
            shutil.rmtree(app.home, ignore_errors=True)
    return rss


def resume(entries: int, baseline: str | None) -> float:
    scratch = Path(tempfile.mkdtemp(prefix="bench-memory-resume-"))
    home = str(scratch / "home")
    cwd = scratch / "work"
    cwd.mkdir()
    try:
        session = write_resume_session(cwd, home, entries)
        env = child_env_for(home, Path(baseline).resolve()) if baseline else child_env_for(home)
        term = Terminal(navtui_argv("http://127.0.0.1:9") + ["-r", session], env=env, cwd=str(cwd))
        try:
            if term.wait(lambda lines: any("last entry of the session" in line for line in lines), 60) is None:
                raise SystemExit("resume: the session's last entry never showed")
            time.sleep(SETTLE_S)
            return term.rss_mb()[0]
        finally:
            term.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replies", type=int, default=10)
    parser.add_argument("--tokens", type=int, default=20000)
    parser.add_argument("--rate", type=float, default=5000)
    parser.add_argument("--resume-entries", type=int, default=5000)
    parser.add_argument("--baseline", metavar="DIR", help="run navtui from this checkout instead")
    args = parser.parse_args()
    before = os.getloadavg()
    rss = run(args.replies, args.tokens, args.rate, args.baseline)
    if args.resume_entries:
        resumed = resume(args.resume_entries, args.baseline)
        print(f"resuming a {args.resume_entries:,}-entry session: RSS {resumed:.1f} MB", flush=True)
    after = os.getloadavg()
    print(f"model {MODEL}; {args.replies} replies of {args.tokens:,} tokens at {args.rate:,.0f} tok/s")
    print(
        f"RSS after reply 1: {rss[0]:.1f} MB; after reply {len(rss)}: {rss[-1]:.1f} MB; growth {rss[-1] - rss[0]:.1f} MB"
    )
    print(
        f"load average (1, 5, 15 min): before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}; "
        f"after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}"
    )


if __name__ == "__main__":
    main()
