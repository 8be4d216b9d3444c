"""Coalesce fast appends into at most one flush per interval, with one-shot timers only (nothing runs when idle).

A flush that comes due while the user types may be held back a little (``pacing.InputPacer``, found as the
app's ``pacer`` when it has one), so that typing is echoed first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.message_pump import MessagePump

from navtui.widgets.pacing import pacer_of
from navtui.widgets.timers import one_shot


class Coalescer:
    """Collects text from ``add`` and hands it, joined, to ``flush`` at most every ``interval`` seconds."""

    def __init__(self, owner: MessagePump, flush: Callable[[str], None], interval: float) -> None:
        self._owner = owner
        self._flush = flush
        self.interval = interval
        self._pending: list[str] = []
        self._timer: Any = None
        self._last = 0.0

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def add(self, text: str) -> None:
        if not text:
            return
        self._pending.append(text)
        if self._timer is None:
            self._arm(self.interval - (time.monotonic() - self._last))

    def flush_now(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._fire(paced=False)

    def _arm(self, delay: float) -> None:
        # Textual timers cannot take 0 (their skip logic divides by the interval).
        self._timer = one_shot(self._owner, max(0.001, delay), self._fire, name="coalesce")

    def _fire(self, paced: bool = True) -> None:
        self._timer = None
        if not self._pending:
            return
        pacer = pacer_of(self._owner.app) if paced else None
        if pacer is not None:
            wait = pacer.delay(self._last)
            if wait > 0:
                self._arm(wait)
                return
        self._last = time.monotonic()
        text = "".join(self._pending)
        self._pending.clear()
        self._flush(text)
