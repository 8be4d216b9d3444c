"""What an OpenAI-compatible server says about a model: its window, whether its template takes tools, tokenizing.

Each server family says it in its own place, so navtui asks them in turn and keeps the first answer:

- the ``providers.context_window`` setting (the user knows best);
- the ``/v1/models`` entry: vLLM ``max_model_len``, llama.cpp ``meta.n_ctx``, OpenRouter ``context_length``...;
- llama.cpp ``/props``: ``default_generation_settings.n_ctx``, and ``chat_template_caps.supports_tools``
  (a template that ignores tools makes native tools silently useless); llama.cpp also has ``/tokenize``;
- LM Studio ``/api/v0/models/<model>``: ``loaded_context_length``, else ``max_context_length``;
- Ollama's OpenAI endpoint (its root says "Ollama is running"): ``/api/ps`` ``context_length`` for a model in
  memory, else the Modelfile's ``num_ctx``, else the model is loaded (an empty chat, as the first request would
  load it, with the context ``/v1`` gets) and ``/api/ps`` asked again; only when that fails, Ollama's smallest
  default, 4096, said as assumed and never cached;
- OpenAI's own models, which no endpoint describes: their published windows (``KNOWN_WINDOWS``), on a hosted API
  only. A server on this machine or the local network (``is_local_url``) runs the window it was started with, often
  far less (gpt-oss is published with 131,072): there the window stays unknown and the first run says how to set it.

The answer is cached per endpoint and model for the process. Anthropic-compatible servers that do not list
their models are asked the same local questions (``probe_window``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from navtui.providers.base import ModelInfo

if TYPE_CHECKING:
    import httpx

_WINDOW_FIELDS = ("max_model_len", "context_length", "context_window", "max_context_length", "n_ctx")
_CACHE: dict[tuple[str, str], ModelInfo] = {}
PROBE_TIMEOUT = 5.0

# OpenAI's published context windows (input and output together), by name prefix; the longest prefix wins, so a
# dated snapshot (gpt-4o-2024-08-06) has its family's window and gpt-4o is not taken for gpt-4.
KNOWN_WINDOWS = {
    "gpt-5": 400_000,
    "gpt-5-chat": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "chatgpt-4o": 128_000,
    "gpt-4.5": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4-1106": 128_000,
    "gpt-4-0125": 128_000,
    "gpt-4-32k": 32_768,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "o1": 200_000,
    "o1-mini": 128_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "codex-mini": 200_000,
    "gpt-oss": 131_072,
}
OLLAMA_DEFAULT_WINDOW = 4096  # Ollama's default below 24 GiB of VRAM (more with OLLAMA_CONTEXT_LENGTH)
LOAD_TIMEOUT = 120.0  # loading a model from a slow disk onto a CPU takes a while; the first request would wait too
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)", re.MULTILINE)


def known_window(model: str) -> int | None:
    """The published window of one of OpenAI's models (``gpt-4o``, ``openai/gpt-4.1-mini``), else None."""
    name = model.lower().rsplit("/", 1)[-1]
    matches = [p for p in KNOWN_WINDOWS if name.startswith(p) and name[len(p) : len(p) + 1] in ("", "-", ".", ":")]
    return KNOWN_WINDOWS[max(matches, key=len)] if matches else None


# Names of the user's own machines: a single label (``gpubox``), mDNS, the suffixes kept for private networks, and
# Tailscale's MagicDNS (``box.tail1234.ts.net``).
_LOCAL_SUFFIXES = (".localhost", ".local", ".lan", ".home", ".home.arpa", ".internal", ".intranet", ".corp", ".ts.net")


def is_local_url(base_url: str) -> bool:
    """Whether ``base_url`` is a server of the user's own (loopback, a private, link-local or shared address such
    as Tailscale's, or a name of a private network), not a hosted API."""
    host = (urlsplit(base_url).hostname or "").rstrip(".").lower()
    if not host:
        return False
    try:
        return not ipaddress.ip_address(host).is_global
    except ValueError:
        pass
    return host == "localhost" or "." not in host or host.endswith(_LOCAL_SUFFIXES)


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


@dataclass
class ServerWindow:
    """What a local server says of a model's window: the window (None: it did not say), where it came from, the
    server's kind, and a note for the user when the window is assumed rather than told."""

    window: int | None = None
    source: str | None = None
    server: str | None = None
    note: str | None = None
    supports_tools: bool = True
    tokenize_url: str | None = None
    vision: bool | None = None  # llama.cpp's /props says whether a vision projector is loaded


