"""Run navtui with its event loop traced: what a key waited for, and where each thread's CPU went.

``bench_terminal.py --trace`` starts navtui (this checkout's or ``--baseline``'s: whichever ``navtui`` is on the
path) through this wrapper. It notes:

* for each probe key ("Z" or its erasure): the time Textual's input thread read it and the UI loop thread's CPU
  time then, and the time the app's ``on_event`` got it with the loop's CPU time then. CPU the loop burned in
  between does not depend on how often the scheduler ran the process, so it says what the key waited *behind*
  even on a loaded machine; the callbacks that ran in between are kept, the costliest first;
* every asyncio callback's CPU time, per thread (the UI loop, and navtui's network thread where there is one),
  in one-second buckets of ``time.monotonic()`` (shared with the bench), so the bench sums the streaming window.

On SIGUSR1 it writes what it has to ``$NAVTUI_TRACE`` (JSON). Bench tooling: it wraps library internals
(Textual's driver, asyncio's ``Handle._run``) in this process only.
"""

from __future__ import annotations

import asyncio
import json
import os
import runpy
import signal
import sys
import threading
import time
from collections import defaultdict
from typing import Any

PROBE_KEYS = ("Z", "backspace")
KEPT_PER_PROBE = 5  # the costliest callbacks of a probe's wait

_main = threading.main_thread().ident or 0
_main_clock = time.pthread_getcpuclockid(_main)
_buckets: dict[tuple[int, str, str], list[float]] = defaultdict(lambda: [0.0, 0])
_probes: list[dict[str, Any]] = []
_pending: list[dict[str, Any]] = []  # read, not handled yet (the input thread appends, the loop pops)
_ran: list[tuple[str, float]] = []  # callbacks on the UI loop while a probe waits


def _loop_cpu() -> float:
    return time.clock_gettime(_main_clock)


def _name(handle: asyncio.Handle) -> str:
    callback = handle._callback  # type: ignore[attr-defined]
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, asyncio.Task):
        coro = owner.get_coro()
        return f"task {getattr(coro, '__qualname__', type(coro).__name__)}"
    return getattr(callback, "__qualname__", type(callback).__name__)


def _install() -> None:
    from textual import events
    from textual.app import App
    from textual.drivers.linux_driver import LinuxDriver

    run = asyncio.events.Handle._run

    def traced_run(self: asyncio.Handle) -> None:
        cpu = time.thread_time()
        try:
            run(self)
        finally:
            spent = time.thread_time() - cpu
            thread = threading.current_thread()
            kind = "ui" if thread.ident == _main else thread.name
            name = _name(self)
            bucket = _buckets[(int(time.monotonic()), kind, name)]
            bucket[0] += spent
            bucket[1] += 1
            if _pending and kind == "ui":
                _ran.append((name, spent))

    asyncio.events.Handle._run = traced_run  # type: ignore[method-assign]

    process = LinuxDriver.process_message

    def traced_process(self: LinuxDriver, message: Any) -> None:
        if isinstance(message, events.Key) and (message.character == "Z" or message.key == "backspace"):
            _pending.append({"read": time.monotonic(), "read_cpu": _loop_cpu(), "key": message.key})
        process(self, message)

    LinuxDriver.process_message = traced_process  # type: ignore[method-assign]

    on_event = App.on_event

    async def traced_on_event(self: App[Any], event: Any) -> None:
        if isinstance(event, events.Key) and _pending and event.key == _pending[0]["key"]:
            probe = _pending.pop(0)
            probe["handled"] = time.monotonic()
            probe["wait_cpu_ms"] = (time.thread_time() - probe.pop("read_cpu")) * 1000
            probe["wait_ms"] = (probe["handled"] - probe["read"]) * 1000
            costly = sorted(_ran, key=lambda item: -item[1])[:KEPT_PER_PROBE]
            probe["ran"] = [[name, cpu * 1000] for name, cpu in costly]
            _ran.clear()
            _probes.append(probe)
        await on_event(self, event)

    App.on_event = traced_on_event  # type: ignore[method-assign]


def _dump(_signum: int, _frame: Any) -> None:
    path = os.environ.get("NAVTUI_TRACE")
    if not path:
        return
    buckets = [[second, kind, name, cpu * 1000, count] for (second, kind, name), (cpu, count) in _buckets.items()]
    data = {"probes": list(_probes), "buckets": buckets}
    with open(path + ".tmp", "w") as out:
        json.dump(data, out)
    os.replace(path + ".tmp", path)


def main() -> None:
    _install()
    signal.signal(signal.SIGUSR1, _dump)
    sys.argv = ["navtui", *sys.argv[1:]]
    sys.path.remove(os.path.dirname(os.path.abspath(__file__)))  # navtui comes from PYTHONPATH: the run's checkout
    runpy.run_module("navtui", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
