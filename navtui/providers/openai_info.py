"""What an OpenAI-compatible server says about a model: its window, whether its template takes tools, tokenizing.

Each server family says it in its own place, so navtui asks them in turn and keeps the first answer:

- the ``providers.context_window`` setting (the user knows best);
- the ``/v1/models`` entry: vLLM ``max_model_len``, llama.cpp ``meta.n_ctx``, OpenRouter ``context_length``...;
- llama.cpp ``/props``: ``default_generation_settings.n_ctx``, and ``chat_template_caps.supports_tools``
  (a template that ignores tools makes native tools silently useless); llama.cpp also has ``/tokenize``;
- LM Studio ``/api/v0/models/<model>``: ``loaded_context_length``, else ``max_context_length``.

The answer is cached per endpoint and model for the process.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from navtui.providers.base import ModelInfo

if TYPE_CHECKING:
    import httpx

_WINDOW_FIELDS = ("max_model_len", "context_length", "context_window", "max_context_length", "n_ctx")
_CACHE: dict[tuple[str, str], ModelInfo] = {}
PROBE_TIMEOUT = 5.0


def server_root(base_url: str) -> str:
    """``http://host:8080/v1`` -> ``http://host:8080``: llama.cpp and LM Studio keep their own API at the root."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def window_of(entry: dict[str, Any]) -> int | None:
    for source in (entry, entry.get("meta") or {}, entry.get("top_provider") or {}):
        for key in _WINDOW_FIELDS:
            value = source.get(key) if isinstance(source, dict) else None
            if isinstance(value, int) and value > 0:
                return value
    return None


async def _get_json(http: httpx.AsyncClient, url: str) -> dict[str, Any] | None:
    """The JSON object at ``url``, or None for anything else (not this kind of server, down, slow)."""
    import httpx

    try:
        async with asyncio.timeout(PROBE_TIMEOUT):
            response = await http.get(url)
    except (httpx.HTTPError, TimeoutError):
        return None
    if response.status_code != 200:
        return None
    with contextlib.suppress(ValueError):
        data = response.json()
        return data if isinstance(data, dict) else None
    return None


async def discover(
    http: httpx.AsyncClient,
    base_url: str,
    model: str,
    listed: list[dict[str, Any]] | None,
    setting: int | None,
    *,
    probe: bool = True,
) -> ModelInfo:
    """The model's facts from every source that answers; ``listed`` is the ``/v1/models`` data (None: failed).

    ``probe=False`` (hosted APIs) asks nothing beyond ``/v1/models``.
    """
    key = (base_url, model)
    cached = _CACHE.get(key)
    if cached is not None and setting is None:
        return cached
    entry = next((m for m in listed or [] if m.get("id") == model), {})
    window = window_of(entry)
    source = "/v1/models" if window else None
    extra: dict[str, Any] = {"listed": bool(entry)}
    supports_tools = True
    root = server_root(base_url)
    props = await _get_json(http, f"{root}/props") if probe else None
    if props is not None:
        extra["server"] = "llama.cpp"
        extra["tokenize_url"] = f"{root}/tokenize"
        settings = props.get("default_generation_settings") or {}
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        if window is None and isinstance(n_ctx, int) and n_ctx > 0:
            window, source = n_ctx, "/props"
        caps = props.get("chat_template_caps")
        if isinstance(caps, dict) and caps.get("supports_tools") is False:
            supports_tools = False
    if window is None and probe:
        studio = await _get_json(http, f"{root}/api/v0/models/{model}")
        if studio is not None:
            extra["server"] = "LM Studio"
            for field in ("loaded_context_length", "max_context_length"):
                value = studio.get(field)
                if isinstance(value, int) and value > 0:
                    window, source = value, "LM Studio"
                    break
    if setting is not None:
        window, source = setting, "providers.context_window"
    extra["window_source"] = source
    info = ModelInfo(name=model, provider="openai", context_window=window, supports_tools=supports_tools, extra=extra)
    if setting is None and window is not None:  # unknown may mean "still loading": ask again next time
        _CACHE[key] = info
    return info


async def count_tokens(http: httpx.AsyncClient, url: str, text: str) -> int | None:
    """Tokens in ``text`` by the server's own tokenizer (llama.cpp ``/tokenize``), or None when it cannot say."""
    import httpx

    try:
        async with asyncio.timeout(PROBE_TIMEOUT * 2):
            response = await http.post(url, json={"content": text})
    except (httpx.HTTPError, TimeoutError):
        return None
    if response.status_code != 200:
        return None
    with contextlib.suppress(ValueError):
        tokens = response.json().get("tokens")
        return len(tokens) if isinstance(tokens, list) else None
    return None
