"""Optional embeddings through Ollama's ``POST /api/embed``; vectors are unit-length float32 blobs."""

from __future__ import annotations

import math
import operator
import os
from array import array
from typing import Any

from navtui.core.errors import NavtuiError

DEFAULT_EMBED_MODEL = "nomic-embed-text"
DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
MAX_EMBED_CHARS = 6000  # nomic-embed-text reads 2048 tokens; Ollama truncates the rest anyway


class EmbeddingUnavailable(NavtuiError):
    """Ollama could not embed (not running, model not pulled, bad reply)."""


def ollama_base_url(settings: Any = None) -> str:
    """Settings' base_url when the provider is Ollama, else ``OLLAMA_HOST``, else the local default."""
    configured = getattr(settings, "base_url", None) if getattr(settings, "provider", None) == "ollama" else None
    url = configured or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_URL
    if "://" not in url:
        url = "http://" + url
    url = url.rstrip("/").replace("://0.0.0.0", "://127.0.0.1")  # a bind-all address is not a place to connect to
    if url.startswith("http://") and url.count(":") == 1:  # no port: Ollama's, as its own client assumes
        url += ":11434"
    return url.rstrip("/")


def _prefixed(model: str, text: str, *, query: bool) -> str:
    # nomic-embed-text is trained with task prefixes; without them retrieval quality drops noticeably.
    if "nomic" in model:
        return ("search_query: " if query else "search_document: ") + text
    return text


def pack(vector: list[float]) -> bytes:
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return array("f", (v / norm for v in vector)).tobytes()


def unpack(blob: bytes) -> array[float]:
    vector = array("f")
    vector.frombytes(blob)
    return vector


def cosine(a: array[float], b: array[float]) -> float:
    """Cosine similarity of two unit vectors (their dot product); 0 when the sizes differ."""
    if len(a) != len(b):
        return 0.0
    return sum(map(operator.mul, a, b))


class Embedder:
    """A small synchronous client: the index builds in a thread, not on an event loop."""

    def __init__(self, model: str, base_url: str | None = None, *, timeout: float = 120.0) -> None:
        import httpx

        self.model = model
        self.base_url = (base_url or ollama_base_url()).rstrip("/")
        self._client = httpx.Client(base_url=self.base_url, timeout=httpx.Timeout(timeout, connect=3.0))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Embedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def embed(self, texts: list[str], *, query: bool = False) -> list[bytes]:
        """Packed unit vectors for ``texts``, in order; ``EmbeddingUnavailable`` on any failure."""
        import httpx

        payload = {
            "model": self.model,
            "input": [_prefixed(self.model, text[:MAX_EMBED_CHARS], query=query) for text in texts],
            "truncate": True,
        }
        try:
            response = self._client.post("/api/embed", json=payload)
        except httpx.HTTPError as exc:
            raise EmbeddingUnavailable(
                f"Ollama is not reachable at {self.base_url} ({type(exc).__name__})",
                hint="start it with `ollama serve`, or set OLLAMA_HOST",
            ) from exc
        if response.status_code == 404:
            raise EmbeddingUnavailable(f"Ollama has no model {self.model!r}", hint=f"run `ollama pull {self.model}`")
        if response.status_code >= 400:
            raise EmbeddingUnavailable(f"Ollama refused to embed: HTTP {response.status_code} {_error(response)}")
        try:
            vectors = response.json()["embeddings"]
            if len(vectors) != len(texts) or not all(isinstance(v, list) and v for v in vectors):
                raise ValueError("wrong number of embeddings")
            return [pack([float(x) for x in vector]) for vector in vectors]
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingUnavailable(f"Ollama sent an unusable embedding reply ({exc})") from exc


def _error(response: Any) -> str:
    try:
        return str(response.json().get("error", ""))[:200]
    except ValueError:
        return response.text[:200]
