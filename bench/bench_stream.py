"""Streaming benchmark: a 20,000-token Markdown reply at 200 and 1,000 tok/s, navtui's ``MarkdownView``
against stock Textual ``Markdown.get_stream()`` in the same run.

Each configuration runs in a fresh process (``--child``) with a headless 120x40 app shaped like navtui's main
screen: a ``layout: stream`` transcript, a focused ``TextArea`` prompt and a status line. Tokens (4 chars)
are released on a schedule (``t0 + i / rate``). While streaming:

* keys are injected from a thread every 50 ms (as the terminal driver does): key -> next frame latency;
* provider -> screen lag: for every token, the first frame after the update that contained it;
* a 60 Hz timer measures event-loop stalls; frames per second; CPU; peak RSS.

A third configuration, ``app``, runs the whole navtui app (real Runtime, agent loop and Ollama provider)
against the fake Ollama server streaming NDJSON at the same rate; its lag is measured from a text delta
reaching the event router to the frame that shows it, and "behind" from the last delta to its frame.

Usage: ``python bench/bench_stream.py`` (about 7 minutes; ``--quick`` runs 4,000 tokens at 200 tok/s).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    chunk,
    emit,
    fmt_ms,
    install_frame_hook,
    make_markdown,
    next_frame,
    peak_rss_mb,
    summary,
    verdict,
)

# DESIGN.md section 12 (and research T5-T8, T13)
TARGETS = {
    1000: {"key_p50": 20.0, "key_p99": 50.0, "lag_p99": 50.0, "fps": 30.0, "stall": 50.0, "rss": 100.0},
    200: {"key_p50": 12.0, "key_p99": 33.0, "lag_p99": 50.0, "fps": 30.0, "stall": 50.0, "rss": 100.0},
}


def build_app(method: str, tokens: list[str], rate: float, flush_ms: float | None = None) -> Any:
    from textual import events
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Markdown, Static, TextArea

    from navtui.app import gc_policy
    from navtui.app.theme_defaults import nav_defaults
    from navtui.widgets.markdown.view import MarkdownView

    if flush_ms:
        MarkdownView.FLUSH_INTERVAL = flush_ms / 1000

    class Prompt(TextArea):
        """Records when each key has changed the text (Changed messages can be coalesced, edits cannot)."""

        def edit(self, edit: Any) -> Any:
            result = super().edit(edit)
            self.app.key_handled.append(time.perf_counter())
            return result

    class StreamBench(App[dict]):
        CSS = """
        #chat { height: 1fr; layout: stream; scrollbar-gutter: stable; }
        #chat Markdown { layout: stream; }
        MarkdownView { height: auto; }
        TextArea { height: 3; }
        #status { height: 1; }
        """

        def __init__(self) -> None:
            super().__init__()
            self.ticks: list[float] = []
            self.key_sent: list[float] = []
            self.key_handled: list[float] = []
            self.updates: list[tuple[float, int]] = []  # (time the widget took the text, tokens included)
            self.released = 0

        def get_theme_variable_defaults(self) -> dict[str, str]:
            return nav_defaults(self.current_theme.to_color_system().generate())

        def compose(self) -> ComposeResult:
            with VerticalScroll(id="chat"):
                yield Static("user: write me a long answer")
            yield Prompt(id="prompt")
            yield Static("status", id="status")

        async def bench(self) -> dict[str, Any]:
            chat = self.query_one("#chat", VerticalScroll)
            self.query_one(TextArea).focus()
            chat.anchor()
            frames = install_frame_hook(self)
            loop = asyncio.get_running_loop()
            gc_timer = None
            if method == "navtui":
                # navtui's GC policy (navtui/app/gc_policy.py): freeze at start, collect+freeze every second while working.
                gc_policy.settle()
                gc_timer = self.set_interval(1.0, gc_policy.tick)
                view = MarkdownView(streaming=True)
                await chat.mount(view)
                original_apply = view._apply

                def apply(text: str) -> None:
                    count = self.released
                    original_apply(text)
                    self.updates.append((time.perf_counter(), count))

                view._apply = apply  # type: ignore[method-assign]
                view._coalescer._flush = apply
                write = view.append
                stream = None
            else:
                md = Markdown()
                await chat.mount(md)
                original_append = md.append

                async def append(text: str) -> Any:
                    count = self.released
                    result = await original_append(text)
                    self.updates.append((time.perf_counter(), count))
                    return result

                md.append = append  # type: ignore[method-assign]
                stream = Markdown.get_stream(md)
                write = None
            await next_frame(self, frames)

            stop = threading.Event()

            def inject_keys() -> None:
                # "x" then backspace: the prompt stays short, as it does while someone types and edits.
                n = 0
                while not stop.wait(0.05):
                    key = events.Key("x", "x") if n % 2 == 0 else events.Key("backspace", None)
                    self.key_sent.append(time.perf_counter())
                    asyncio.run_coroutine_threadsafe(self._post_message(key), loop)
                    n += 1

            timer = self.set_interval(1 / 60, lambda: self.ticks.append(time.perf_counter()))
            keys = threading.Thread(target=inject_keys, daemon=True)
            first_frame = len(frames["frames"])
            t0 = time.perf_counter()
            cpu0 = time.process_time()
            release_times: list[float] = []
            keys.start()
            for i, token in enumerate(tokens):
                delay = t0 + i / rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                release_times.append(time.perf_counter())
                self.released = i + 1
                if write is not None:
                    write(token)
                else:
                    await stream.write(token)  # type: ignore[union-attr]
            if method == "navtui":
                view.finish()
            else:
                await stream.stop()  # type: ignore[union-attr]
            await next_frame(self, frames)
            t_end = time.perf_counter()
            cpu = time.process_time() - cpu0
            stop.set()
            keys.join()
            timer.stop()
            if gc_timer is not None:
                gc_timer.stop()
            await asyncio.sleep(0.2)

            all_frames = frames["frames"]
            lags: list[float] = []
            previous = 0
            for when, count in self.updates:
                k = bisect.bisect_left(all_frames, when)
                if k < len(all_frames) and count > previous:
                    shown = all_frames[k]
                    lags.extend((shown - release_times[j]) * 1000 for j in range(previous, count))
                    previous = max(previous, count)
            key_frame: list[float] = []
            handled = sorted(self.key_handled)
            for sent in self.key_sent:
                j = bisect.bisect_left(handled, sent)
                if j < len(handled):
                    k = bisect.bisect_left(all_frames, handled[j])
                    if k < len(all_frames):
                        key_frame.append((all_frames[k] - sent) * 1000)
            gaps = [(b - a) * 1000 for a, b in zip(self.ticks, self.ticks[1:], strict=False)]
            wall = t_end - t0
            return {
                "method": method,
                "rate": rate,
                "tokens": len(tokens),
                "wall_s": wall,
                "behind_s": wall - len(tokens) / rate,
                "fps": (len(all_frames) - first_frame) / wall,
                "cpu_share": cpu / wall,
                "key_to_frame_ms": summary(key_frame),
                "lag_ms": summary(lags),
                "tick_gap_ms": summary(gaps),
                "widgets": len(list(self.screen.walk_children())),
                "peak_rss_mb": peak_rss_mb(),
            }

    return StreamBench()


async def run_app_child(rate: float, n_tokens: int) -> dict[str, Any]:
    """The whole pipeline: the fake Ollama server streams NDJSON at ``rate``; the real Runtime, agent loop, event
    router and transcript show it. Lag is measured from a text delta reaching the router to its frame."""
    import tempfile
    from pathlib import Path

    from textual import events

    from navtui.agent.runtime import LaunchOptions, Runtime
    from navtui.app import events as app_events
    from navtui.app.app import NavtuiApp
    from navtui.core.events import TextDelta
    from navtui.widgets.markdown.view import MarkdownView
    from navtui.widgets.prompt import PromptEditor
    from tests.fakes import FakeServer

    text = make_markdown(n_tokens * 4)
    server = FakeServer().start()
    server.set_model("qwen2.5-coder:7b")
    server.script_stream(text, tokens_per_second=rate, chunk_chars=4)
    arrivals: list[tuple[float, int]] = []  # (time a delta reached the router, chars so far)
    updates: list[tuple[float, int]] = []  # (time a view took its text, chars it holds)
    received = 0
    original_handle = app_events.EventRouter.handle

    def handle(self: Any, event: Any) -> None:
        nonlocal received
        if isinstance(event, TextDelta):
            received += len(event.text)
            arrivals.append((time.perf_counter(), received))
        original_handle(self, event)

    app_events.EventRouter.handle = handle  # type: ignore[method-assign]
    original_apply = MarkdownView._apply

    def apply(self: Any, chunk: str) -> None:
        original_apply(self, chunk)
        updates.append((time.perf_counter(), len(self.text)))

    MarkdownView._apply = apply  # type: ignore[method-assign]
    cwd = Path(tempfile.mkdtemp())
    runtime = Runtime.create(
        LaunchOptions(cwd=cwd, provider="ollama", base_url=server.url, model="qwen2.5-coder:7b", ephemeral=True)
    )
    app = NavtuiApp(runtime, check_provider=False, watch_themes=False)
    key_sent: list[float] = []
    key_handled: list[float] = []
    ticks: list[float] = []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.3)
            frames = install_frame_hook(app)
            prompt = app.screen.query_one(PromptEditor)
            original_edit = prompt.edit

            def edit(change: Any) -> Any:
                result = original_edit(change)
                key_handled.append(time.perf_counter())
                return result

            prompt.edit = edit  # type: ignore[method-assign]
            loop = asyncio.get_running_loop()
            stop = threading.Event()

            read = getattr(getattr(app, "pacer", None), "read", None)  # what navtui's driver notes on a key's read

            def inject_keys() -> None:
                n = 0
                while not stop.wait(0.05):
                    key = events.Key("x", "x") if n % 2 == 0 else events.Key("backspace", None)
                    key_sent.append(time.perf_counter())
                    if read is not None:
                        read()
                    asyncio.run_coroutine_threadsafe(app._post_message(key), loop)
                    n += 1

            timer = app.set_interval(1 / 60, lambda: ticks.append(time.perf_counter()))
            keys = threading.Thread(target=inject_keys, daemon=True)
            first_frame = len(frames["frames"])
            t0 = time.perf_counter()
            cpu0 = time.process_time()
            app.screen.submit("write it")
            keys.start()
            await app.workers.wait_for_complete()  # the agent turn (and anything it started) is done
            await next_frame(app, frames)
            t_end = time.perf_counter()
            cpu = time.process_time() - cpu0
            stop.set()
            keys.join()
            timer.stop()
            await asyncio.sleep(0.2)
            all_frames = frames["frames"]
            lags: list[float] = []
            index = 0
            for when, chars in updates:
                k = bisect.bisect_left(all_frames, when)
                if k >= len(all_frames):
                    continue
                while index < len(arrivals) and arrivals[index][1] <= chars:
                    lags.append((all_frames[k] - arrivals[index][0]) * 1000)
                    index += 1
            key_frame: list[float] = []
            handled = sorted(key_handled)
            for sent in key_sent:
                j = bisect.bisect_left(handled, sent)
                if j < len(handled):
                    k = bisect.bisect_left(all_frames, handled[j])
                    if k < len(all_frames):
                        key_frame.append((all_frames[k] - sent) * 1000)
            gaps = [(b - a) * 1000 for a, b in zip(ticks, ticks[1:], strict=False)]
            wall = t_end - t0
            stream_end = arrivals[-1][0] if arrivals else t_end
            return {
                "method": "app",
                "rate": rate,
                "tokens": n_tokens,
                "wall_s": wall,
                "behind_s": t_end - stream_end,  # the last delta received -> the frame showing it
                "fps": (len(all_frames) - first_frame) / wall,
                "cpu_share": cpu / wall,
                "key_to_frame_ms": summary(key_frame),
                "lag_ms": summary(lags),
                "tick_gap_ms": summary(gaps),
                "widgets": len(list(app.screen.walk_children())),
                "peak_rss_mb": peak_rss_mb(),
            }
    finally:
        server.stop()


async def run_child(method: str, rate: float, n_tokens: int, flush_ms: float | None) -> dict[str, Any]:
    tokens = chunk(make_markdown(n_tokens * 4), 4)[:n_tokens]
    app = build_app(method, tokens, rate, flush_ms)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        return await app.bench()


def spawn(method: str, rate: float, tokens: int, flush_ms: float | None) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", method, "--rate", str(rate), "--tokens", str(tokens)]
    if flush_ms:
        cmd += ["--flush-ms", str(flush_ms)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED="0"))
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        raise SystemExit(f"child failed:\n{out.stdout}\n{out.stderr}")
    return json.loads(lines[-1][7:])


def report(results: list[dict[str, Any]]) -> None:
    print()
    print(
        f"{'method':<8} {'tok/s':>5} {'tokens':>6} | {'key->frame p50':>14} {'p99':>7} | {'lag p50':>7} {'p99':>7} "
        f"| {'behind s':>8} | {'fps':>5} | {'stall max':>9} | {'cpu':>5} | {'RSS MB':>6} | widgets"
    )
    for r in results:
        k, lag, gap = r["key_to_frame_ms"], r["lag_ms"], r["tick_gap_ms"]
        print(
            f"{r['method']:<8} {r['rate']:>5.0f} {r['tokens']:>6} | {fmt_ms(k.get('p50')):>14} {fmt_ms(k.get('p99'))} | "
            f"{fmt_ms(lag.get('p50'))} {fmt_ms(lag.get('p99'))} | {r['behind_s']:>8.2f} | {r['fps']:>5.1f} | "
            f"{fmt_ms(gap.get('max')):>9} | {r['cpu_share'] * 100:>4.0f}% | {r['peak_rss_mb']:>6.0f} | {r['widgets']}"
        )
    print("\nnavtui (view and whole app) against DESIGN.md section 12:")
    for r in results:
        if r["method"] == "stock":
            continue
        t = TARGETS.get(int(r["rate"]), TARGETS[1000])
        k, lag, gap = r["key_to_frame_ms"], r["lag_ms"], r["tick_gap_ms"]
        checks = [
            ("key->frame p50", k.get("p50"), t["key_p50"], True),
            ("key->frame p99", k.get("p99"), t["key_p99"], True),
            ("lag p99", lag.get("p99"), t["lag_p99"], True),
            ("fps", r["fps"], t["fps"], False),
            ("stall max", gap.get("max"), t["stall"], True),
            ("RSS MB", r["peak_rss_mb"], t["rss"], True),
        ]
        line = ", ".join(
            f"{name} {value:.1f} ({'<=' if low else '>='} {target:g}: {verdict(value, target, lower_is_better=low)})"
            for name, value, target, low in checks
        )
        print(f"  {r['method']} {r['rate']:.0f} tok/s: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", choices=["navtui", "stock", "app"])
    parser.add_argument("--rate", type=float, default=1000)
    parser.add_argument("--tokens", type=int, default=20000)
    parser.add_argument("--quick", action="store_true", help="4,000 tokens at 200 tok/s and 20,000 at 1,000")
    parser.add_argument("--rates", default="200,1000")
    parser.add_argument(
        "--methods", default="navtui,stock,app", help="navtui (MarkdownView), stock, app (the whole app)"
    )
    parser.add_argument("--flush-ms", type=float, help="override MarkdownView.FLUSH_INTERVAL (experiments)")
    args = parser.parse_args()
    if args.child == "app":
        emit(asyncio.run(run_app_child(args.rate, args.tokens)))
        return
    if args.child:
        emit(asyncio.run(run_child(args.child, args.rate, args.tokens, args.flush_ms)))
        return
    results = []
    for rate in (float(r) for r in args.rates.split(",")):
        tokens = 4000 if args.quick and rate <= 200 else args.tokens
        for method in args.methods.split(","):
            print(f"streaming {tokens} tokens at {rate:.0f} tok/s with {method} ...", flush=True)
            results.append(spawn(method, rate, tokens, args.flush_ms))
    report(results)


if __name__ == "__main__":
    main()
