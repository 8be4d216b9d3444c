"""The soak profile: the same invariants over many more crash points and histories. Not run by default.

    pytest -m soak tests/reliability        # minutes, not seconds

The default suite keeps these at CI size (S11: 40 histories; S01: 3 kills with 40 acknowledged entries each).
"""

from __future__ import annotations

import random
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from navtui.session.manager import SessionManager
from tests.fakes.crash import child_env
from tests.reliability.test_session_crashes import APPEND_FOREVER
from tests.reliability.test_session_state_machine import SessionMachine
from tests.session.conftest import spawn
from tests.session.helpers import user

pytestmark = pytest.mark.soak


def test_soak_s11_a_thousand_random_histories_with_crashes() -> None:
    run_state_machine_as_test(
        SessionMachine,
        settings=settings(
            max_examples=1000,
            stateful_step_count=50,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )


def test_soak_s01_two_hundred_kills_at_random_moments_lose_nothing_acknowledged(session: SessionManager) -> None:
    session.append_message(user("root"))
    session.close()
    path: Path = session.path
    acknowledged: list[str] = []
    chooser = random.Random(16)
    for _ in range(200):
        child = spawn(APPEND_FOREVER, str(path), str(chooser.choice([7, 3000, 70000, 400000])), env=child_env())
        assert child.stdout is not None
        for _ in range(chooser.randint(1, 8)):
            line = child.stdout.readline()
            assert line, child.stderr.read() if child.stderr else ""
            acknowledged.append(line.strip())
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate()
        acknowledged.extend(rest.split())
    loaded = SessionManager.open(path)
    assert set(acknowledged) <= {entry.id for entry in loaded.entries}
