"""auto picks the tool protocol the eval measured for a family; an explicit setting always wins."""

from __future__ import annotations

import pytest

from navtui.config.settings import Settings
from navtui.providers.constrained import ConstrainedProvider
from navtui.providers.edits import EditsProvider
from navtui.providers.families import family_default
from navtui.providers.registry import build_provider


@pytest.mark.parametrize(
    ("model", "protocol"),
    [
        ("qwen2.5-coder:0.5b", "edits"),
        ("qwen2.5-coder:1.5b-instruct-q4_K_M", "edits"),
        ("qwen2.5-coder-1.5b", "edits"),  # a llama.cpp alias
        ("Qwen2.5-Coder-0.5B-Instruct-Q4_K_M.gguf", "edits"),
        ("qwen2.5-coder:7b", None),  # not measured: auto as usual
        ("qwen3:1.7b", None),
    ],
)
def test_measured_families(model: str, protocol: str | None) -> None:
    found = family_default(model)
    assert (found.protocol if found else None) == protocol


def test_auto_builds_the_measured_protocol_and_says_why() -> None:
    provider = build_provider(Settings(), model="qwen2.5-coder:1.5b")
    assert isinstance(provider, EditsProvider)
    assert provider.protocol_reason and "edits tool protocol for qwen2.5-coder:1.5b" in provider.protocol_reason


def test_an_explicit_protocol_wins() -> None:
    settings = Settings.model_validate({"providers": {"tool_protocol": "native"}})
    provider = build_provider(settings, model="qwen2.5-coder:1.5b")
    assert not isinstance(provider, ConstrainedProvider | EditsProvider) and provider.protocol_reason is None
