"""Speed as a user sees it: navtui (and peers) in a real terminal, timed from outside the process.

Each app runs on a 120x40 pty whose output a VT emulator draws (``bench/terminal.py``), against a fake server
in its own process streaming the same 20,000-token Markdown reply. Per run (a fresh process each):

* spawn -> first complete frame (the app's prompt box and status line drawn), then a typed key echoed;
* idle: CPU over 2 s, then key echo (a probe: "Z" typed, then erased, every 170-230 ms, each waiting for
  the previous echo);
* streaming at each ``--rates`` value: the same probes, echo latency p50/p95/p99/max, bytes to the terminal
  per second and per frame, frames per second, CPU seconds; "behind at the end" from the server's last chunk
  to the reply's last line on screen; RSS once the reply is shown, and 4 s later (idle).

A frame is one synchronized update (the terminal answers that it supports mode 2026, as modern terminals do),
or a burst of writes for a program that does not use synchronized output. ``--resume`` adds navtui resuming a
5,000-entry session, against its fresh start in the same run.

Apps: ``navtui`` (this checkout), ``loop`` (this checkout with ``NAVTUI_LOCAL_ECHO=0``: every key echoed by the
UI loop's own frame, not by the input thread first), ``before`` (navtui from another checkout, ``--baseline DIR``:
before/after figures in one run), ``textual`` (a minimal stock Textual app: start-up and idle only), ``stack`` (a minimal
Textual app that streams the reply with the ollama client into a plain log: what the prescribed stack itself
costs), ``floor`` (a raw-mode program that echoes a key at once: what the pty and this terminal cost every app),
and peers given as executables: ``--vibe2 PATH`` (Mistral Vibe 2.x, run with its Python/Textual UI) and ``--vibe3 PATH``
(Mistral Vibe 3.x, its Rust UI), each with a throwaway ``VIBE_HOME`` per run pointed at the fake server.
Runs are interleaved (run 1 of every app, then run 2 ..., every other round in reverse order: no app always
follows the same one); the report gives medians over runs, and the load average before and after. It prints
figures and asserts nothing.

A long comparison can be taken in parts (a quiet window each): ``--json`` keeps a part's runs, ``--merge``
reports the runs of several parts together.

Usage: ``python bench/bench_terminal.py [--runs 5] [--rates 200,1000] [--tokens 20000] [--apps navtui,textual]
[--baseline DIR] [--vibe2 PATH] [--vibe3 PATH] [--resume] [--json FILE] [--dump-blank DIR] [--trace]``, or
``--merge FILE...``. ``--trace`` runs navtui, loop and before through ``bench/trace_loop.py``: the UI loop's CPU a probe
key waited behind while the reply streamed, the CPU of each callback per thread, and of each UI-loop callback on
its own (how many took over 4 ms, the longest: ``long_callbacks``); an idle key's path step by step (typed, read by
Textual's input thread, the key event, the prompt's edit, the frame, on the emulated screen); and each probe echoed
after more than 30 ms while streaming, step by step, with every callback, collection, write of Textual's output
thread and frame at the terminal that overlapped it (``slow_probes``).
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, make_markdown, summary  # noqa: E402
from terminal import Terminal  # noqa: E402

MODEL = "qwen2.5-coder:7b"
PROBE = b"Z"  # the reply never contains it (checked), so every Z on screen is typed
ERASE = b"\x7f"
END_MARKER = "Last line of the reply, qx7."
STOCK_APP = """
from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Input, Static

class Minimal(App):
    TITLE = "NavBenchTitle"
    AUTO_FOCUS = "Input"
    def compose(self):
        yield Header()
        with VerticalScroll():
            yield Static("hello")
        yield Input(placeholder="prompt")
        yield Footer()

Minimal().run()
"""
# The stack's own floor for memory: a minimal Textual app that streams the reply with the ollama client (so
# pydantic and httpx, as navtui's session holds them) into a plain Log widget, no Markdown. Its RSS after the
# reply is what the prescribed stack costs before an agent holds anything (docs/speed.md).
STACK_APP = """
import sys
from ollama import AsyncClient
from textual.app import App
from textual.widgets import Footer, Header, Input, Log

class Stack(App):
    TITLE = "NavBenchStack"
    AUTO_FOCUS = "Input"
    def compose(self):
        yield Header()
        yield Log()
        yield Input(placeholder="prompt")
        yield Footer()
    def on_input_submitted(self, event):
        self.run_worker(self.reply(event.value))
    async def reply(self, text):
        log = self.query_one(Log)
        client = AsyncClient(host=sys.argv[1])
        messages = [{"role": "user", "content": text}]
        async for part in await client.chat(model=sys.argv[2], messages=messages, stream=True):
            log.write(part.message.content or "")

Stack().run()
"""
# The floor: a raw-mode program that writes each probe back at once. What it measures is the pty, the
# scheduler and this terminal's own reading, the part of every app's figure that no app can take out.
FLOOR_APP = """
import os, tty
tty.setraw(0)
os.write(1, b"\\x1b[2J\\x1b[1;1Hfloor ready")
while True:
    key = os.read(0, 16)
    os.write(1, b"\\x1b[2;1H" + (b"Z" if key == b"Z" else b" "))
"""
VIBE_CONFIG = """active_model = "fake"

[[providers]]
name = "fake"
api_base = "{url}/v1"
api_key_env_var = ""
backend = "generic"

[[models]]
name = "{model}"
provider = "fake"
alias = "fake"
"""


def reply_text(tokens: int) -> str:
    text = make_markdown(tokens * 4 - len(END_MARKER) - 4) + "\n\n" + END_MARKER + "\n"
    assert PROBE.decode() not in text
    return text


def probe_count(lines: list[str]) -> int:
    return sum(line.count("Z") for line in lines)


# ---------------------------------------------------------------------- apps
@dataclass
class App:
    """How to start one app and what its complete first frame shows."""

    name: str
    argv: Callable[[str], list[str]]  # url -> argv
    env: Callable[[str, str], dict[str, str]]  # (url, home) -> extra environment
    ready: Callable[[list[str]], bool]
    streams: bool = True
    root: Path = ROOT  # the checkout a navtui app runs from
    home: str | None = None  # navtui: one NAVTUI_HOME for all its runs
    blank: Callable[[list[str]], bool] | None = None  # the app's main area shows nothing (--dump-blank)


def _has(*texts: str) -> Callable[[list[str]], bool]:
    def test(lines: list[str]) -> bool:
        screen = "\n".join(lines)
        return all(text in screen for text in texts)

    return test


def navtui_ready(lines: list[str]) -> bool:
    """Welcome card, prompt box (its bottom border above the status line) and status line with the model."""
    return any("attach a file" in line for line in lines) and MODEL in lines[-1] and lines[-2].lstrip().startswith("╰")


def transcript_blank(lines: list[str]) -> bool:
    """navtui's transcript area (the rows above the prompt box) shows nothing; ``False`` without a prompt box."""
    tops = [y for y, line in enumerate(lines) if line.lstrip().startswith("╭")]
    return bool(tops) and not any(line.strip() for line in lines[: tops[-1]])


