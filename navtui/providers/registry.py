"""The one factory for providers, and the cached model facts the agent and the status line read.

Provider modules are imported here lazily, so importing the registry costs nothing at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from navtui.config.endpoints import PROVIDERS, resolve_base_url, resolve_provider
from navtui.core.errors import ConfigError, ProviderError
from navtui.providers.base import ModelInfo, Provider

if TYPE_CHECKING:
    from navtui.config.settings import Settings

__all__ = ["PROVIDERS", "build_provider", "resolve_base_url", "resolve_provider"]

_INFO: dict[tuple[str, str, str], ModelInfo] = {}


def build_provider(
    settings: Settings, *, model: str | None = None, provider: str | None = None, base_url: str | None = None
) -> Provider:
    """A provider for ``model`` (default ``settings.model``). Raises ConfigError / ProviderError (missing key)."""
    model = model or settings.model
    if not model:
        raise ConfigError(
            "No model chosen",
            hint='pass -m MODEL (e.g. -m qwen3:4b) or set "model" in ~/.navtui/settings.json',
        )
    name = resolve_provider(settings, model, provider)
    url = resolve_base_url(settings, name, base_url)
    options = settings.providers
    built: Provider
    if name == "ollama":
        from navtui.providers.ollama import OllamaProvider

        built = OllamaProvider(model, url, options)
    elif name == "anthropic":
        from navtui.providers.anthropic import AnthropicProvider

        built = AnthropicProvider(model, url, options)
    else:
        from navtui.providers.openai import OpenAIProvider

        built = OpenAIProvider(model, url, options)
    protocol = options.tool_protocol
    if protocol == "auto" and name != "anthropic":
        from navtui.providers.families import family_default

        measured = family_default(model)
        if measured is not None:
            protocol = measured.protocol
            built.protocol_reason = f"{measured.protocol} tool protocol for {model}: {measured.reason}"
    if protocol == "text":
        from navtui.providers.textprovider import TextProtocolProvider

        built = TextProtocolProvider(built)
    elif protocol == "constrained":
        if name == "anthropic":
            raise ConfigError(
                "providers.tool_protocol 'constrained' needs an Ollama or OpenAI-compatible server",
                hint="use auto or native with Anthropic",
            )
        from navtui.providers.constrained import ConstrainedProvider

        built = ConstrainedProvider(built)
    elif protocol == "edits":
        from navtui.providers.edits import EditsProvider

        built = EditsProvider(built)
    return built


def _key(provider: Provider) -> tuple[str, str, str]:
    return (provider.name, provider.base_url or "", provider.model)


async def model_info(provider: Provider) -> ModelInfo:
    """The model's context window and capabilities, asked once per (provider, endpoint, model).

    A failure is not cached and not raised: the answer then has ``context_window=None`` and the reason in
    ``extra["error"]`` (the status line shows "?" rather than the agent stopping).
    """
    key = _key(provider)
    cached = _INFO.get(key)
    if cached is not None:
        return cached
    try:
        info = await provider.model_info()
    except ProviderError as exc:
        return ModelInfo(name=provider.model, provider=provider.name, extra={"error": str(exc)})
    _INFO[key] = info
    return info


def cached_model_info(provider: Provider) -> ModelInfo | None:
    """What ``model_info`` found earlier, without any I/O (for synchronous UI code)."""
    return _INFO.get(_key(provider))


def forget_model_info() -> None:
    _INFO.clear()
