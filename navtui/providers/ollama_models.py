"""An Ollama server's models and their lifecycle: installed (``/api/tags``), loaded in memory (``/api/ps``),
loaded on purpose (an empty ``/api/chat``), downloaded (``/api/pull``, a stream of progress lines).

Loading a model takes seconds to minutes and Ollama says nothing meanwhile; the provider asks ``/api/ps``
first, and when the model is cold it loads it with an empty chat request, so the wait can be shown for what
it is instead of looking like a hung request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from navtui.core.errors import ProviderError
from navtui.providers.base import ListedModel, PullProgress
from navtui.providers.streaming import ndjson_lines

if TYPE_CHECKING:
    import httpx


def same_model(a: str, b: str) -> bool:
    """Ollama treats ``x`` and ``x:latest`` as one model."""
    return _tagged(a) == _tagged(b)


def _tagged(name: str) -> str:
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and value >= 0 else None


async def _get_models(http: httpx.AsyncClient, path: str) -> list[dict[str, Any]]:
    response = await http.get(path)
    if response.status_code >= 400:
        raise ProviderError(f"Ollama returned HTTP {response.status_code} for {path}", status=response.status_code)
    try:
        models = response.json().get("models") or []
    except (ValueError, AttributeError):
        raise ProviderError(f"Ollama sent something that is not a model list for {path}", kind="stream") from None
    return [m for m in models if isinstance(m, dict) and (m.get("name") or m.get("model"))]


async def loaded_models(http: httpx.AsyncClient) -> list[ListedModel]:
    """The models in memory now (``/api/ps``)."""
    return [
        ListedModel(
            name=str(m.get("name") or m.get("model")),
            loaded=True,
            memory=_int(m.get("size")),
            vram=_int(m.get("size_vram")),
            context=_int(m.get("context_length")),
        )
        for m in await _get_models(http, "/api/ps")
    ]


async def all_models(http: httpx.AsyncClient) -> list[ListedModel]:
    """Every installed model (``/api/tags``), with what ``/api/ps`` says of those in memory; loaded ones first."""
    installed = await _get_models(http, "/api/tags")
    try:
        running = {_tagged(m.name): m for m in await loaded_models(http)}
    except ProviderError:  # an older server: the list is still worth showing
        running = {}
    out = []
    for m in installed:
        name = str(m.get("name") or m.get("model"))
        details: dict[str, Any] = m["details"] if isinstance(m.get("details"), dict) else {}
        live = running.get(_tagged(name))
        out.append(
            ListedModel(
                name=name,
                size=_int(m.get("size")),
                parameter_size=details.get("parameter_size") or None,
                quantization=details.get("quantization_level") or None,
                loaded=live is not None,
                memory=live.memory if live else None,
                vram=live.vram if live else None,
                context=live.context if live else None,
            )
        )
    return sorted(out, key=lambda model: (not model.loaded, model.name))


async def pull(http: httpx.AsyncClient, name: str) -> AsyncIterator[PullProgress]:
    """Download ``name``, one ``PullProgress`` per line Ollama sends. Raises ProviderError when it fails."""
    async with http.stream("POST", "/api/pull", json={"model": name, "stream": True}, timeout=None) as response:
        if response.status_code >= 400:
            await response.aread()
            raise ProviderError(f"Ollama could not pull {name}: {_error_text(response)}", status=response.status_code)
        async for line in ndjson_lines(response.aiter_bytes()):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except (ValueError, RecursionError):
                raise ProviderError(f"Ollama sent a line that is not JSON while pulling: {line[:200]!r}") from None
            if not isinstance(data, dict):
                continue
            if data.get("error"):
                raise ProviderError(f"Ollama could not pull {name}: {data['error']}", kind="not_found")
            yield PullProgress(
                status=str(data.get("status") or ""),
                digest=data.get("digest") or None,
                completed=_int(data.get("completed")),
                total=_int(data.get("total")),
            )


def _error_text(response: httpx.Response) -> str:
    try:
        return str(response.json().get("error") or response.text)
    except (ValueError, AttributeError):
        return response.text.strip() or f"HTTP {response.status_code}"
