"""Typing comes first: while keys arrive, streamed output waits for the echo and repaints less often.

Measured from outside (bench/bench_terminal.py, 1,000 tok/s): a frame that carries streamed output costs
~8 ms of the event loop (layout, then Textual repaints every visible line of a scrolled transcript), and the
transcript flushed 50 times a second. A key landing behind one waited for it, and its echo then shared the
next heavy frame. So, while the user types:

* a flush of streamed text that comes due after a key reached the app, before the frame that shows the key,
  waits (a few ms at a time, ``ECHO_WAIT`` at most): the echo goes out in a frame of its own, a few lines;
* streamed text is flushed at most every ``TYPING_INTERVAL`` (20 Hz) until ``TYPING`` seconds after the last
  key, so fewer heavy frames stand between a key and its echo;
* the periodic garbage collection of a working turn runs just after a key's echo, when the next key is
  furthest away (``just_echoed``), or is put off (``gc_policy``, ``TurnRunner``), and never starts while a key
  waits for its echo (``echo_awaited``);
* the frame that shows a key goes out as soon as the key is handled (``MainScreen``), not at the next tick of
  Textual's 60 Hz update timer, which a running stream keeps going: half a period (~8 ms) on average.

A key counts from the moment Textual's input thread reads it (``read()``, called on that thread), not from
when the app's queue gets to it: until the app has handled it (``key()``), a flush or a frame of streamed
output that comes due waits (``key_waiting``), so the key does not queue behind them.

The app calls ``read()`` and ``key()`` for every key and ``frame()`` after every frame; coalescers ask
``delay()``.
Widgets find the app's pacer with ``pacer_of(app)`` (``None`` in an app without one, as in widget tests).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from textual import messages

if TYPE_CHECKING:
    from textual.screen import Screen

TYPING = 0.5  # seconds after the last key during which the user counts as typing
TYPING_INTERVAL = 0.05  # streamed output repaints at most this often while typing
ECHO_WAIT = 0.1  # the longest a flush waits for a key's echo
RETRY = 0.003  # how soon a flush held for an echo looks again
JUST_ECHOED = 0.05  # how long after a key's echo a pause counts as "just after" it


class InputPacer:
    """When the last key arrived and the last frame went out; what a due flush should wait."""

    def __init__(self) -> None:
        self.read_at = 0.0  # the input thread read a key (set on that thread: one float, atomic)
        self.key_at = 0.0  # the app handled a key
        self.frame_at = 0.0
        self.echoed_at = 0.0  # the last frame that carried a key's echo

    def read(self) -> None:
        """A key was read from the terminal (on Textual's input thread)."""
        self.read_at = time.monotonic()

    def key(self) -> None:
        self.key_at = time.monotonic()

    @property
    def key_waiting(self) -> bool:
        """A key was read and the app has not handled it yet (``ECHO_WAIT`` at most: a key the app never sees
        holds nothing back for long)."""
        read_at = self.read_at
        return read_at > self.key_at and time.monotonic() - read_at < ECHO_WAIT

    def frame(self, shows_key: bool = True) -> None:
        """A frame went out. ``shows_key`` False: the last key had not reached the screen when it was made (not
        handled yet, or its widget had not painted it: ``key_on_its_way``), so its echo is still to come and the
        frame does not count as it (``ECHO_WAIT`` at most after the key)."""
        now = time.monotonic()
        if not shows_key and now - max(self.key_at, self.read_at) < ECHO_WAIT:
            return
        if self.echo_pending:
            self.echoed_at = now
        self.frame_at = now

    @property
    def just_echoed(self) -> bool:
        """A key's echo went out moments ago and no key came since: the moment a pause is least likely to make
        a key wait (the next key of a typist is ~100 ms or more away)."""
        return not self.echo_pending and time.monotonic() - self.echoed_at < JUST_ECHOED

    @property
    def echo_pending(self) -> bool:
        """A key arrived after the last frame: the next frame carries its echo."""
        return max(self.key_at, self.read_at) > self.frame_at

    @property
    def echo_awaited(self) -> bool:
        """A key's echo is pending, the key ``ECHO_WAIT`` old at most: a pause now is one the key waits behind."""
        return self.echo_pending and time.monotonic() - max(self.key_at, self.read_at) < ECHO_WAIT

    @property
    def typing(self) -> bool:
        return time.monotonic() - max(self.key_at, self.read_at) < TYPING

    def delay(self, last_flush: float) -> float:
        """Seconds a flush that is due now should wait (0: flush now); ``last_flush`` is when it last ran."""
        now = time.monotonic()
        since_key = now - max(self.key_at, self.read_at)
        if since_key >= TYPING:
            return 0.0
        if self.echo_pending and since_key < ECHO_WAIT:
            return RETRY  # the key's echo is not on screen yet: its frame goes first
        return max(0.0, last_flush + TYPING_INTERVAL - now)


def key_on_its_way(screen: Screen[Any], pacer: InputPacer) -> bool:
    """The last key has not reached ``screen``'s frames yet: read and not handled by the app, or handled and still
    on its way through the focused widget: a key (or the widget's own idle prompt) in its queue, a repaint it asked
    for and has not posted, or its ``Update`` waiting for the screen. A frame made meanwhile (the status line's
    spinner, painted at once because an echo is pending) does not carry the echo: counted as the echo, it let the
    streamed output's flushes and frames go before the key's own frame, 20-40 ms of the slowest echoes while a
    reply streamed (docs/speed.md, "Eighth wave"). Reads Textual's private queues, the message a pump has taken
    off its queue to look at (``_pending_message``) and the refresh flags (pinned by tests/app/test_echo_frames.py).
    """
    if pacer.key_waiting:
        return True
    focused = screen.focused
    if focused is None or not pacer.echo_pending:
        return False
    if focused._repaint_required or focused._layout_required:
        return True
    if focused._pending_message is not None or not focused._message_queue.empty():
        return True
    queued = [screen._pending_message, *screen._message_queue.values]  # Textual's own queue: a deque
    return any(isinstance(message, messages.Update) and message.widget is focused for message in queued)


def pacer_of(app: object) -> InputPacer | None:
    pacer = getattr(app, "pacer", None)
    return pacer if isinstance(pacer, InputPacer) else None
