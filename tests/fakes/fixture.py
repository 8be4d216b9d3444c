"""The `fake_server` pytest fixture: import it into a conftest (`from tests.fakes.fixture import fake_server`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import FakeServer


@pytest.fixture
def fake_server() -> Iterator[FakeServer]:
    """A started `FakeServer`, stopped after the test; fails the test if the fake itself crashed."""
    server = FakeServer().start()
    try:
        yield server
    finally:
        server.stop()
    if server.errors:
        pytest.fail("fake server crashed:\n" + "\n".join(server.errors), pytrace=False)
