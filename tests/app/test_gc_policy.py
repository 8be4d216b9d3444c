"""The collector during start-up and while the user types (app/gc_policy.py)."""

from __future__ import annotations

import contextlib
import gc
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from navtui.app import gc_policy
from navtui.app.turns import TurnRunner
from navtui.widgets import pacing
from tests.app.conftest import AppFactory, main_screen, settle

ROOT = Path(__file__).resolve().parents[2]


@contextlib.asynccontextmanager
async def collections_counted(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Any, TurnRunner, list[int]]]:
    """A settled app, its turn runner, and the spinner tick of each collection a second it starts (none runs)."""
    collections: list[int] = []
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        turns = main_screen(app).turns
        monkeypatch.setattr(gc_policy, "tick", lambda: collections.append(turns._spinner_index))
        yield app, turns, collections


def test_start_up_runs_without_the_collector_until_the_first_settle() -> None:
    assert gc.isenabled()
    try:
        gc_policy.hold_until_first_frame()
        assert not gc.isenabled()
        gc_policy.settle()
        assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.enable()
        gc.unfreeze()


async def test_a_turn_collects_once_a_second_but_not_while_the_user_types(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with collections_counted(make_app, monkeypatch) as (app, turns, collections):
        for _ in range(30):  # 3 s of spinner ticks, nobody typing
            turns._spin()
        assert collections == [10, 20, 30]
        collections.clear()
        for _ in range(60):  # 6 s of typing: put off, but never more than 5 s
            app.pacer.key()
            app.pacer.frame()  # its echo went out
            app.pacer.echoed_at -= pacing.JUST_ECHOED  # a while ago
            turns._spin()
        assert collections == [80]
        app.pacer.key_at = 0.0  # typing stopped: the one due runs at the next tick
        for _ in range(10):
            turns._spin()
        assert collections == [80, 91]


async def test_while_the_user_types_the_collection_runs_just_after_an_echo(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Put off until typing stopped, a collection grew with what streaming built meanwhile (~100 ms after 5 s at
    # 1,000 tok/s): a stall a key landed behind. Right after an echo, the next key is furthest away.
    async with collections_counted(make_app, monkeypatch) as (app, turns, collections):
        for index in range(1, 31):  # 3 s of typing, a key every 0.3 s
            if index % 3 == 1:
                app.pacer.key()
            elif index % 3 == 2:
                app.pacer.frame()  # its echo went out
            else:
                app.pacer.echoed_at -= pacing.JUST_ECHOED  # a while ago
            turns._spin()
        assert collections == [11, 23]  # the first spinner tick just after an echo, once one is due


async def test_a_collection_never_starts_while_a_key_waits_for_its_echo(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Even the one put off for 5 s waits: a collection started with a key on its way is one the key waits behind.
    async with collections_counted(make_app, monkeypatch) as (app, turns, collections):
        for index in range(1, 61):  # 6 s of typing, each key echoed a while ago ...
            app.pacer.key()
            app.pacer.frame()
            app.pacer.echoed_at -= pacing.JUST_ECHOED
            if index >= 50:
                app.pacer.read()  # ... and from the 5 s mark on, a key read at each tick, its echo not out yet
            turns._spin()
        assert collections == []
        app.pacer.key()
        app.pacer.frame()  # the key's echo went out
        turns._spin()
        assert collections == [61]


def test_reclaim_frees_cycles_that_were_frozen_while_they_lived() -> None:
    import weakref

    class Node:
        pass

    try:
        node = Node()
        node.self = node  # type: ignore[attr-defined]  # a cycle: only the collector frees it
        alive = weakref.ref(node)
        gc_policy.tick()  # frozen while in use (a turn's response, its frames)
        del node
        gc.collect()
        assert alive() is not None  # frozen: the collections of later turns skip it
        gc_policy.reclaim()
        assert alive() is None and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


async def test_after_a_turn_the_full_collection_waits_until_the_user_stops_typing(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    reclaimed: list[bool] = []
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        turns = main_screen(app).turns
        monkeypatch.setattr(gc_policy, "reclaim", lambda: reclaimed.append(True))
        app.pacer.key()
        turns._reclaim()  # the turn ended a while ago, but a key was just typed
        assert reclaimed == [] and turns._reclaim_timer is not None
        app.pacer.key_at = 0.0
        turns._reclaim()
        assert reclaimed == [True]


ARENAS = """
import ctypes, sys, threading
from navtui.app import gc_policy
from navtui.app.turns import TurnRunner
from navtui.widgets import pacing
if sys.argv[1] == "single":
    assert gc_policy.single_arena()
kept = []
def work():
    kept.extend(bytearray(4000) for _ in range(100))  # past pymalloc's 512 bytes: glibc's malloc, on this thread
threads = [threading.Thread(target=work) for _ in range(3)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per arena, on stderr
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc arenas")
def test_threads_share_one_malloc_arena_after_single_arena() -> None:
    # The network thread reads every reply; in an arena of its own, what it freed stayed mapped (docs/speed.md).
    def arenas(mode: str) -> set[str]:
        out = subprocess.run(
            [sys.executable, "-c", ARENAS, mode], capture_output=True, text=True, check=True, cwd=ROOT, timeout=60
        )
        return {line.rstrip(":") for line in out.stderr.splitlines() if line.startswith("Arena ")}

    assert len(arenas("default")) > 1  # each thread that allocates gets an arena of its own
    assert arenas("single") == {"Arena 0"}


async def test_the_heap_is_trimmed_once_after_a_turn_and_never_while_one_runs(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # malloc_trim walks the heap (a syscall per free page range): after the turn's full collection, while idle.
    trims: list[bool] = []
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        turns = main_screen(app).turns
        monkeypatch.setattr(gc_policy, "give_back", lambda: trims.append(turns.running) or True)
        turns.set_working(False)  # a turn ended: the trim is due RECLAIM_DELAY later
        assert turns._reclaim_timer is not None
        turns.set_working(True)  # the next turn started first: not while it streams
        assert turns._reclaim_timer is None
        turns.running = True
        turns._reclaim()
        assert trims == []
        turns.running = False
        turns._reclaim()
        assert trims == [False] and turns._reclaim_timer is None  # once, and nothing more scheduled
        turns.set_working(False)


OWN_SYMBOLS = """
import sys
from navtui.app import gc_policy
from navtui.app.turns import TurnRunner
from navtui.checkpoints.watch import DirWatch
assert gc_policy.single_arena() and gc_policy.give_back() and DirWatch().active
print("ctypes.util" in sys.modules)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim and inotify")
def test_malloc_trim_and_inotify_are_found_without_running_ldconfig() -> None:
    # ctypes.util.find_library("c") ran "ldconfig -p" in a child process: a fork of the whole app (~5 ms) at the
    # first trim and at each reset of the checkpoints' watch. The process's own symbols hold both.
    out = subprocess.run(
        [sys.executable, "-c", OWN_SYMBOLS], capture_output=True, text=True, check=True, cwd=ROOT, timeout=60
    )
    assert out.stdout.split() == ["False"]


def test_textual_caches_its_region_arithmetic_where_drop_geometry_caches_empties_it() -> None:
    # Pins Textual's state that drop_geometry_caches relies on: the methods a frame's layout and clipping call
    # (intersection, translate, overlaps, shrink, grow, union) are functools caches on the classes. Should a
    # Textual release stop caching them, this fails, and the drop (then a no-op) can go.
    from textual import geometry
    from textual.geometry import Region

    cached = {method.__wrapped__.__qualname__ for method in gc_policy._geometry_caches(geometry)}
    assert {"Region.intersection", "Region.translate", "Region.overlaps", "Region.shrink", "Region.union"} <= cached
    Region(0, 0, 10, 10).intersection(Region(5, 5, 10, 10))
    assert Region.intersection.cache_info().currsize > 0
    assert gc_policy.drop_geometry_caches() > 0
    assert sum(method.cache_info().currsize for method in gc_policy._geometry_caches(geometry)) == 0


async def test_after_a_streamed_answer_the_idle_collection_empties_the_region_caches_and_the_screen_is_unchanged(
    make_app: AppFactory, fake_server: Any
) -> None:
    # A long answer scrolls the transcript at each frame: the caches of region arithmetic fill with regions no
    # later frame asks for (~2,000 entries a 20,000-token reply, kept until full). The idle collection after the
    # turn empties them; what is on screen, and scrolling back, are drawn as before.
    from textual import geometry

    from tests.app.conftest import screen_text, transcript, wait_for
    from tests.fakes import Text

    answer = "".join(f"paragraph {n} of the answer, with `code` and **bold** words.\n\n" for n in range(120))
    fake_server.script(*(Text(answer[start : start + 200]) for start in range(0, len(answer), 200)))
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        main_screen(app).submit("write it")
        await settle(app, pilot)
        caches = gc_policy._geometry_caches(geometry)
        assert sum(method.cache_info().currsize for method in caches) > 50  # the frames' regions
        before = screen_text(app)
        turns = main_screen(app).turns
        assert turns._reclaim_timer is not None
        turns._reclaim()  # (what the timer runs RECLAIM_DELAY after the turn)
        assert sum(method.cache_info().currsize for method in caches) == 0
        await pilot.pause()
        assert screen_text(app) == before and "paragraph 119 of the answer" in before
        view = transcript(app)
        view.scroll_home(animate=False, immediate=True)
        await wait_for(pilot, lambda: "paragraph 0 of the answer" in screen_text(app))