TRACE = False  # --trace: navtui runs through bench/trace_loop.py (what a key waited for; CPU per callback)
TRACED_APPS = ("navtui", "loop", "before")


def navtui_argv(url: str) -> list[str]:
    start = [str(ROOT / "bench" / "trace_loop.py")] if TRACE else ["-m", "navtui"]
    return [sys.executable, *start, "-p", "ollama", "-b", url, "-m", MODEL]


def round_order(apps: list[App], run: int) -> list[App]:
    """The order of round ``run``: reversed every other round, so the app that runs right after another changes
    (a rotation keeps every app's predecessor). The app that ran right after a heavy one (Vibe 3's ~190 MB process
    tree) had the longer echo tail in each set of the fifth wave that ran Vibe 3 (docs/speed.md)."""
    return list(reversed(apps)) if run % 2 else list(apps)


def build_apps(args: argparse.Namespace, stock_script: str, floor_script: str, stack_script: str = "") -> list[App]:
    python = sys.executable
    known: dict[str, App] = {
        "navtui": App("navtui", navtui_argv, lambda url, home: {}, navtui_ready, blank=transcript_blank),
        "loop": App(  # this checkout, each key echoed by the UI loop's frame alone (no local echo)
            "loop", navtui_argv, lambda url, home: {"NAVTUI_LOCAL_ECHO": "0"}, navtui_ready, blank=transcript_blank
        ),
        "textual": App(
            "textual",
            lambda url: [python, stock_script],
            lambda url, home: {},
            _has("NavBenchTitle", "prompt", "palette"),
            streams=False,
        ),
        "floor": App("floor", lambda url: [python, floor_script], lambda url, home: {}, _has("floor ready"), False),
        "stack": App(
            "stack",
            lambda url: [python, stack_script, url, MODEL],
            lambda url, home: {},
            _has("NavBenchStack", "prompt", "palette"),
        ),
    }
    if args.baseline:
        known["before"] = App(
            "before",
            navtui_argv,
            lambda url, home: {},
            navtui_ready,
            root=Path(args.baseline).resolve(),
            blank=transcript_blank,
        )
    if args.vibe2:
        known["vibe2"] = App(
            "vibe2",
            lambda url: [args.vibe2],
            lambda url, home: {"VIBE_HOME": home, "VIBE_CLI": "python"},
            _has("Type /help for more information", "tokens ("),
        )
    if args.vibe3:
        known["vibe3"] = App(
            "vibe3",
            lambda url: [args.vibe3],
            lambda url, home: {"VIBE_HOME": home},
            _has("Type /help for more information", "tokens ("),
        )
    apps = []
    for name in args.apps.split(","):
        if name not in known:
            raise SystemExit(f"unknown app {name!r} (or the option naming it is missing); known: {', '.join(known)}")
        apps.append(known[name])
    return apps


def child_env_for(home: str, root: Path = ROOT) -> dict[str, str]:
    """A terminal's environment for navtui run from checkout ``root``, with ``home`` as NAVTUI_HOME."""
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", NAVTUI_HOME=home, PYTHONPATH=str(root))
    for name in ("PYTHONDONTWRITEBYTECODE", "TEXTUAL", "TEXTUAL_FPS"):
        env.pop(name, None)
    return env


def child_env(app: App, url: str, home: str) -> dict[str, str]:
    env = child_env_for(home, app.root)
    env.update(app.env(url, home))
    if TRACE and app.name in TRACED_APPS:
        env["NAVTUI_TRACE"] = trace_path(home)
    return env


def trace_path(home: str) -> str:
    return os.path.join(home, "trace.json")


def prepare_home(app: App, url: str, scratch: str) -> str:
    """navtui: one home for all its runs (a warm-up run fills caches, as any earlier use would). Peers: a fresh
    home per run (in ``scratch``, removed after the run) with the fake server's address (a peer's leftovers
    must not reach its next run)."""
    if app.name.startswith("vibe"):
        home = tempfile.mkdtemp(prefix=f"{app.name}-home-", dir=scratch)
        Path(home, "config.toml").write_text(VIBE_CONFIG.format(url=url, model=MODEL))
        return home
    if app.home is None:
        app.home = tempfile.mkdtemp(prefix=f"bench-{app.name}-")
    return app.home


