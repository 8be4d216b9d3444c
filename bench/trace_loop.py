"""Run navtui with its event loop traced: what a key waited for, and where each thread's CPU went.

``bench_terminal.py --trace`` starts navtui (this checkout's or ``--baseline``'s: whichever ``navtui`` is on the
path) through this wrapper. It notes:

* for each probe key ("Z" or its erasure): the time Textual's input thread read it and the UI loop thread's CPU
  time then, and the time the app's ``on_event`` got it with the loop's CPU time then. CPU the loop burned in
  between does not depend on how often the scheduler ran the process, so it says what the key waited *behind*
  even on a loaded machine; the callbacks that ran in between are kept, the costliest first;
* after that, the time the prompt applied the key (``TextArea.edit``) and the time of the first frame after it
  (``App._display``), with the loop's CPU time at each and the costliest callbacks that ran from the key's
  handling to its frame: what the echo waited for once the app had the key;
* the CPU of each garbage collection on the UI thread, by generation;
* the end of the stream: the last moments of the network thread's hand-off (each item put, the end), the events
  the screen's router handled, the Markdown view's flushes and ``finish``, the agent's ``add_message`` and the
  frames, each with its time (a ring of the last ``TIMELINE`` entries), so the bench can say where the time
  between the server's last chunk and the reply's last line on screen went;
* every asyncio callback's CPU time, per thread (the UI loop, and navtui's network thread where there is one),
  in one-second buckets of ``time.monotonic()`` (shared with the bench), so the bench sums the streaming window.

On SIGUSR1 it writes what it has to ``$NAVTUI_TRACE`` (JSON), and with ``NAVTUI_PROFILE=PATH`` in the bench's
environment the UI thread's cProfile stats to PATH (``pstats``; slow: for where the time goes, not how much). Bench tooling: it wraps library internals
(Textual's driver, asyncio's ``Handle._run``) in this process only.
"""

from __future__ import annotations

import asyncio
import importlib.abc
import importlib.util
import json
import os
import runpy
import signal
import sys
import threading
import time
from collections import defaultdict, deque
from typing import Any

PROBE_KEYS = ("Z", "backspace")
KEPT_PER_PROBE = 5  # the costliest callbacks of a probe's wait
TIMELINE = 3000  # the last steps of the stream's end kept (--trace: "the end of the stream")

_main = threading.main_thread().ident or 0
_main_clock = time.pthread_getcpuclockid(_main)
_buckets: dict[tuple[int, str, str], list[float]] = defaultdict(lambda: [0.0, 0])
_probes: list[dict[str, Any]] = []
_pending: list[dict[str, Any]] = []  # read, not handled yet (the input thread appends, the loop pops)
_ran: list[tuple[str, float]] = []  # callbacks on the UI loop while a probe waits
_echoing: list[dict[str, Any]] = []  # handled, its frame not out yet (the loop's own list)
_ran_after: list[tuple[str, float]] = []  # callbacks on the UI loop from a probe's handling to its frame


_gc: dict[str, list[list[float]]] = defaultdict(list)  # "gen2" -> [when, CPU ms] of each collection on the UI thread
_gc_started = [0.0]
SLOW_RUN_MS = 0.5  # a callback or collection at least this long (CPU or wall) goes into the ring below
_spans: deque[list[Any]] = deque(maxlen=40000)  # [start, end, thread, what, CPU ms]: callbacks and collections
_gc_begun: dict[int, tuple[float, float]] = {}  # thread -> (wall, CPU) at its collection's start
_timeline: deque[list[Any]] = deque(maxlen=TIMELINE)  # [when, thread, what, detail]


def _note(what: str, detail: Any = "") -> None:
    kind = "ui" if threading.get_ident() == _main else threading.current_thread().name
    _timeline.append([time.monotonic(), kind, what, detail])


