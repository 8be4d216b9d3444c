"""What Ollama says about a model (``/api/show``): trained context length and capabilities, cached per model.

``num_ctx`` is the trained length capped by ``providers.num_ctx_cap``; the cap keeps a 128k-token model from
allocating a KV cache the machine cannot hold.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from navtui.config.settings import ProviderSettings
from navtui.core.errors import ProviderError
from navtui.providers.base import ModelInfo

if TYPE_CHECKING:
    import httpx

UNKNOWN_CONTEXT = 8192  # when /api/show reports no length: safe for any model Ollama serves today
_PARAM_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)", re.MULTILINE)


@dataclass
class ModelFacts:
    trained_context: int | None
    num_ctx: int
    capabilities: list[str] | None  # None: the server did not say (older Ollama)
    info: ModelInfo


_CACHE: dict[tuple[str, str, int], ModelFacts] = {}


def clear_model_cache() -> None:
    _CACHE.clear()


def connection_error(url: str, exc: Exception) -> ProviderError:
    return ProviderError(
        f"Ollama is not running at {url} ({type(exc).__name__})",
        kind="connection",
        hint="start it with `ollama serve`, or point -b/--base-url or OLLAMA_HOST at it",
    )


def openai_path_error(base_url: str) -> ProviderError | None:
    """``-p ollama -b http://host:11434/v1``: the OpenAI-compatible path given to the native provider, whose
    ``/api/...`` is at the server's root. Said as that (Ollama's 404 read as a model not pulled sent users to
    ``ollama pull`` a model they had); None for any other URL."""
    root = base_url.rstrip("/")
    head, _, last = root.rpartition("/")
    if "://" not in head or not (last[:1] == "v" and last[1:].isdigit()):
        return None
    return ProviderError(
        f"{base_url} is Ollama's OpenAI-compatible path ({last}), but -p ollama speaks Ollama's own API, which is "
        "at the server's root",
        status=404,
        hint=f"drop /{last}: -b {head}, or keep the URL with -p openai",
    )


async def fetch_facts(http: httpx.AsyncClient, base_url: str, model: str, settings: ProviderSettings) -> ModelFacts:
    """The model's facts, from the cache or ``/api/show``. Raises ProviderError (not running, not pulled)."""
    import httpx

    key = (base_url, model, settings.num_ctx_cap)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    try:
        async with asyncio.timeout(settings.request_timeout):
            response = await http.post("/api/show", json={"model": model})
    except TimeoutError:
        raise ProviderError(
            f"Ollama at {base_url} did not answer /api/show within {settings.request_timeout:.0f} s", kind="timeout"
        ) from None
    except httpx.HTTPError as exc:
        raise connection_error(base_url, exc) from None
    if response.status_code == 404:
        raise openai_path_error(base_url) or ProviderError(
            f"Model '{model}' is not available on Ollama at {base_url}",
            kind="not_found",
            status=404,
            hint=pull_hint(model),
        )
    if response.status_code >= 400:
        return _facts(model, {}, settings)  # not fatal: chat may still work; not cached
    try:
        data = response.json()
    except ValueError:
        data = {}
    facts = _facts(model, data if isinstance(data, dict) else {}, settings)
    _CACHE[key] = facts
    return facts


def pull_hint(model: str) -> str:
    """The way to a missing model, in navtui's own words (the app shows it; ``--print`` says ``ollama pull``)."""
    return f"/models pull {model} downloads it"


def _facts(model: str, show: dict[str, Any], settings: ProviderSettings) -> ModelFacts:
    model_info: dict[str, Any] = show.get("model_info") or {}
    trained = _trained_context(model_info)
    modelfile_ctx = _PARAM_NUM_CTX.search(show.get("parameters") or "")
    fallback = int(modelfile_ctx.group(1)) if modelfile_ctx else UNKNOWN_CONTEXT
    num_ctx = min(trained or fallback, settings.num_ctx_cap)
    raw_caps = show.get("capabilities")
    capabilities = [str(c) for c in raw_caps] if isinstance(raw_caps, list) else None
    caps = set(capabilities or [])
    details = show.get("details") or {}
    info = ModelInfo(
        name=model,
        provider="ollama",
        context_window=num_ctx,
        supports_tools=capabilities is None or "tools" in caps,
        supports_thinking="thinking" in caps,
        supports_vision="vision" in caps,
        extra={
            "trained_context": trained,
            "num_ctx": num_ctx,
            "capabilities": capabilities,
            "family": details.get("family"),
            "parameter_size": details.get("parameter_size"),
            "quantization": details.get("quantization_level"),
        },
    )
    return ModelFacts(trained, num_ctx, capabilities, info)


def _trained_context(model_info: dict[str, Any]) -> int | None:
    arch = model_info.get("general.architecture")
    value = model_info.get(f"{arch}.context_length") if arch else None
    if value is None:  # some GGUFs name the architecture differently from the key prefix
        value = next((v for k, v in model_info.items() if k.endswith(".context_length")), None)
    try:
        return int(value) if value else None
    except (TypeError, ValueError):
        return None