# ---------------------------------------------------------------------- the fake server (its own process)
class Server:
    """``bench_terminal.py --serve``: the fake server streaming ``replies`` copies of the reply."""

    def __init__(self, rate: float, tokens: int, replies: int = 1) -> None:
        cmd = [sys.executable, __file__, "--serve", "--rate", str(rate), "--tokens", str(tokens)]
        cmd += ["--replies", str(replies)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url.startswith("http"):
            raise SystemExit(f"fake server did not start: {self.url!r}")

    def last_chunk(self, timeout: float) -> float | None:
        """The time (monotonic, shared by processes) the first streamed reply sent its last chunk."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                return None
            if line.startswith("END "):
                return float(line.split()[1])
        return None

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=5)


def serve(rate: float, tokens: int, replies: int) -> None:
    from tests.fakes import FakeServer
    from tests.fakes.wire_http import Connection

    original_end = Connection.end_stream

    async def end_stream(self: Connection) -> None:
        print(f"END {time.monotonic()}", flush=True)
        await original_end(self)

    Connection.end_stream = end_stream  # type: ignore[method-assign]
    server = FakeServer().start()
    server.set_model(MODEL, context_length=32768)
    text = reply_text(tokens)
    for _ in range(replies):
        server.script_stream(text, tokens_per_second=rate, chunk_chars=4)
    print(server.url, flush=True)
    while True:  # until the bench terminates this process
        time.sleep(3600)


# ---------------------------------------------------------------------- one run
class Probe:
    """Types a probe ("Z", then its erasure) and times its echo; the next waits for the previous echo."""

    def __init__(self, term: Terminal) -> None:
        self.term = term
        self.base = probe_count(term.display())
        self.shown = 0  # probes on screen now (0 or 1)
        self.latencies: list[float] = []
        self.sent: list[tuple[float, float]] = []  # (typed, shown) of each echoed probe, monotonic
        self.missed = 0

    def once(self, timeout: float = 10.0) -> float | None:
        key, want = (PROBE, 1) if self.shown == 0 else (ERASE, 0)
        expected = self.base + want
        # Watched before the key is typed: the frame end that shows it gives the time. Watched after, a bench
        # thread that got the GIL late (the emulator drawing a frame of the stream) found the echo already on
        # screen and timed it then: 3-4 of ~85 probes a run were tens of ms late (up to 65 ms).
        echoed = self.term.watch(lambda lines: probe_count(lines) == expected)
        sent = self.term.write(key)
        if not echoed.event.wait(timeout) or not echoed.when:
            self.term.forget(echoed)
            self.missed += 1
            return None
        shown = echoed.when
        self.shown = want
        latency = max(0.0, shown - sent) * 1000
        self.latencies.append(latency)
        self.sent.append((sent, shown))
        return latency

    def run_until(self, stop: Callable[[], bool], deadline: float) -> None:
        while not stop() and time.monotonic() < deadline:
            self.once(timeout=max(0.1, deadline - time.monotonic()))
            time.sleep(random.uniform(0.17, 0.23))  # jittered: never in step with a 60 Hz frame clock

    def clear(self) -> None:
        if self.shown:
            self.once()


DUMP_BLANK: Path | None = None  # --dump-blank: where frames that blank the app's main area are written


def start(app: App, url: str, cwd: str) -> tuple[Terminal, dict[str, Any]]:
    home = prepare_home(app, url, cwd)
    blank = app.blank if DUMP_BLANK is not None else None
    traced = TRACE and app.name in TRACED_APPS
    term = Terminal(app.argv(url), env=child_env(app, url, home), cwd=cwd, blank=blank, record=traced)
    ready = term.wait(app.ready, timeout=60)
    result: dict[str, Any] = {}
    if ready is None:
        tail = "\n".join(term.display()[-12:])
        term.close()
        raise SystemExit(f"{app.name}: no complete first frame in 60 s; the screen ends with:\n{tail}")
    result["first_frame_ms"] = (ready - term.started) * 1000
    probe = Probe(term)
    echo = probe.once()
    result["first_echo_ms"] = None if echo is None else (ready - term.started) * 1000 + echo
    probe.clear()
    return term, result


def run_once(app: App, rate: float | None, tokens: int, idle_probes: int) -> dict[str, Any]:
    """One fresh process of ``app``: start-up, idle, and (with a rate) one streamed reply."""
    server = Server(rate or 1000, tokens)
    scratch = tempfile.mkdtemp(prefix="bench-run-")
    cwd = os.path.join(scratch, "work")
    os.mkdir(cwd)
    term: Terminal | None = None
    try:
        term, result = start(app, server.url, cwd)
        time.sleep(1.5)  # let start-up finish (runtime, provider check, caches)
        cpu0 = term.cpu_seconds()
        time.sleep(2.0)
        result["idle_cpu"] = (term.cpu_seconds() - cpu0) / 2.0
        probe = Probe(term)
        idle0 = time.monotonic()
        for _ in range(idle_probes):
            probe.once()
            time.sleep(random.uniform(0.17, 0.23))
        probe.clear()
        result["idle_echo_ms"] = summary(probe.latencies)
        if TRACE and app.name in TRACED_APPS and app.home is not None:
            result["idle_trace"] = idle_steps(
                collect_trace(term, trace_path(app.home), idle0, time.monotonic(), None), probe
            )
        result["rss_idle_mb"] = term.rss_mb()[1]
        if rate is not None and app.streams:
            result.update(stream(term, server, rate, tokens))
            window, sent = result.pop("window"), result.pop("sent")
            if TRACE and app.name in TRACED_APPS and app.home is not None:
                result["trace"] = collect_trace(term, trace_path(app.home), *window)
                spans = result["trace"].pop("spans") + [
                    [when, when, "terminal", "frame end", 0.0] for when in term.frame_ends
                ]
                result["trace"]["slow"] = slow_probes(spans, result["trace"]["probes"], sent)
                for entry, (typed, shown) in zip(result["trace"]["slow"], slow_sent(sent), strict=True):
                    entry["bytes"] = [
                        [round((term.started + at - typed) * 1000, 1), repr(data)[:300]]
                        for at, data in term.record or []
                        if typed - 0.002 <= term.started + at <= shown
                    ]
        result["lagging_ms"] = term.lagging_ms
        if term.blanked:
            result["blanked_frames"] = len(term.blanked)
            dump_blanked(app, rate, term)
        return result
    finally:
        if term is not None:
            term.close()
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def dump_blanked(app: App, rate: float | None, term: Terminal) -> None:
    """Write each frame that blanked the app's main area (with the screen before it and its bytes)."""
    if DUMP_BLANK is None:
        return
    DUMP_BLANK.mkdir(parents=True, exist_ok=True)
    stem = f"{app.name}-{'idle' if rate is None else f'{rate:.0f}'}-{int(time.time() * 1000)}"
    for n, blanked in enumerate(term.blanked):
        (DUMP_BLANK / f"{stem}-{n}.txt").write_text(blanked.dump())
    print(f"{app.name}: {len(term.blanked)} frame(s) blanked the main area; written to {DUMP_BLANK}", flush=True)


def stream(term: Terminal, server: Server, rate: float, tokens: int) -> dict[str, Any]:
    for key in b"write it":
        term.write(bytes([key]))
    term.wait(lambda lines: any("write it" in line for line in lines), timeout=10)
    traffic0, cpu0 = term.snapshot(), term.cpu_seconds()
    t0 = term.write(b"\r")
    expected = tokens / rate
    deadline = t0 + expected * 4 + 60
    probe = Probe(term)
    shown = term.watch(lambda lines: any(END_MARKER in line for line in lines))
    probe.run_until(shown.event.is_set, deadline)
    probe.clear()
    if not shown.event.wait(max(1.0, deadline - time.monotonic())):
        term.forget(shown)
    last_chunk = server.last_chunk(timeout=5)
    traffic, cpu = term.snapshot().since(traffic0), term.cpu_seconds() - cpu0
    end = shown.when or time.monotonic()
    wall = end - t0
    time.sleep(0.5)
    rss, rss_tree = term.rss_mb()
    time.sleep(4.0)  # idle now: navtui's full collection runs 3 s after a turn ends (app/gc_policy.py)
    rss_settled = term.rss_mb()[0]
    return {
        "window": (t0, end, last_chunk),
        "sent": probe.sent,
        "rate": rate,
        "echo_ms": summary(probe.latencies),
        "echo_missed": probe.missed,
        "shown": bool(shown.when),
        "behind_s": (end - last_chunk) if (shown.when and last_chunk) else None,
        "wall_s": wall,
        "bytes_per_s": traffic.bytes / wall,
        "frames_per_s": traffic.frames / wall,
        "bytes_per_frame": statistics.median(traffic.frame_bytes) if traffic.frame_bytes else None,
        "bytes_per_frame_mean": traffic.bytes / traffic.frames if traffic.frames else None,
        "cpu_s": cpu,
        "cpu_share": cpu / wall,
        "rss_mb": rss,
        "rss_tree_mb": rss_tree,
        "rss_settled_mb": rss_settled,
    }


def collect_trace(term: Terminal, path: str, t0: float, end: float, last_chunk: float | None) -> dict[str, Any]:
    """What ``bench/trace_loop.py`` saw while the reply streamed (``t0`` to ``end``, monotonic; ``last_chunk``: the
    server's last chunk)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    os.kill(term.proc.pid, signal.SIGUSR1)
    deadline = time.monotonic() + 10
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    data = json.loads(Path(path).read_text())
    probes = [p for p in data["probes"] if t0 <= p["read"] <= end]
    spent: dict[tuple[str, str], float] = {}
    for second, kind, name, cpu_ms, _count in data["buckets"]:
        if int(t0) <= second <= end:
            spent[(kind, name)] = spent.get((kind, name), 0.0) + cpu_ms
    by_thread: dict[str, float] = {}
    for (kind, _name), cpu_ms in spent.items():
        by_thread[kind] = by_thread.get(kind, 0.0) + cpu_ms
    ui = sorted(((name, cpu) for (kind, name), cpu in spent.items() if kind == "ui"), key=lambda item: -item[1])
    waited: dict[str, float] = {}
    waited_after: dict[str, float] = {}
    for probe in probes:
        for name, cpu_ms in probe["ran"]:
            waited[name] = waited.get(name, 0.0) + cpu_ms
        for name, cpu_ms in probe.get("ran_after", []):
            waited_after[name] = waited_after.get(name, 0.0) + cpu_ms
    echoed = [p for p in probes if "frame" in p]
    return {
        "wait_cpu_ms": summary([p["wait_cpu_ms"] for p in probes]),
        "wait_ms": summary([p["wait_ms"] for p in probes]),
        "to_edit_ms": summary([p["to_edit_ms"] for p in echoed]),
        "to_frame_ms": summary([p["to_frame_ms"] for p in echoed]),
        "after_cpu_ms": summary([p["after_cpu_ms"] for p in echoed]),
        "waited_after": sorted(waited_after.items(), key=lambda item: -item[1])[:8],
        "probes": probes,  # each probe's times and the callbacks it waited for (--json keeps them)
        "gc": {
            gen: [len(ms), sum(ms), max(ms)]
            for gen, runs in data.get("gc", {}).items()
            if (ms := [cpu_ms for when, cpu_ms in runs if t0 <= when <= end])
        },
        "cpu_ms_by_thread": by_thread,
        "end_of_stream": end_of_stream(data.get("timeline", []), last_chunk, end),
        "ui_top": ui[:8],
        "waited_behind": sorted(waited.items(), key=lambda item: -item[1])[:8],
        "spans": [span for span in data.get("spans", []) if t0 - 1 <= span[1] and span[0] <= end + 1],
        "long_callbacks": long_callbacks(data.get("spans", []), t0, end),
    }


LONG_CALLBACK_MS = 4.0  # --trace: a UI-loop callback over this much CPU is one a key can wait a frame behind


def long_callbacks(spans: list[list[Any]], t0: float, end: float) -> dict[str, Any]:
    """The UI loop's callbacks of at least 0.5 ms (``bench/trace_loop.py``'s spans) that began while the reply
    streamed: their CPU (p50 / p99 / max, how many over ``LONG_CALLBACK_MS``), and per callback how many, the
    longest and how many over it, the longest first. Collections are spans of their own, inside a callback."""
    by_name: dict[str, list[float]] = {}
    for start, _end, thread, what, cpu in spans:
        if thread == "ui" and t0 <= start <= end and not what.startswith("display"):
            by_name.setdefault(what.split(" (")[0], []).append(cpu)
    # collections and lexer tables compiled run inside a callback: spans of their own, not callbacks
    everything = [cpu for what, cpus in by_name.items() if not what.startswith(("gc ", "lexer ")) for cpu in cpus]
    return {
        "cpu_ms": summary(everything),
        "over": sum(cpu > LONG_CALLBACK_MS for cpu in everything),
        "by_name": sorted(
            (
                [what, len(cpus), max(cpus), sum(cpu > LONG_CALLBACK_MS for cpu in cpus)]
                for what, cpus in by_name.items()
            ),
            key=lambda item: -item[2],
        )[:8],
    }


SLOW_ECHO_MS = 30.0  # --trace: a streaming probe whose echo took longer is broken down (slow_probes)
STREAM_STEPS = ("typed -> read", "read -> key event", "key event -> edit", "edit -> frame", "frame -> shown")


def slow_sent(sent: list[tuple[float, float]]) -> list[tuple[float, float]]:
    return [(typed, shown) for typed, shown in sent if (shown - typed) * 1000 > SLOW_ECHO_MS]


def slow_probes(spans: list[list[Any]], probes: list[dict[str, Any]], sent: list[tuple[float, float]]) -> list[Any]:
    """Each streaming probe whose echo took over ``SLOW_ECHO_MS``: its steps (ms), the UI loop's CPU it waited behind
    before its key event and spent from there to its frame, and every callback or collection of at least 0.5 ms
    (bench/trace_loop.py's spans, any thread) that overlapped it: [start ms after typed, wall ms, thread, what,
    CPU ms]. The UI thread's CPU against the wall time says how much of the echo the loop worked; the rest was a
    wait for the GIL, for the scheduler, or for nothing (the loop idle)."""
    slow: list[Any] = []
    for typed, shown in slow_sent(sent):
        p = next((p for p in probes if typed <= p["read"] <= shown and "frame" in p), None)
        entry: dict[str, Any] = {"echo_ms": (shown - typed) * 1000}
        if p is not None:
            times = (typed, p["read"], p["handled"], p["edited"], p["frame"], shown)
            entry["steps"] = [round((b - a) * 1000, 1) for a, b in zip(times, times[1:], strict=False)]
            entry["wait_cpu_ms"] = round(p["wait_cpu_ms"], 1)
            entry["after_cpu_ms"] = round(p["after_cpu_ms"], 1)
        entry["spans"] = [
            [round((start - typed) * 1000, 1), round((end - start) * 1000, 1), thread, what, round(cpu, 1)]
            for start, end, thread, what, cpu in spans
            if start <= shown and end >= typed
        ]
        slow.append(entry)
    return slow


IDLE_STEPS = ("typed -> read", "read -> key event", "key event -> edit", "edit -> frame", "frame -> shown")


def idle_steps(trace: dict[str, Any], probe: Probe) -> dict[str, Any]:
    """An idle probe's path step by step (ms, p50 over the run's probes): the bench typing it, Textual's input
    thread reading it, the app's key event, the prompt's edit, the frame written, the echo on the emulated screen;
    and the UI loop's CPU from the key event to its frame."""
    steps: dict[str, list[float]] = {name: [] for name in IDLE_STEPS}
    for p in trace["probes"]:
        if "frame" not in p:
            continue
        pair = next(((sent, shown) for sent, shown in probe.sent if sent <= p["read"] <= shown), None)
        if pair is None:
            continue
        sent, shown = pair
        times = (sent, p["read"], p["handled"], p["edited"], p["frame"], shown)
        for name, start, stop in zip(IDLE_STEPS, times, times[1:], strict=False):
            steps[name].append((stop - start) * 1000)
    return {
        "steps": {name: statistics.median(v) for name, v in steps.items() if v},
        "after_cpu_ms": trace["after_cpu_ms"],
        "waited_after": trace["waited_after"],
    }


