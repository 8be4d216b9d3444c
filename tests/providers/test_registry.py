"""build_provider, provider/URL resolution, cached model facts, and lazy imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from navtui.config.settings import Settings
from navtui.core.errors import ConfigError, ProviderError
from navtui.providers.anthropic import AnthropicProvider
from navtui.providers.ollama import OllamaProvider
from navtui.providers.openai import OpenAIProvider
from navtui.providers.registry import build_provider, cached_model_info, model_info
from navtui.providers.textprovider import TextProtocolProvider
from tests.fakes.server import FakeServer
from tests.providers.support import free_port


def test_provider_is_detected_from_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert isinstance(build_provider(Settings(model="qwen3:4b")), OllamaProvider)
    assert isinstance(build_provider(Settings(model="claude-haiku-4-5")), AnthropicProvider)
    assert isinstance(build_provider(Settings(model="gpt-4o")), OpenAIProvider)


def test_explicit_provider_and_base_url_win() -> None:
    settings = Settings(model="smollm2", provider="openai", base_url="http://127.0.0.1:8911")
    provider = build_provider(settings)
    assert isinstance(provider, OpenAIProvider) and provider.base_url == "http://127.0.0.1:8911/v1"
    override = build_provider(settings, base_url="http://127.0.0.1:9/v1")
    assert override.base_url == "http://127.0.0.1:9/v1"


def test_switching_model_redetects_and_drops_the_other_providers_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    settings = Settings(model="qwen3:4b", base_url="http://gpu-box:11434")
    assert build_provider(settings).base_url == "http://gpu-box:11434"
    claude = build_provider(settings, model="claude-haiku-4-5")
    assert isinstance(claude, AnthropicProvider) and claude.base_url == "https://api.anthropic.com"
    other_local = build_provider(settings, model="llama3.2")
    assert other_local.base_url == "http://gpu-box:11434"  # still the configured Ollama


def test_text_protocol_setting_wraps_any_provider() -> None:
    settings = Settings(model="gpt-4o")
    settings.providers.tool_protocol = "text"
    provider = build_provider(settings)
    assert isinstance(provider, TextProtocolProvider) and isinstance(provider.inner, OpenAIProvider)
    assert provider.label == "openai:gpt-4o"


async def test_clear_errors_for_missing_model_key_and_provider() -> None:
    with pytest.raises(ConfigError, match="No model chosen"):
        build_provider(Settings())
    keyless = build_provider(Settings(model="claude-haiku-4-5"))  # built, so the app can open and explain
    with pytest.raises(ProviderError, match="No Anthropic API key"):
        await keyless.model_info()
    with pytest.raises(ConfigError, match="Unknown provider 'bard'"):
        build_provider(Settings(model="x"), provider="bard")


async def test_model_info_is_cached_and_failures_are_not(fake_server: FakeServer) -> None:
    fake_server.set_model("qwen3:4b", context_length=8192, capabilities=["completion", "tools"])
    provider = build_provider(Settings(model="qwen3:4b", base_url=fake_server.url))
    assert cached_model_info(provider) is None
    info = await model_info(provider)
    assert (info.context_window, info.supports_tools) == (8192, True)
    assert cached_model_info(provider) is info

    down = build_provider(Settings(model="qwen3:4b", base_url=f"http://127.0.0.1:{free_port()}"))
    failed = await model_info(down)
    assert failed.context_window is None and "not running" in failed.extra["error"]
    assert cached_model_info(down) is None


def test_importing_the_registry_and_providers_is_cheap() -> None:
    code = (
        "import navtui.providers.registry, navtui.providers.ollama, navtui.providers.anthropic, "
        "navtui.providers.openai, navtui.providers.textprovider\n"
        "import sys; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert not {"anthropic", "httpx_sse", "ollama", "json_repair", "httpx"} & set(out)