def _gc_callback(phase: str, info: dict[str, Any]) -> None:
    ident = threading.get_ident()
    if phase == "start":
        _gc_begun[ident] = (time.monotonic(), time.thread_time())
    elif ident in _gc_begun:
        wall, cpu = _gc_begun.pop(ident)
        now, spent = time.monotonic(), (time.thread_time() - cpu) * 1000
        if spent >= SLOW_RUN_MS or (now - wall) * 1000 >= SLOW_RUN_MS:
            kind = "ui" if ident == _main else threading.current_thread().name
            _spans.append([wall, now, kind, f"gc gen{info['generation']} ({info['collected']} freed)", spent])
    if ident != _main:
        return
    if phase == "start":
        _gc_started[0] = time.thread_time()
    else:
        _gc[f"gen{info['generation']}"].append([time.monotonic(), (time.thread_time() - _gc_started[0]) * 1000])


class _LexerTables(importlib.abc.MetaPathFinder):
    """Notes each lexer class whose tables Pygments compiles (its first instance: ~30-50 ms for Python), on which
    thread and at what CPU, as a span: a flush that compiled them on the UI loop took 31-53 ms (docs/speed.md,
    "Tenth wave"). Hooked when ``pygments.lexer`` is imported, so the app imports nothing earlier than it would."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "pygments.lexer":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        execute = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            execute(module)
            compile_tables = module.RegexLexerMeta.process_tokendef

            def noted(cls: Any, name: str, tokendefs: Any = None) -> Any:
                cpu, began = time.thread_time(), time.monotonic()
                try:
                    return compile_tables(cls, name, tokendefs)
                finally:
                    kind = "ui" if threading.get_ident() == _main else threading.current_thread().name
                    spent = (time.thread_time() - cpu) * 1000
                    _spans.append([began, time.monotonic(), kind, f"lexer tables {cls.__name__}", spent])

            module.RegexLexerMeta.process_tokendef = noted

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _loop_cpu() -> float:
    return time.clock_gettime(_main_clock)


def _name(handle: asyncio.Handle) -> str:
    callback = handle._callback  # type: ignore[attr-defined]
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        name = f"task {getattr(coro, '__qualname__', type(coro).__name__)}"
        frame = getattr(coro, "cr_frame", None)
        pump = frame.f_locals.get("self") if frame is not None else None
        if name == "task Timer._run_timer":  # which timer: the Markdown flush, the screen's frames ...
            return f"{name} {getattr(pump, 'name', '?')}"
        if name == "task MessagePump._process_messages":  # whose messages
            return f"{name} {type(pump).__name__}"
        return name
    return getattr(callback, "__qualname__", type(callback).__name__)


def _install() -> None:
    import gc

    gc.callbacks.append(_gc_callback)
    sys.meta_path.insert(0, _LexerTables())
    from textual import events
    from textual.app import App
    from textual.drivers.linux_driver import LinuxDriver
    from textual.widgets._text_area import TextArea

    run = asyncio.events.Handle._run

    def traced_run(self: asyncio.Handle) -> None:
        cpu, began = time.thread_time(), time.monotonic()
        try:
            run(self)
        finally:
            spent = time.thread_time() - cpu
            ended = time.monotonic()
            thread = threading.current_thread()
            kind = "ui" if thread.ident == _main else thread.name
            name = _name(self)
            if spent * 1000 >= SLOW_RUN_MS or (ended - began) * 1000 >= SLOW_RUN_MS:
                _spans.append([began, ended, kind, name, spent * 1000])
            bucket = _buckets[(int(time.monotonic()), kind, name)]
            bucket[0] += spent
            bucket[1] += 1
            if _pending and kind == "ui":
                _ran.append((name, spent))
            if _echoing and kind == "ui":
                _ran_after.append((name, spent))

    asyncio.events.Handle._run = traced_run  # type: ignore[method-assign]

    process = LinuxDriver.process_message

    def traced_process(self: LinuxDriver, message: Any) -> None:
        if isinstance(message, events.Key) and (message.character == "Z" or message.key == "backspace"):
            _pending.append({"read": time.monotonic(), "read_cpu": _loop_cpu(), "key": message.key})
            _note("read")
        process(self, message)

    LinuxDriver.process_message = traced_process  # type: ignore[method-assign]

    on_event = App.on_event

    async def traced_on_event(self: App[Any], event: Any) -> None:
        if isinstance(event, events.Key) and _pending and event.key == _pending[0]["key"]:
            probe = _pending.pop(0)
            probe["handled"] = time.monotonic()
            probe["handled_cpu"] = time.thread_time()
            probe["wait_cpu_ms"] = (time.thread_time() - probe.pop("read_cpu")) * 1000
            probe["wait_ms"] = (probe["handled"] - probe["read"]) * 1000
            costly = sorted(_ran, key=lambda item: -item[1])[:KEPT_PER_PROBE]
            probe["ran"] = [[name, cpu * 1000] for name, cpu in costly]
            _ran.clear()
            _probes.append(probe)
            _echoing.append(probe)
        await on_event(self, event)

    App.on_event = traced_on_event  # type: ignore[method-assign]

    edit = TextArea.edit

    def traced_edit(self: TextArea, *args: Any, **kwargs: Any) -> Any:
        for probe in _echoing:
            if "edited" not in probe:
                probe["edited"] = time.monotonic()
                probe["edited_cpu"] = time.thread_time()
                break
        return edit(self, *args, **kwargs)

    TextArea.edit = traced_edit  # type: ignore[method-assign]
    _install_timeline()
    _install_writer()

    display = App._display

    def traced_display(self: App[Any], screen: Any, renderable: Any) -> None:
        began = time.monotonic()
        pacer = getattr(self, "pacer", None)
        pending = getattr(pacer, "echo_pending", None)
        display(self, screen, renderable)
        if renderable is not None and not self._batch_count:
            echo = " (a probe's)" if _echoing and "edited" in _echoing[0] else ""
            rows = getattr(renderable, "rows", None)
            rows = sorted(rows) if rows is not None else sorted({y for y, _, _ in getattr(renderable, "spans", [])})
            focused = self.screen.focused
            state = ""
            if focused is not None:
                queued = sum(1 for m in self.screen._message_queue.values if getattr(m, "widget", None) is focused)
                state = (
                    f" rows {rows[:6]} echo pending {pending} -> {getattr(pacer, 'echo_pending', None)}; focused: "
                    f"repaint {focused._repaint_required} queue {focused._message_queue.qsize()} at screen {queued}"
                )
            _spans.append([began, time.monotonic(), "ui", f"display{echo}{state}", 0.0])
        if renderable is None or self._batch_count or not _echoing or "edited" not in _echoing[0]:
            return
        now, cpu = time.monotonic(), time.thread_time()
        while _echoing and "edited" in _echoing[0]:
            probe = _echoing.pop(0)
            probe["frame"] = now
            probe["to_edit_ms"] = (probe["edited"] - probe["handled"]) * 1000
            probe["to_frame_ms"] = (now - probe["edited"]) * 1000
            probe["to_frame_cpu_ms"] = (cpu - probe.pop("edited_cpu")) * 1000
            probe["after_cpu_ms"] = (cpu - probe.pop("handled_cpu")) * 1000
            costly = sorted(_ran_after, key=lambda item: -item[1])[:KEPT_PER_PROBE]
            probe["ran_after"] = [[name, spent * 1000] for name, spent in costly]
        if not _echoing:
            _ran_after.clear()

    App._display = traced_display  # type: ignore[method-assign]


def _wrap(owner: Any, name: str, what: str, detail: Any = None, after: bool = False) -> None:
    """Note ``what`` (and ``detail(*args)``) each time ``owner.name`` is called (``after``: also when it returns)."""
    original = getattr(owner, name, None)
    if original is None:  # a checkout without it (--baseline)
        return

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _note(what, detail(*args) if detail is not None else "")
        try:
            return original(*args, **kwargs)
        finally:
            if after:
                _note(what + " done")

    setattr(owner, name, wrapped)


def _install_writer() -> None:
    """Textual's output thread: each write it takes off its queue, from the moment ``get`` returned to its flush's
    end, goes into the spans (thread ``textual-output``): how long a frame waited to reach the terminal."""
    from textual.drivers._writer_thread import WriterThread

    def run(self: WriterThread) -> None:
        write, flush = self._file.write, self._file.flush
        get, qsize = self._queue.get, self._queue.qsize
        while True:
            text = get()
            if text is None:
                break
            began = time.monotonic()
            write(text)
            if qsize() == 0:
                flush()
            _spans.append([began, time.monotonic(), "textual-output", f"write {len(text)}", 0.0])
        flush()

    WriterThread.run = run  # type: ignore[method-assign]


def _install_timeline() -> None:
    from textual import events
    from textual.app import App

    from navtui.agent.loop import Agent
    from navtui.app.events import EventRouter
    from navtui.widgets.markdown.view import MarkdownView

    _wrap(EventRouter, "handle", "event", lambda _self, event: type(event).__name__)
    _wrap(MarkdownView, "_apply", "flush", lambda _self, text: len(text), after=True)
    _wrap(MarkdownView, "finish", "finish", after=True)
    from navtui.app.screens.main import MainScreen

    def tick(screen: Any) -> str:
        pacer = getattr(screen.app, "pacer", None)
        return "held" if pacer is not None and getattr(pacer, "key_waiting", False) else ""

    _wrap(MainScreen, "_on_timer_update", "tick", tick)
    _wrap(Agent, "add_message", "add_message", lambda _self, message: type(message).__name__, after=True)
    try:
        from navtui.providers import network
    except ImportError:
        network = None
    if network is not None:
        _wrap(network._Handoff, "put", "put", lambda _self, item: type(item).__name__)
        _wrap(network._Handoff, "end", "end")
        _wrap(network._Handoff, "take", "take")
    display = App._display

    def noted_display(self: App[Any], screen: Any, renderable: Any) -> None:
        display(self, screen, renderable)
        if renderable is not None and not self._batch_count:
            _note("frame")

    App._display = noted_display  # type: ignore[method-assign]
    process = App.on_event

    async def noted_key(self: App[Any], event: Any) -> None:
        if isinstance(event, events.Key):
            _note("key")
        await process(self, event)

    App.on_event = noted_key  # type: ignore[method-assign]


def _dump(_signum: int, _frame: Any) -> None:
    path = os.environ.get("NAVTUI_TRACE")
    if not path:
        return
    buckets = [[second, kind, name, cpu * 1000, count] for (second, kind, name), (cpu, count) in _buckets.items()]
    data = {
        "probes": list(_probes),
        "buckets": buckets,
        "gc": {gen: list(ms) for gen, ms in _gc.items()},
        "timeline": list(_timeline),
        "spans": list(_spans),
    }
    with open(path + ".tmp", "w") as out:
        json.dump(data, out)
    os.replace(path + ".tmp", path)


def _profile() -> None:
    """``NAVTUI_PROFILE=PATH``: the UI thread under cProfile, its stats written to PATH on SIGUSR1 (with the trace)."""
    path = os.environ.get("NAVTUI_PROFILE")
    if not path:
        return
    import cProfile

    profile = cProfile.Profile()
    profile.enable()
    traced = signal.getsignal(signal.SIGUSR1)

    def dump(signum: int, frame: Any) -> None:
        profile.disable()
        profile.dump_stats(path)
        profile.enable()
        if callable(traced):
            traced(signum, frame)

    signal.signal(signal.SIGUSR1, dump)


def main() -> None:
    _install()
    signal.signal(signal.SIGUSR1, _dump)
    _profile()
    sys.argv = ["navtui", *sys.argv[1:]]
    sys.path.remove(os.path.dirname(os.path.abspath(__file__)))  # navtui comes from PYTHONPATH: the run's checkout
    runpy.run_module("navtui", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
