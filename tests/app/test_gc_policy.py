"""The collector during start-up and while the user types (app/gc_policy.py)."""

from __future__ import annotations

import gc

import pytest

from navtui.app import gc_policy
from tests.app.conftest import AppFactory, main_screen, settle


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
    collections: list[int] = []
    app = make_app()
    async with app.run_test(size=(100, 32)) as pilot:
        await settle(app, pilot)
        turns = main_screen(app).turns
        monkeypatch.setattr(gc_policy, "tick", lambda: collections.append(turns._spinner_index))
        for _ in range(30):  # 3 s of spinner ticks, nobody typing
            turns._spin()
        assert collections == [10, 20, 30]
        collections.clear()
        for _ in range(60):  # 6 s of typing: put off, but never more than 5 s
            app.pacer.key()
            turns._spin()
        assert collections == [80]
        app.pacer.key_at = 0.0  # typing stopped: the one due runs at the next tick
        for _ in range(10):
            turns._spin()
        assert collections == [80, 91]
