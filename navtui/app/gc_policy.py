"""Keep Python's cyclic garbage collector from stalling the UI.

Measured on the streaming benchmark: a full (generation 2) collection walks every live object (the app, its
widgets, cached strips of the transcript) and took 50-200 ms, far above one frame. ``gc.freeze()`` moves the
objects alive now into a permanent generation the collector skips, so later collections only look at what
is new. It is cheap (it moves lists), so it runs at startup and periodically while the agent works.

Frozen objects are still freed by reference counting; only garbage *cycles* among them wait. ``reclaim`` (an
unfreeze, a full collection, a freeze) lets those go; the app calls it once when it turns idle, after a delay.
"""

from __future__ import annotations

import gc


def freeze_startup() -> None:
    """After the first frame: freeze what the app built (no collection first: with a long session loaded a
    full collection alone costs 50 ms, and startup leaves little garbage behind)."""
    gc.freeze()


def freeze() -> None:
    """Collect what became garbage since the last freeze, then freeze the survivors (every second while busy).

    The collection only walks objects that are not frozen yet, about a second's worth, so it stays short; it
    keeps cyclic garbage (finished timers, tasks, events) from piling up frozen during a long stream.
    """
    gc.collect()
    gc.freeze()


def reclaim() -> None:
    """Collect frozen garbage cycles (e.g. widgets pruned from the transcript) once the app is idle."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