async def probe_window(http: httpx.AsyncClient, root: str, model: str, *, window_known: bool = False) -> ServerWindow:
    """Ask the local servers' own endpoints at ``root``: llama.cpp ``/props``, LM Studio, Ollama, in turn.

    ``window_known``: only ``/props`` is asked (whether the template takes tools, the tokenizer)."""
    found = ServerWindow()
    props = await _get_json(http, f"{root}/props")
    if props is not None:
        found.server, found.tokenize_url = "llama.cpp", f"{root}/tokenize"
        settings = props.get("default_generation_settings") or {}
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        if isinstance(n_ctx, int) and n_ctx > 0:
            found.window, found.source = n_ctx, "/props"
        caps = props.get("chat_template_caps")
        if isinstance(caps, dict) and caps.get("supports_tools") is False:
            found.supports_tools = False
        modalities = props.get("modalities")
        if isinstance(modalities, dict) and isinstance(modalities.get("vision"), bool):
            found.vision = modalities["vision"]
        return found
    if window_known:
        return found
    studio = await _get_json(http, f"{root}/api/v0/models/{model}")
    if studio is not None:
        found.server = "LM Studio"
        for field in ("loaded_context_length", "max_context_length"):
            value = studio.get(field)
            if isinstance(value, int) and value > 0:
                found.window, found.source = value, "LM Studio"
                break
        return found
    if await _is_ollama(http, root):
        found.server = "Ollama"
        found.window, found.source = await _ollama_window(http, root, model)
        if found.source is None:
            found.note = (
                f"Ollama serves {model} through its OpenAI-compatible API with its default context "
                f"({OLLAMA_DEFAULT_WINDOW} tokens unless OLLAMA_CONTEXT_LENGTH or the Modelfile says more), which "
                f"navtui cannot set there: assuming {OLLAMA_DEFAULT_WINDOW}. Use -p ollama (navtui then sends "
                "num_ctx), or set providers.context_window."
            )
            found.window, found.source = OLLAMA_DEFAULT_WINDOW, "assumed (Ollama's default)"
    return found


async def _is_ollama(http: httpx.AsyncClient, root: str) -> bool:
    """Ollama answers its root with "Ollama is running"."""
    import httpx

    try:
        async with asyncio.timeout(PROBE_TIMEOUT):
            response = await http.get(f"{root}/")
    except (httpx.HTTPError, TimeoutError):
        return False
    return response.status_code == 200 and response.text.startswith("Ollama is running")


async def _ollama_window(http: httpx.AsyncClient, root: str, model: str) -> tuple[int | None, str | None]:
    """The context Ollama runs ``model`` with: what ``/api/ps`` says of it in memory, else its Modelfile's
    ``num_ctx``; (None, None) when neither says (Ollama then uses its default)."""
    import httpx

    def same(name: object) -> bool:
        return isinstance(name, str) and (name == model or name == f"{model}:latest")

    async def in_memory() -> int | None:
        ps = await _get_json(http, f"{root}/api/ps")
        for entry in (ps or {}).get("models") or []:
            if isinstance(entry, dict) and (same(entry.get("name")) or same(entry.get("model"))):
                value = entry.get("context_length")
                if isinstance(value, int) and value > 0:
                    return value
        return None

    if (running := await in_memory()) is not None:
        return running, "Ollama /api/ps"
    try:
        async with asyncio.timeout(PROBE_TIMEOUT):
            response = await http.post(f"{root}/api/show", json={"model": model})
        show = response.json() if response.status_code == 200 else {}
    except (httpx.HTTPError, TimeoutError, ValueError):
        show = {}
    parameters = show.get("parameters") if isinstance(show, dict) else None
    found = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    if found:
        return int(found.group(1)), "the Modelfile's num_ctx"
    # Only Ollama knows its default (OLLAMA_CONTEXT_LENGTH, or 4096 to 256k by the GPU's memory): load the model as
    # /v1 will run it (no options), then it says. An assumed 4096 made every session prune and compact early.
    try:
        async with asyncio.timeout(LOAD_TIMEOUT):
            loaded = await http.post(f"{root}/api/chat", json={"model": model, "messages": [], "stream": False})
    except (httpx.HTTPError, TimeoutError):
        return None, None
    if loaded.status_code == 200 and (running := await in_memory()) is not None:
        return running, "Ollama /api/ps, after loading the model"
    return None, None


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
    root = server_root(base_url)
    server = await probe_window(http, root, model, window_known=window is not None) if probe else ServerWindow()
    if server.server:
        extra["server"] = server.server
    if server.tokenize_url:
        extra["tokenize_url"] = server.tokenize_url
    if server.vision is not None:
        extra["vision"] = server.vision
    if window is None and server.window is not None:
        window, source = server.window, server.source
        if server.note:
            extra["window_note"] = server.note
    if window is None and (known := known_window(model)) is not None:
        if is_local_url(base_url):  # what the server was started with, not what the model can take
            extra["published_window"] = known
        else:
            window, source = known, "known window"
    if setting is not None:
        window, source = setting, "providers.context_window"
        extra.pop("window_note", None)
    extra["window_source"] = source
    info = ModelInfo(
        name=model, provider="openai", context_window=window, supports_tools=server.supports_tools, extra=extra
    )
    if setting is None and window is not None and "window_note" not in extra:  # unknown may mean "still loading"
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
