"""Fixtures shared by the provider tests: clean per-process caches, and every provider closed after its test."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio

from navtui.providers.base import Provider


@pytest.fixture(autouse=True)
def _fresh_caches() -> Iterator[None]:
    """Model facts are cached per process; tests must not see each other's."""
    from navtui.providers import anthropic, openai, openai_info, registry
    from navtui.providers.ollama_info import clear_model_cache

    clear_model_cache()
    registry.forget_model_info()
    anthropic._INFO_CACHE.clear()
    openai_info._CACHE.clear()
    openai._NO_STREAM_OPTIONS.clear()
    yield


@pytest_asyncio.fixture(autouse=True)
async def _close_providers(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """Close every provider a test made, as the app does on exit: an open keep-alive socket left to the garbage
    collector is a ResourceWarning (an error in this suite)."""
    made: list[Provider] = []
    original = Provider.__init__

    def recording_init(self: Provider, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Provider, "__init__", recording_init)
    yield
    for provider in made:
        await provider.aclose()
