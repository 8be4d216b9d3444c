"""The embedding step of a build: vectors for every chunk that has none, in batches, skipped without Ollama."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from navtui.index.embed import Embedder, EmbeddingUnavailable
from navtui.index.model import IndexStats
from navtui.index.store import read_meta, write_meta

BATCH_SIZE = 32


def embed_pass(
    conn: sqlite3.Connection,
    stats: IndexStats,
    requested: str | None,
    *,
    base_url: str | None,
    progress: Callable[[str, int, int], None] | None,
) -> None:
    """Embed missing chunks with ``requested`` (None: the model the index already uses; "": drop vectors)."""
    stored = read_meta(conn, "embed_model")
    if requested == "" or (requested and stored and requested != stored):
        conn.execute("BEGIN")
        conn.execute("DELETE FROM vectors")
        write_meta(conn, "embed_model", None)
        conn.execute("COMMIT")
        if requested == "" and stored:
            stats.notices.append(f"Removed the {stored} embeddings; search uses BM25 only.")
        stored = None
    model = requested or stored
    if not model:
        return
    stats.embed_model = model
    missing = [row[0] for row in conn.execute("SELECT id FROM chunks WHERE id NOT IN (SELECT chunk_id FROM vectors)")]
    stats.embeddings = "ok"
    if not missing:
        return
    with Embedder(model, base_url) as embedder:
        for start in range(0, len(missing), BATCH_SIZE):
            ids = missing[start : start + BATCH_SIZE]
            marks = ",".join("?" * len(ids))
            rows = conn.execute(
                f"SELECT c.id, c.path, f.text FROM chunks c JOIN chunks_fts f ON f.rowid = c.id WHERE c.id IN ({marks})",
                ids,
            ).fetchall()
            try:
                blobs = embedder.embed([f"{path}\n{text}" for _, path, text in rows])
            except EmbeddingUnavailable as exc:
                stats.embeddings = "skipped"
                done = f" after {stats.embedded} chunks" if stats.embedded else ""
                stats.notices.append(f"Embeddings skipped{done}: {exc}. Search uses BM25 ranking only.")
                return
            conn.execute("BEGIN")
            conn.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                [(row[0], b) for row, b in zip(rows, blobs, strict=True)],
            )
            write_meta(conn, "embed_model", model)
            conn.execute("COMMIT")
            stats.embedded += len(rows)
            if progress:
                progress("embed", min(start + BATCH_SIZE, len(missing)), len(missing))
