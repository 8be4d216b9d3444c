"""The soak profile: the same invariants over many more crash points and histories. Not run by default.

    pytest -m soak tests/reliability        # minutes, not seconds

The default suite keeps these at CI size (S11: 40 histories; S01: 3 kills with 40 acknowledged entries each).
"""

from __future__ import annotations

import random

import pytest

from navtui.session.manager import SessionManager
from tests.reliability.test_session_crashes import kill_a_writer
from tests.reliability.test_session_state_machine import run_histories
from tests.session.helpers import user

pytestmark = pytest.mark.soak


def test_soak_s11_a_thousand_random_histories_with_crashes() -> None:
    run_histories(1000, 50)


def test_soak_s01_two_hundred_kills_at_random_moments_lose_nothing_acknowledged(session: SessionManager) -> None:
    session.append_message(user("root"))
    session.close()
    chooser = random.Random(16)
    acknowledged: list[str] = []
    for _ in range(200):
        acknowledged.extend(
            kill_a_writer(session.path, chooser.choice([7, 3000, 70000, 400000]), chooser.randint(1, 8))
        )
    loaded = SessionManager.open(session.path)
    assert set(acknowledged) <= {entry.id for entry in loaded.entries}
