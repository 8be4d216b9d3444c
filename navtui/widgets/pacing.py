"""Typing comes first: while keys arrive, streamed output waits for the echo and repaints less often.

Measured from outside (bench/bench_terminal.py, 1,000 tok/s): a frame that carries streamed output costs
~8 ms of the event loop (layout, then Textual repaints every visible line of a scrolled transcript), and the
transcript flushed 50 times a second. A key landing behind one waited for it, and its echo then shared the
next heavy frame. So, while the user types:

* a flush of streamed text that comes due after a key reached the app, before the frame that shows the key,
  waits (a few ms at a time, ``ECHO_WAIT`` at most): the echo goes out in a frame of its own, a few lines;
* streamed text is flushed at most every ``TYPING_INTERVAL`` (20 Hz) until ``TYPING`` seconds after the last
  key, so fewer heavy frames stand between a key and its echo;
* the periodic garbage collection of a working turn is skipped (``gc_policy``);
* the frame that shows a key goes out as soon as the key is handled (``MainScreen``), not at the next tick of
  Textual's 60 Hz update timer, which a running stream keeps going: half a period (~8 ms) on average.

The app calls ``key()`` for every key event and ``frame()`` after every frame; coalescers ask ``delay()``.
Widgets find the app's pacer with ``pacer_of(app)`` (``None`` in an app without one, as in widget tests).
"""

from __future__ import annotations

import time

TYPING = 0.5  # seconds after the last key during which the user counts as typing
TYPING_INTERVAL = 0.05  # streamed output repaints at most this often while typing
ECHO_WAIT = 0.1  # the longest a flush waits for a key's echo
RETRY = 0.003  # how soon a flush held for an echo looks again


class InputPacer:
    """When the last key arrived and the last frame went out; what a due flush should wait."""

    def __init__(self) -> None:
        self.key_at = 0.0
        self.frame_at = 0.0

    def key(self) -> None:
        self.key_at = time.monotonic()

    def frame(self) -> None:
        self.frame_at = time.monotonic()

    @property
    def echo_pending(self) -> bool:
        """A key arrived after the last frame: the next frame carries its echo."""
        return self.key_at > self.frame_at

    @property
    def typing(self) -> bool:
        return time.monotonic() - self.key_at < TYPING

    def delay(self, last_flush: float) -> float:
        """Seconds a flush that is due now should wait (0: flush now); ``last_flush`` is when it last ran."""
        now = time.monotonic()
        since_key = now - self.key_at
        if since_key >= TYPING:
            return 0.0
        if self.echo_pending and since_key < ECHO_WAIT:
            return RETRY  # the key's echo is not on screen yet: its frame goes first
        return max(0.0, last_flush + TYPING_INTERVAL - now)


def pacer_of(app: object) -> InputPacer | None:
    pacer = getattr(app, "pacer", None)
    return pacer if isinstance(pacer, InputPacer) else None
