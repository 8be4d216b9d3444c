"""Which provider serves a model name, and where it listens by default (the nav plan's rules).

Settings ask it where a repository's model would go (``config/settings.py``), the providers where they listen.

``claude*`` is Anthropic; an Ollama tag (``name:tag``), a known open-weights family or anything unrecognised is
Ollama; OpenAI's own names (``gpt-4o``, ``o3``...) and ``org/model`` ids (OpenRouter, vLLM) are OpenAI-compatible.
"""

from __future__ import annotations

import os
import re
from typing import Literal, Protocol

from navtui.core.errors import ConfigError

ProviderName = Literal["ollama", "anthropic", "openai"]  # defined once: settings' ``provider`` field uses it too


class Configured(Protocol):
    """What the rules below read of the settings (``Settings`` is one)."""

    @property
    def model(self) -> str | None: ...

    @property
    def provider(self) -> str | None: ...

    @property
    def base_url(self) -> str | None: ...


DEFAULT_URLS: dict[str, str] = {
    "ollama": "http://127.0.0.1:11434",
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
}
_OPENAI = re.compile(r"^(gpt-|chatgpt|o[1-9](-|$)|davinci|babbage|text-|omni-|codex-)")


def detect_provider(model: str) -> ProviderName:
    name = model.strip().lower()
    if name.startswith("claude"):
        return "anthropic"
    if name.startswith(("hf.co/", "huggingface.co/")) or ":" in name.rsplit("/", 1)[-1]:
        return "ollama"  # Ollama tags: qwen3:4b, gpt-oss:20b, hf.co/org/repo:Q4_K_M
    if "/" in name:
        return "openai"  # org/model: OpenRouter, vLLM, LM Studio
    if _OPENAI.match(name):
        return "openai"
    return "ollama"  # local families (llama, qwen, gemma...) and anything else the user may have pulled


def detect_base_url(provider: str) -> str:
    """The endpoint for ``provider`` from the environment (``OLLAMA_HOST``...), else its default."""
    if provider == "ollama":
        host = os.environ.get("OLLAMA_HOST", "").strip()
        return normalise_ollama_host(host) if host else DEFAULT_URLS["ollama"]
    if provider == "anthropic":
        return os.environ.get("ANTHROPIC_BASE_URL", "").strip().rstrip("/") or DEFAULT_URLS["anthropic"]
    if provider == "openai":
        return os.environ.get("OPENAI_BASE_URL", "").strip().rstrip("/") or DEFAULT_URLS["openai"]
    raise ValueError(f"unknown provider {provider!r}")


def normalise_ollama_host(host: str) -> str:
    """``OLLAMA_HOST`` read the way the ``ollama`` package reads it (``1.2.3.4``, ``:8080``, ``https://h``)."""
    scheme, sep, rest = host.partition("://")
    default_port = {"http": 80, "https": 443}.get(scheme, 11434) if sep else 11434
    if not sep:
        scheme, rest = "http", host
    hostport, slash, path = rest.rstrip("/").partition("/")
    has_port = "]:" in hostport if hostport.startswith("[") else ":" in hostport
    if not has_port:
        hostport = f"{hostport}:{default_port}"
    if hostport.startswith(":"):
        hostport = "127.0.0.1" + hostport
    return f"{scheme}://{hostport}{slash}{path}"


PROVIDERS: tuple[ProviderName, ...] = ("ollama", "anthropic", "openai")


def resolve_provider(settings: Configured, model: str, provider: str | None = None) -> ProviderName:
    """Explicit choice, else ``settings.provider`` when ``model`` is the configured model, else detection.

    So ``-p openai -m smollm`` stays OpenAI-compatible, while ``/model claude-...`` later finds Anthropic.
    """
    choice = provider or (settings.provider if settings.model in (None, model) else None)
    if choice is None:
        return detect_provider(model)
    if choice not in PROVIDERS:
        raise ConfigError(f"Unknown provider '{choice}'", hint="use one of: " + ", ".join(PROVIDERS))
    return choice


def resolve_base_url(settings: Configured, name: ProviderName, base_url: str | None = None) -> str:
    """Explicit URL, else ``settings.base_url`` when it belongs to this provider, else the provider's default."""
    if base_url:
        return base_url
    if settings.base_url and settings.model and resolve_provider(settings, settings.model) == name:
        return settings.base_url
    if settings.base_url and not settings.model and settings.provider in (None, name):
        return settings.base_url
    return detect_base_url(name)
