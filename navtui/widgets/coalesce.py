"""Coalesce fast appends into at most one flush per interval, with one-shot timers only (nothing runs when idle)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.message_pump import MessagePump


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
            # Textual timers cannot take 0 (their skip logic divides by the interval).
            delay = max(0.001, self.interval - (time.monotonic() - self._last))
            self._timer = self._owner.set_timer(delay, self._fire, name="coalesce")

    def flush_now(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._fire()

    def _fire(self) -> None:
        self._timer = None
        self._last = time.monotonic()
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._flush(text)
