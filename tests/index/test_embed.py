"""Optional embeddings through Ollama's /api/embed, against the fake server's deterministic vectors."""

from __future__ import annotations

import socket
import sqlite3
from pathlib import Path

import pytest

from navtui.index import Index, build_index, index_path
from navtui.index.embed import cosine, ollama_base_url, pack, unpack
from tests.fakes.server import FakeServer
from tests.fakes.wire_ollama import fake_embedding
from tests.index.conftest import write

MODEL = "nomic-embed-text"


def embed_requests(server: FakeServer) -> list[list[str]]:
    return [req.json["input"] for req in server.requests if req.path == "/api/embed"]


def vector_count(root: Path) -> int:
    with sqlite3.connect(index_path(root)) as conn:
        return conn.execute("SELECT count(*) FROM vectors").fetchone()[0]


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_build_embeds_every_chunk_with_document_prefixes(repo: Path, fake_server: FakeServer) -> None:
    stats = build_index(repo, embed_model=MODEL, base_url=fake_server.url)
    assert (stats.embeddings, stats.embed_model, stats.notices) == ("ok", MODEL, [])
    assert stats.embedded == stats.chunks == vector_count(repo)
    inputs = [text for batch in embed_requests(fake_server) for text in batch]
    assert len(inputs) == stats.chunks
    assert all(text.startswith("search_document: ") for text in inputs)
    assert any(text.startswith("search_document: src/cli.ts\n/** Turns argv") for text in inputs)
    assert "embedded" in stats.summary()


def test_search_reranks_bm25_candidates_by_cosine_similarity(repo: Path, fake_server: FakeServer) -> None:
    build_index(repo, embed_model=MODEL, base_url=fake_server.url)
    query = "server port"
    index = Index.open(repo)
    assert index is not None
    with index:
        assert index.embed_model == MODEL
        index.embed_model = None  # the plain BM25 ranking, for comparison
        bm25 = index.search(query, 50)
        index.embed_model = MODEL
        fake_server.reset()
        reranked = index.search(query, 50, base_url=fake_server.url)
    assert embed_requests(fake_server) == [[f"search_query: {query}"]]
    assert {(h.path, h.start_line) for h in reranked} == {(h.path, h.start_line) for h in bm25}
    query_vector = unpack(pack(fake_embedding(f"search_query: {query}")))
    best = max(h.score for h in bm25)

    def expected(hit):  # type: ignore[no-untyped-def]
        doc = unpack(pack(fake_embedding(f"search_document: {hit.path}\n{hit.text}")))
        return 0.7 * cosine(query_vector, doc) + 0.3 * hit.score / best

    by_expectation = sorted(bm25, key=expected, reverse=True)
    assert [(h.path, h.start_line) for h in reranked] == [(h.path, h.start_line) for h in by_expectation]
    assert [round(h.score, 5) for h in reranked] == [round(expected(h), 5) for h in by_expectation]


def test_an_incremental_build_embeds_only_new_chunks_with_the_stored_model(repo: Path, fake_server: FakeServer) -> None:
    build_index(repo, embed_model=MODEL, base_url=fake_server.url)
    fake_server.reset()
    write(repo, "src/added.py", "def added_function():\n    return 1\n")
    stats = build_index(repo, base_url=fake_server.url)  # no model given: the index remembers its own
    assert (stats.embeddings, stats.embedded) == ("ok", 1)
    assert embed_requests(fake_server) == [["search_document: src/added.py\ndef added_function():\n    return 1"]]
    assert vector_count(repo) == stats.chunks


def test_without_ollama_indexing_works_and_says_embeddings_were_skipped(repo: Path) -> None:
    stats = build_index(repo, embed_model=MODEL, base_url=closed_port_url())
    assert stats.embeddings == "skipped" and stats.embedded == 0
    assert len(stats.notices) == 1 and "not reachable" in stats.notices[0] and "BM25" in stats.notices[0]
    assert stats.files_indexed == 10
    index = Index.open(repo)
    assert index is not None
    with index:
        assert index.embed_model is None
        assert index.search("parse args", 1)[0].path == "src/cli.ts"


def test_search_falls_back_to_bm25_when_ollama_goes_away(repo: Path, fake_server: FakeServer) -> None:
    build_index(repo, embed_model=MODEL, base_url=fake_server.url)
    index = Index.open(repo)
    assert index is not None
    with index:
        hits = index.search("parse args", 3, base_url=closed_port_url())
    assert hits[0].path == "src/cli.ts"


def test_a_missing_model_names_the_pull_command(repo: Path, fake_server: FakeServer) -> None:
    fake_server.set_model("some-chat-model")
    stats = build_index(repo, embed_model=MODEL, base_url=fake_server.url)
    assert stats.embeddings == "skipped"
    assert "ollama pull nomic-embed-text" in stats.notices[0]


def test_embeddings_can_be_dropped(repo: Path, fake_server: FakeServer) -> None:
    build_index(repo, embed_model=MODEL, base_url=fake_server.url)
    stats = build_index(repo, embed_model="")
    assert stats.embeddings == "off" and vector_count(repo) == 0
    assert "Removed the nomic-embed-text embeddings" in stats.notices[0]
    index = Index.open(repo)
    assert index is not None and index.embed_model is None
    index.close()


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (None, "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("myhost:1234", "http://myhost:1234"),
        ("https://ollama.example/", "https://ollama.example"),
    ],
)
def test_ollama_base_url(monkeypatch: pytest.MonkeyPatch, env: str | None, expected: str) -> None:
    if env is not None:
        monkeypatch.setenv("OLLAMA_HOST", env)
    assert ollama_base_url() == expected


def test_ollama_base_url_prefers_the_configured_ollama_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    from navtui.config.settings import Settings

    monkeypatch.setenv("OLLAMA_HOST", "elsewhere:1")
    assert ollama_base_url(Settings(provider="ollama", base_url="http://gpu-box:11434")) == "http://gpu-box:11434"
    assert ollama_base_url(Settings(provider="openai", base_url="http://llama:8080/v1")) == "http://elsewhere:1"