# The steps of a reply's end, in the order they happen (bench/trace_loop.py's timeline): the network thread's
# last text put and its end, the UI's last text delta, the agent's record of the answer, the usage and turn
# events, the Markdown view's finish, and the first frame after it.
END_STEPS = (
    ("put", "put TextDelta", "last"),
    ("end", "end", "first"),
    ("text", "event TextDelta", "last"),
    ("flush", "flush done", "last"),
    ("record", "add_message done", "first"),
    ("usage", "event UsageUpdate", "first"),
    ("turn", "event TurnFinished", "first"),
    ("finish", "finish done", "first"),
)


def end_of_stream(timeline: list[list[Any]], last_chunk: float | None, shown: float) -> dict[str, Any]:
    """Milliseconds from the server's last chunk to each step of the reply's end (``END_STEPS``), the first frame
    after the view's finish, and the keys read and frame ticks held for a key in between."""
    if last_chunk is None or not timeline:
        return {}
    window = [
        (when, what, detail)
        for when, _thread, what, detail in timeline
        if last_chunk - 0.5 <= when <= max(shown, last_chunk + 0.5)
    ]
    names = [(when, f"{what} {detail}".strip()) for when, what, detail in window]
    steps: dict[str, Any] = {}
    for key, name, which in END_STEPS:
        found = [when for when, label in names if label == name]
        if found:
            steps[key] = ((found[-1] if which == "last" else found[0]) - last_chunk) * 1000
    finished = [when for when, label in names if label == "finish done"]
    if finished:
        frames = [when for when, label in names if label == "frame" and when >= finished[0]]
        if frames:
            steps["frame"] = (frames[0] - last_chunk) * 1000
    steps["shown"] = (shown - last_chunk) * 1000
    after = [(when, label) for when, label in names if when >= last_chunk]
    steps["keys_read"] = sum(1 for _when, label in after if label == "read")
    steps["ticks_held"] = sum(1 for _when, label in after if label == "tick held")
    steps["timeline"] = [[round((when - last_chunk) * 1000, 1), label] for when, label in names]  # --json keeps it
    return steps


