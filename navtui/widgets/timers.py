"""One-shot timers that fire however late the loop gets to them.

Textual's timers skip the ticks they are late for (``Timer(skip=True)``, which ``set_timer`` makes). Its one-shot
timer reads the clock twice as its task starts; when the thread is preempted between the two reads for longer than
the delay (a 1 ms timer on a loaded machine), the tick is skipped, and with it the only one: the callback never runs
and the timer ends quietly. A coalescer or a catch-up render waiting on such a timer then waits for good (a
streamed answer stopped on screen until its end). ``one_shot`` is ``set_timer`` without the skip: a late timer fires
at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message_pump import MessagePump
from textual.timer import Timer


def one_shot(owner: MessagePump, delay: float, callback: Callable[[], Any], name: str) -> Timer:
    """``owner.set_timer(delay, callback, name=name)`` that runs ``callback`` even when the loop comes late."""
    timer = owner.set_timer(delay, callback, name=name)
    timer._skip = False  # read by its task, which starts at the loop's next turn (pinned: tests/app/test_timers.py)
    return timer
