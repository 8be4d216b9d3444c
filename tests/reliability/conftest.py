"""The reliability scenarios' invariants, checked after every test here (research-reliability.md section 5.1).

- I2: every chat request the fake server received holds a history a real provider accepts.
- I3: no process the test started (marked ``NAVTUI_TEST_RUN=<id>`` in its environment) outlives it.
- I4: ``secrets_on_disk(home, canary)`` finds a planted canary anywhere under a directory.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.conftest import make_app  # noqa: F401 - the full app on the fake server, for pilot scenarios
from tests.fakes.orphans import MARKER, wait_for_no_orphans
from tests.session.conftest import project, root, session  # noqa: F401 - a session in a temp sessions root
from tests.tools.conftest import ctx, ws  # noqa: F401 - a workspace and a tool context around it

CANARY = "sk-ant-api03-TESTCANARY" + "x" * 24


@pytest.fixture(autouse=True)
def no_orphans(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """I3: the run id every process started by this test carries; any survivor fails the test."""
    run_id = uuid.uuid4().hex
    monkeypatch.setenv(MARKER, run_id)
    yield run_id
    survivors = wait_for_no_orphans(run_id)
    assert not survivors, f"I3: processes outlived the scenario: {survivors}"


@pytest.fixture(autouse=True)
def valid_requests(request: pytest.FixtureRequest) -> Iterator[None]:
    """I2: checked on every chat request of a test that used the fake server."""
    server = request.getfixturevalue("fake_server") if "fake_server" in request.fixturenames else None
    yield
    if server is not None:
        assert server.invalid_requests() == []


def secrets_on_disk(directory: Path, canary: str = CANARY) -> list[Path]:
    """I4: every file under ``directory`` holding ``canary``."""
    needle = canary.encode()
    return [path for path in directory.rglob("*") if path.is_file() and needle in path.read_bytes()]