def run_resume(session_cwd: str, session: str, home: str, fresh: bool, root: Path = ROOT) -> dict[str, Any]:
    """navtui (from checkout ``root``) started fresh, or resuming ``session``: spawn -> complete frame (the
    session's tail shown) -> echo."""
    argv = navtui_argv("http://127.0.0.1:9")  # nothing listens: the provider check fails after the first frame
    if not fresh:
        argv += ["-r", session]
    term = Terminal(argv, env=child_env_for(home, root), cwd=session_cwd)
    try:
        tail = "last entry of the session"

        def ready(lines: list[str]) -> bool:
            shows = any(tail in line for line in lines) if not fresh else any("attach a file" in line for line in lines)
            return shows and MODEL in lines[-1] and lines[-2].lstrip().startswith("╰")

        loading: list[float] = []  # keys typed from the first frame until the session shows: their echoes
        if not fresh:
            term.wait(lambda lines: MODEL in lines[-1] and lines[-2].lstrip().startswith("╰"), timeout=60)
            probe = Probe(term)
            # (The first frame already shows the session's tail, read from the file's end: the runtime comes after.)
            probe.run_until(lambda: "starting" not in term.display()[-1], time.monotonic() + 60)
            probe.clear()
            loading = probe.latencies
        when = term.wait(ready, timeout=60)
        if when is None:
            raise SystemExit("navtui resume: no complete frame in 60 s:\n" + "\n".join(term.display()[-10:]))
        # The session is usable once the runtime is built and its items shown: the status line's "starting" goes.
        usable = term.wait(lambda lines: ready(lines) and "starting" not in lines[-1], timeout=120)
        probe = Probe(term)
        echo = probe.once()
        first = (when - term.started) * 1000
        return {
            "first_frame_ms": first,
            "first_echo_ms": first + echo if echo is not None else None,
            "loading_echo_max_ms": max(loading) if loading else None,
            "usable_ms": (usable - term.started) * 1000 if usable is not None else None,
        }
    finally:
        term.close()


