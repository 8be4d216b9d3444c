"""Fixtures shared by the provider tests: clean per-process caches."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


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
