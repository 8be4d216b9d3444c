"""Keep Python's cyclic garbage collector from stalling the UI.

Measured on the streaming benchmark: a full (generation 2) collection walks every live object (the app, its
widgets, the runtime, cached strips of the transcript) and took 50-200 ms, far above one frame. ``gc.freeze()``
moves the objects alive now into a permanent generation the collector skips, so later collections only look
at what is new.

* ``hold_until_first_frame()``: no collection runs during start-up (imports, stylesheets, the first screen:
  long-lived objects, nothing to free; the collector ran ~110 times before the first frame, 30-60 ms of a
  ~450 ms start). The first ``settle()`` turns it back on.
* ``settle()`` (after the first frame, once the runtime is built, when a turn starts) freezes what start-up
  or the last idle stretch built, so the first collection of a turn does not walk it.
* ``tick()`` runs every second while the agent works: a collection of the unfrozen objects (about a second's
  worth, so it is short: 4-8 ms at most while a reply streams) and a freeze, so cyclic garbage (finished timers,
  tasks, events) does not pile up. Collecting only the young generations (generation 2's unfrozen part frozen
  unlooked-at) halved its CPU, and left navtui 2 MB larger after each reply (docs/speed.md, "Ninth wave").
* Frozen objects are still freed by reference counting; only cycles among them wait: what a turn built and
  dropped in cycles (each HTTP response and its request body, the turn's tasks and frames, widgets pruned from
  the transcript), frozen by ``tick()`` while it lived. ``reclaim()`` unfreezes and collects everything once a
  turn has ended and the app has been idle for a few seconds. It used to wait until the frozen set had grown by
  half: ten 20,000-token replies then left 2 MB of such garbage in Python's heap, and the next replies took new
  memory instead of reusing it (docs/speed.md, "Ten replies, fourth wave"). A full collection walks every object
  (~130,000; 127-235 ms at load 3-5): once per turn, while idle, put off while the user types.
* ``drop_geometry_caches()`` (idle after a turn, before ``reclaim()``) empties Textual's caches of region
  arithmetic, which a streamed answer's scrolling fills with regions no later frame asks for again.
* ``give_back()`` (idle after a turn, after a session is loaded) returns the heap's free pages to the system.
  What a turn or a load freed stays in the process otherwise (glibc keeps it for later allocations): after
  loading a 5,000-entry session, 3 MB of the 23 MB it added were free pages (bench/bench_memory.py).
* ``single_arena()`` (at start-up, before any thread): one glibc malloc arena for every thread. glibc gives
  each thread that allocates its own arena, and the provider's network thread reads every reply there (its
  buffers and decoded lines); what it freed stayed mapped in that arena. 1.3 MB less after a 20,000-token
  reply, 0.6 MB at idle (docs/speed.md). Python's small objects never used the arenas (pymalloc), and every
  thread allocates holding the GIL, so one arena costs no waiting.
"""

from __future__ import annotations

import gc
from typing import Any

_malloc_trim: Any = None  # libc's malloc_trim once looked up; False where there is none


def hold_until_first_frame() -> None:
    gc.disable()


def settle() -> None:
    gc.freeze()
    gc.enable()


def tick() -> None:
    gc.collect()
    gc.freeze()


M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h)


def single_arena() -> bool:
    """One malloc arena for all threads (glibc's ``mallopt(M_ARENA_MAX, 1)``); False where there is no glibc."""
    import ctypes  # already loaded by core/hardening.py; ctypes.util's find_library would run ldconfig

    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own symbols: libc's, where it is glibc
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(M_ARENA_MAX, 1))


def give_back() -> bool:
    """Return free heap pages to the system (glibc's ``malloc_trim``); False where there is no glibc.

    Found among the process's own symbols, as ``mallopt``: ``ctypes.util.find_library`` ran ``ldconfig -p`` in a
    child process (a fork of the whole app, ~5 ms) the first time."""
    global _malloc_trim
    if _malloc_trim is None:
        import ctypes

        try:
            _malloc_trim = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):
            _malloc_trim = False
        else:
            _malloc_trim.argtypes = [ctypes.c_size_t]
    if not _malloc_trim:
        return False
    _malloc_trim(0)
    return True


def drop_geometry_caches() -> int:
    """Empty Textual's caches of region arithmetic; return how many entries they held.

    ``textual.geometry`` caches the results of ``Region``'s (and ``Offset``'s, ``Size``'s, ``Spacing``'s) methods
    in ``functools.lru_cache``s of 1,024 and 4,096 entries (~26,600 in all), keyed by the regions themselves. A
    streamed answer scrolls the transcript at every frame, so each frame's regions are new: the caches took ~2,000
    entries a 20,000-token reply and kept them until full (docs/speed.md, "Eleventh wave: memory"). Emptied while
    idle after a turn, they refill with what the next frames need (each entry a few integer operations)."""
    from textual import geometry

    dropped = 0
    for cached in _geometry_caches(geometry):
        dropped += cached.cache_info().currsize
        cached.cache_clear()
    return dropped


def _geometry_caches(geometry: Any) -> list[Any]:
    classes = (geometry.Region, geometry.Offset, geometry.Size, geometry.Spacing)
    return [method for cls in classes for method in vars(cls).values() if hasattr(method, "cache_clear")]


def reclaim() -> None:
    """A full collection, the frozen objects included; what survives is frozen again."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