def write_resume_session(cwd: Path, home: str, entries: int) -> str:
    os.environ["NAVTUI_HOME"] = home
    from bench_transcript import write_session

    from navtui.core.messages import AssistantMessage, TextBlock, UserMessage
    from navtui.session.manager import SessionManager

    path = write_session(cwd, entries - 2)
    session = SessionManager.open(path)
    session.append_message(UserMessage(content="one more thing"))
    session.append_message(AssistantMessage(content=[TextBlock(text="This is the last entry of the session.")]))
    session.close()
    return str(path)


# ---------------------------------------------------------------------- report
def med(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None


def fmt(value: float | None, unit: str = "", digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}{unit}"


def report(results: dict[str, list[dict[str, Any]]], rates: list[float]) -> None:
    print("\nmedians over runs (each run a fresh process; runs interleaved across apps)\n")
    names = [name for name in results if results[name]]
    rows: list[tuple[str, Callable[[list[dict[str, Any]]], str]]] = [
        ("runs", lambda rs: str(len(rs))),
        ("spawn -> complete first frame", lambda rs: fmt(med([r["first_frame_ms"] for r in rs]), " ms")),
        ("spawn -> typed key echoed", lambda rs: fmt(med([r["first_echo_ms"] for r in rs]), " ms")),
        ("idle key echo p50 / p99", lambda rs: echo_cell([r["idle_echo_ms"] for r in rs], ("p50", "p99"))),
        ("idle CPU (share of a core)", lambda rs: fmt(med([r["idle_cpu"] * 100 for r in rs]), " %", 1)),
        ("RSS idle (with children)", lambda rs: fmt(med([r["rss_idle_mb"] for r in rs]), " MB")),
    ]
    for rate in rates:

        def pick(rs: list[dict[str, Any]], rate: float = rate) -> list[dict[str, Any]]:
            return [r["streams"][str(rate)] for r in rs if str(rate) in r.get("streams", {})]

        tag = f"{rate:,.0f} tok/s"
        rows += [
            (
                f"{tag}: key echo p50 / p95 / p99 / max",
                lambda rs, p=pick: echo_cell([s["echo_ms"] for s in p(rs)], ("p50", "p95", "p99", "max")),
            ),
            (
                f"{tag}: probes missed (sum)",
                lambda rs, p=pick: str(sum(s["echo_missed"] for s in p(rs))) if p(rs) else "-",
            ),
            (
                f"{tag}: last chunk -> last line shown",
                lambda rs, p=pick: fmt(
                    med([s["behind_s"] * 1000 if s["behind_s"] is not None else None for s in p(rs)]), " ms"
                ),
            ),
            (
                f"{tag}: bytes to the terminal /s",
                lambda rs, p=pick: fmt(med([s["bytes_per_s"] / 1024 for s in p(rs)]), " KB"),
            ),
            (
                f"{tag}: frames /s; bytes per frame (median)",
                lambda rs, p=pick: (
                    f"{fmt(med([s['frames_per_s'] for s in p(rs)]), '', 1)}; {fmt(med([s['bytes_per_frame'] for s in p(rs)]), ' B')}"
                ),
            ),
            (f"{tag}: CPU (share of a core)", lambda rs, p=pick: fmt(med([s["cpu_share"] * 100 for s in p(rs)]), " %")),
            (
                f"{tag}: traced: loop CPU a key waited behind p50 / p95 / max",
                lambda rs, p=pick: echo_cell(
                    [s["trace"]["wait_cpu_ms"] for s in p(rs) if "trace" in s], ("p50", "p95", "max")
                ),
            ),
            (
                f"{tag}: traced: UI-loop callback CPU p50 / p99 / max; over {LONG_CALLBACK_MS:.0f} ms",
                lambda rs, p=pick: long_cell([s["trace"].get("long_callbacks") for s in p(rs) if "trace" in s]),
            ),
            (
                f"{tag}: traced: read -> key event -> prompt edited -> frame p50",
                lambda rs, p=pick: (
                    " / ".join(
                        fmt(med([s["trace"][k]["p50"] for s in p(rs) if s.get("trace", {}).get(k, {}).get("n")]), "", 1)
                        for k in ("wait_ms", "to_edit_ms", "to_frame_ms")
                    )
                    + " ms"
                ),
            ),
            (
                f"{tag}: traced: loop CPU from the key event to its frame p50 / p95 / max",
                lambda rs, p=pick: echo_cell(
                    [s["trace"].get("after_cpu_ms", {}) for s in p(rs) if "trace" in s], ("p50", "p95", "max")
                ),
            ),
            (
                f"{tag}: traced: CPU in callbacks, UI loop; network thread",
                lambda rs, p=pick: traced_threads([s["trace"] for s in p(rs) if "trace" in s]),
            ),
            (
                f"{tag}: RSS 4 s later, idle",
                lambda rs, p=pick: fmt(med([s.get("rss_settled_mb") for s in p(rs)]), " MB"),
            ),
            (
                f"{tag}: RSS at the end (with children)",
                lambda rs, p=pick: (
                    f"{fmt(med([s['rss_mb'] for s in p(rs)]), ' MB')} ({fmt(med([s['rss_tree_mb'] for s in p(rs)]), ' MB')})"
                ),
            ),
        ]
    traced = any("trace" in s for runs in results.values() for r in runs for s in r.get("streams", {}).values())
    if not traced:
        rows = [(label, cell) for label, cell in rows if ": traced: " not in label]
    table = [(label, [cell(results[name]) for name in names]) for label, cell in rows]
    label_width = max(len(label) for label, _ in table) + 2
    widths = [max(len(name), *(len(cells[i]) for _, cells in table)) + 3 for i, name in enumerate(names)]
    print(" " * label_width + "".join(f"{name:>{w}}" for name, w in zip(names, widths, strict=True)))
    for label, cells in table:
        print(f"{label:<{label_width}}" + "".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True)))


def long_cell(found: list[dict[str, Any] | None]) -> str:
    kept = [f for f in found if f and f["cpu_ms"].get("n")]
    if not kept:
        return "-"
    cpu = " / ".join(fmt(med([f["cpu_ms"][k] for f in kept]), "", 1) for k in ("p50", "p99", "max"))
    return f"{cpu} ms; {fmt(med([f['over'] for f in kept]), '')}"


def traced_threads(traces: list[dict[str, Any]]) -> str:
    if not traces:
        return "-"
    ui = med([t["cpu_ms_by_thread"].get("ui", 0.0) for t in traces])
    network = med([t["cpu_ms_by_thread"].get("navtui-network", 0.0) for t in traces])
    return f"{fmt(ui, ' ms')}; {fmt(network, ' ms')}"


def report_traces(results: dict[str, list[dict[str, Any]]]) -> None:
    """Per traced app and rate: the UI loop's costliest callbacks while streaming, and what keys waited behind."""
    for name, runs in results.items():
        idle = [r["idle_trace"] for r in runs if r.get("idle_trace", {}).get("steps")]
        if idle:
            cells = ", ".join(f"{step} {fmt(med([t['steps'].get(step) for t in idle]), '', 1)}" for step in IDLE_STEPS)
            cpu = echo_cell([t["after_cpu_ms"] for t in idle], ("p50", "p95", "max"))
            print(f"{name}: an idle key's path, ms (p50, median over runs): {cells}; loop CPU key event -> frame {cpu}")
            totals: dict[str, float] = {}
            for t in idle:
                for callback, cpu_ms in t["waited_after"]:
                    totals[callback] = totals.get(callback, 0.0) + cpu_ms / len(idle)
            ranked = sorted(totals.items(), key=lambda item: -item[1])[:6]
            print(
                f"{name}: what ran between an idle key's event and its frame (mean per run): "
                + ", ".join(f"{callback} {cpu_ms:,.0f} ms" for callback, cpu_ms in ranked)
            )
        streams = [s for r in runs for s in r.get("streams", {}).values() if "trace" in s]
        for key, title in (
            ("ui_top", "UI loop CPU by callback"),
            ("waited_behind", "what probe keys waited behind"),
            ("waited_after", "what ran between a probe key's event and its frame"),
        ):
            totals: dict[str, list[float]] = {}
            for s in streams:
                for callback, cpu_ms in s["trace"].get(key, []):
                    totals.setdefault(callback, []).append(cpu_ms)
            if totals:
                ranked = sorted(totals.items(), key=lambda item: -sum(item[1]))[:6]
                cells = ", ".join(f"{callback} {sum(v) / len(streams):,.0f} ms" for callback, v in ranked)
                print(f"{name}: {title} (mean per run): {cells}")
        longest: dict[str, list[Any]] = {}
        for s in streams:
            for what, count, cpu_max, over in s["trace"].get("long_callbacks", {}).get("by_name", []):
                kept = longest.setdefault(what, [0, 0.0, 0])
                kept[0], kept[1], kept[2] = kept[0] + count, max(kept[1], cpu_max), kept[2] + over
        if longest:
            ranked = sorted(longest.items(), key=lambda item: -item[1][1])[:6]
            print(
                f"{name}: the longest UI-loop callbacks while streaming (all runs: longest, over "
                f"{LONG_CALLBACK_MS:.0f} ms of all >= 0.5 ms): "
                + ", ".join(f"{what} {cpu:.1f} ms ({over} of {count})" for what, (count, cpu, over) in ranked)
            )
        ends = [s["trace"]["end_of_stream"] for s in streams if s["trace"].get("end_of_stream")]
        if ends:
            keys = [key for key, _name, _which in END_STEPS] + ["frame", "shown"]
            print(f"{name}: the end of the stream, ms after the server's last chunk (each run):")
            for steps in ends:
                cells = ", ".join(f"{key} {steps[key]:+,.0f}" for key in keys if key in steps)
                print(f"    {cells}; keys read {steps['keys_read']}, frame ticks held for a key {steps['ticks_held']}")
        collections = [
            f"{gen} {count} ({total:,.0f} ms, longest {longest:,.0f} ms)"
            for s in streams
            for gen, (count, total, longest) in sorted(s["trace"].get("gc", {}).items())
        ]
        if collections:
            print(f"{name}: garbage collections on the UI thread while streaming, each run: {', '.join(collections)}")
        slow = sorted((p for s in streams for p in s["trace"].get("slow", [])), key=lambda p: -p["echo_ms"])
        if slow:
            print(
                f"{name}: probes echoed after more than {SLOW_ECHO_MS:.0f} ms while streaming ({len(slow)}, all runs):"
            )
            for p in slow[:12]:
                steps = " / ".join(f"{ms:.1f}" for ms in p.get("steps", [])) or "-"
                print(
                    f"    {p['echo_ms']:.1f} ms: {' / '.join(STREAM_STEPS)} {steps}; loop CPU waited behind "
                    f"{p.get('wait_cpu_ms', '-')}, key event -> frame {p.get('after_cpu_ms', '-')} ms"
                )
                for start, wall, thread, what, cpu in sorted(p["spans"]):
                    if wall >= 2 or cpu >= 1 or thread in ("terminal", "textual-output"):
                        print(f"        +{start:.1f} ms {thread}: {what}, {wall:.1f} ms wall, {cpu:.1f} ms CPU")


def echo_cell(summaries: list[dict[str, float]], keys: tuple[str, ...]) -> str:
    kept = [s for s in summaries if s.get("n")]
    if not kept:
        return "-"
    return " / ".join(fmt(med([s[k] for s in kept]), "", 1) for k in keys) + " ms"


def report_resume(resumes: dict[str, dict[str, list[dict[str, Any]]]]) -> None:
    for name, kinds in resumes.items():
        first = med([r["first_frame_ms"] for r in kinds["fresh"]])
        again = med([r["first_frame_ms"] for r in kinds["resumed"]])
        echo = med([r["first_echo_ms"] for r in kinds["resumed"]])
        while_loading = med([r.get("loading_echo_max_ms") for r in kinds["resumed"]])
        usable = med([r.get("usable_ms") for r in kinds["resumed"]])
        if first and again:
            print(
                f"\n{name} spawn -> complete frame: fresh start {fmt(first, ' ms')}, resuming the session "
                f"{fmt(again, ' ms')} ({again / first:.2f}x; a key echoed at {fmt(echo, ' ms')}; the slowest echo "
                f"of the keys typed while it loaded {fmt(while_loading, ' ms')}; usable (runtime built, "
                f"'starting' gone) at {fmt(usable, ' ms')}; {len(kinds['fresh'])} runs each)"
            )


def report_load(loads: list[dict[str, list[float]]]) -> None:
    for part, load in enumerate(loads, 1):
        before, after = (" ".join(f"{v:.2f}" for v in load[k]) for k in ("before", "after"))
        print(f"load average (1, 5, 15 min), part {part}: before {before}; after {after}")


def merge(files: list[str]) -> None:
    """Report the runs kept by several ``--json`` parts together."""
    results: dict[str, list[dict[str, Any]]] = {}
    resumes: dict[str, dict[str, list[dict[str, Any]]]] = {}
    loads: list[dict[str, list[float]]] = []
    rates: set[float] = set()
    for file in files:
        data = json.loads(Path(file).read_text())
        for name, runs in data["apps"].items():
            results.setdefault(name, []).extend(runs)
            rates.update(float(rate) for run in runs for rate in run.get("streams", {}))
        for name, kinds in (data.get("resume") or {}).items():
            for kind, runs in kinds.items():
                resumes.setdefault(name, {}).setdefault(kind, []).extend(runs)
        if "load" in data:
            loads.append(data["load"])
    report(results, sorted(rates))
    report_traces(results)
    report_resume(resumes)
    report_load(loads)


# ---------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rates", default="200,1000", help="tokens per second, comma-separated ('' for none)")
    parser.add_argument("--tokens", type=int, default=20000)
    parser.add_argument("--apps", default="navtui,textual")
    parser.add_argument("--baseline", help="another navtui checkout, run as the app 'before'")
    parser.add_argument("--vibe2", help="the `vibe` executable of Mistral Vibe 2.x (run with VIBE_CLI=python)")
    parser.add_argument("--vibe3", help="the `vibe` executable of Mistral Vibe 3.x")
    parser.add_argument("--idle-probes", type=int, default=15)
    parser.add_argument("--resume", action="store_true", help="add navtui resuming a 5,000-entry session")
    parser.add_argument("--resume-entries", type=int, default=5000, help="the resumed session's entries")
    parser.add_argument("--json", help="write every run's figures to this file")
    parser.add_argument(
        "--dump-blank",
        metavar="DIR",
        help="navtui: write every frame that leaves the transcript blank where the frame before showed text",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="navtui and before run through bench/trace_loop.py: the loop CPU a key waited behind, CPU per callback",
    )
    parser.add_argument("--merge", nargs="+", metavar="FILE", help="report the runs kept in these --json files")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rate", type=float, default=1000, help=argparse.SUPPRESS)
    parser.add_argument("--replies", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.rate, args.tokens, args.replies)
        return
    if args.merge:
        merge(args.merge)
        return
    global DUMP_BLANK, TRACE
    DUMP_BLANK = Path(args.dump_blank) if args.dump_blank else None
    TRACE = args.trace
    for root in (ROOT, *([Path(args.baseline)] if args.baseline else [])):
        compileall.compile_dir(str(root / "navtui"), quiet=1)
    sys.setswitchinterval(0.0005)  # the terminal's reader thread timestamps promptly while the emulator draws
    rates = [float(r) for r in args.rates.split(",") if r]
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as handle:
        handle.write(STOCK_APP)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as floor:
        floor.write(FLOOR_APP)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as stack:
        stack.write(STACK_APP)
    apps = build_apps(args, handle.name, floor.name, stack.name)
    results: dict[str, list[dict[str, Any]]] = {app.name: [] for app in apps}
    load = {"before": list(os.getloadavg())}
    try:
        for app in apps:  # warm-up: caches, bytecode, the page cache
            print(f"warm-up {app.name} ...", flush=True)
            run_once(app, None, args.tokens, idle_probes=2)
        for run in range(args.runs):
            for app in round_order(apps, run):
                print(f"run {run + 1}/{args.runs}: {app.name} ...", flush=True)
                result = run_once(app, None, args.tokens, args.idle_probes)
                result["streams"] = {}
                if app.streams:
                    for rate in rates:
                        print(f"run {run + 1}/{args.runs}: {app.name} streaming at {rate:,.0f} tok/s ...", flush=True)
                        result["streams"][str(rate)] = run_once(app, rate, args.tokens, 0)
                results[app.name].append(result)
        navtuis = [app for app in apps if app.name in ("navtui", "before")]
        resumes = resume_runs(args.runs, navtuis, args.resume_entries) if args.resume else {}
    finally:
        os.unlink(handle.name)
        os.unlink(floor.name)
        os.unlink(stack.name)
        for app in apps:
            if app.home is not None:
                shutil.rmtree(app.home, ignore_errors=True)
    load["after"] = list(os.getloadavg())
    if args.json:
        Path(args.json).write_text(json.dumps({"apps": results, "resume": resumes, "load": load}, indent=1))
    report(results, rates)
    report_traces(results)
    if resumes:
        report_resume(resumes)
    report_load([load])


def resume_runs(runs: int, apps: list[App], entries: int = 5000) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Fresh start and resume of an ``entries``-entry session, interleaved, for each navtui checkout in ``apps``."""
    home = tempfile.mkdtemp(prefix="bench-resume-")
    cwd = Path(tempfile.mkdtemp(prefix="bench-resume-cwd-"))
    results: dict[str, dict[str, list[dict[str, Any]]]] = {app.name: {"fresh": [], "resumed": []} for app in apps}
    try:
        session = write_resume_session(cwd, home, entries)
        for app in apps:  # warm-up
            run_resume(str(cwd), session, home, fresh=True, root=app.root)
        for run in range(runs):
            for app in apps:
                print(f"resume run {run + 1}/{runs}: {app.name} ...", flush=True)
                for kind in ("fresh", "resumed"):
                    result = run_resume(str(cwd), session, home, fresh=kind == "fresh", root=app.root)
                    results[app.name][kind].append(result)
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(cwd, ignore_errors=True)
    return results


if __name__ == "__main__":
    main()
