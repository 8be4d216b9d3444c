"""Reading the index: ranked chunks for a query (BM25, optionally re-ranked by embeddings) and symbol lookup."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navtui.index.store import SCHEMA_VERSION, connect, index_path, read_meta
from navtui.index.tokens import fts_all_query, fts_query, normalize_name, query_groups, query_terms

RERANK_CANDIDATES = 50
_DEFINITION_BOOST = 1.5
_COMMON_TERM_SHARE = 0.2  # a term in more chunks than this is nearly a stop word for ranking
_RANK_CAP = 8000  # matching chunks ranked at most (about 20 ms of BM25 on two cores)
_SEMANTIC_WEIGHT = 0.7  # the rest is the normalised BM25 score, so an exact identifier still counts
# A kind asked for by the model also finds its close relatives.
_KIND_FAMILIES = {
    "function": ("function", "method"),
    "method": ("method", "function"),
    "class": ("class", "struct", "interface", "trait", "record", "object", "protocol", "enum"),
    "struct": ("struct", "class"),
    "type": ("type", "interface", "struct", "class", "enum"),
}


@dataclass(frozen=True)
class Hit:
    path: str  # relative to the index root, POSIX separators
    start_line: int
    end_line: int
    score: float
    text: str
    symbol: str | None
    kind: str = "block"


@dataclass(frozen=True)
class SymbolHit:
    name: str
    kind: str
    path: str
    start_line: int
    end_line: int
    parent: str | None

    @property
    def qualified_name(self) -> str:
        return f"{self.parent}.{self.name}" if self.parent else self.name


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class Index:
    """An open index; cheap to open, so callers open one per use and close it."""

    def __init__(self, root: Path, conn: sqlite3.Connection) -> None:
        self.root = root
        self._conn = conn
        self.embed_model = read_meta(conn, "embed_model")
        built = read_meta(conn, "built_at")
        self.built_at = float(built) if built else None
        self._chunks: int | None = None

    @classmethod
    def open(cls, root: Path) -> Index | None:
        """The index of ``root``, or None when there is none or it cannot be read (damaged, other version)."""
        root = root.resolve()
        path = index_path(root)
        if not path.is_file():
            return None
        try:
            conn = connect(path, busy_timeout=2.0)
        except (sqlite3.Error, OSError):  # OSError: a link in the index's place (store.refuse_links)
            return None
        try:
            if read_meta(conn, "schema") != SCHEMA_VERSION:
                conn.close()
                return None
        except sqlite3.Error:
            conn.close()
            return None
        return cls(root, conn)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def counts(self) -> dict[str, int]:
        return {
            table: self._conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("files", "chunks", "symbols", "vectors")
        }

    def indexed_state(self, path: str) -> tuple[int, int] | None:
        """(mtime_ns, size) recorded for ``path``, to tell whether a hit may be stale."""
        row = self._conn.execute("SELECT mtime_ns, size FROM files WHERE path = ?", (path,)).fetchone()
        return (row[0], row[1]) if row else None

    def search(self, query: str, limit: int = 10, *, base_url: str | None = None) -> list[Hit]:
        """The best chunks for ``query``; with embeddings, the BM25 candidates re-ranked by cosine similarity.

        Chunks holding every word of the query rank first; chunks holding only some of them fill the rest.
        """
        groups = query_groups(query)
        if not groups or limit <= 0:
            return []
        terms = query_terms(query)
        names = {normalize_name(term) for term in terms} | {normalize_name(query)}
        wanted = max(limit, RERANK_CANDIDATES) if self.embed_model else max(limit * 3, 30)
        frequency = self._frequencies(terms)
        strict = fts_all_query(groups)
        if self._matching_count(groups, frequency) > _RANK_CAP:
            hits = self._common_words(strict, wanted, limit, names)
        else:
            hits = self._ranked(self._matches(strict, wanted), names)
        if len(hits) < limit and len(groups) > 1:  # one word, even a compound one, must match in full
            seen = {chunk_id for chunk_id, _ in hits}
            total = self._chunk_count()
            present = [term for term in terms if frequency.get(term, 0)] or terms
            rare = [term for term in present if frequency.get(term, 0) <= total * _COMMON_TERM_SHARE] or present
            expression = fts_query(rare)
            floor = self._window(expression) if sum(frequency.get(t, 0) for t in rare) > _RANK_CAP else 0
            loose = [row for row in self._matches(expression, wanted, floor) if row[0] not in seen]
            hits += self._ranked(loose, names)[: wanted - len(hits)]
        if self.embed_model and len(hits) > 1:
            hits = self._rerank(query, hits, base_url)
        return [hit for _, hit in hits[:limit]]

    @staticmethod
    def _ranked(rows: list[tuple[Any, ...]], names: set[str]) -> list[tuple[int, Hit]]:
        hits = [
            (row[0], Hit(row[1], row[2], row[3], _boosted(row[7], row[5], names), row[4], row[5], row[6] or "block"))
            for row in rows
        ]
        hits.sort(key=lambda item: -item[1].score)
        return hits

    def _frequencies(self, terms: list[str]) -> dict[str, int]:
        """How many chunks hold each term (FTS5's vocabulary table answers without scanning)."""
        marks = ",".join("?" * len(terms))
        return dict(self._conn.execute(f"SELECT term, doc FROM chunks_vocab WHERE term IN ({marks})", terms))

    @staticmethod
    def _matching_count(groups: list[list[str]], frequency: dict[str, int]) -> int:
        """An upper bound on the number of chunks that hold every word of the query."""

        def group_count(group: list[str]) -> int:
            whole, *parts = group
            return frequency.get(whole, 0) + (min(frequency.get(p, 0) for p in parts) if parts else 0)

        return min(group_count(group) for group in groups)

    def _common_words(self, strict: str, wanted: int, limit: int, names: set[str]) -> list[tuple[int, Hit]]:
        """Words found in most of a big index: ranking every chunk would be slow and say little.

        Chunks whose path or definition name holds the words come first; the rest are ranked among the
        most recently indexed matches only (recent edits are the likeliest to matter in a session).
        """
        named = f"{{path symbol}} : ({strict})"
        hits = self._ranked(self._matches(named, wanted, self._window(named)), names)
        if len(hits) >= limit:
            return hits
        seen = {chunk_id for chunk_id, _ in hits}
        rest = [row for row in self._matches(strict, wanted, self._window(strict)) if row[0] not in seen]
        return hits + self._ranked(rest, names)

    def _window(self, expression: str) -> int:
        """The smallest rowid among the newest ``_RANK_CAP`` chunks matching ``expression``."""
        bound = self._conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
            (expression, _RANK_CAP - 1),
        ).fetchone()
        return int(bound[0]) if bound else 0

    def _chunk_count(self) -> int:
        if self._chunks is None:
            self._chunks = self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return self._chunks

    def _matches(self, expression: str, limit: int, min_rowid: int = 0) -> list[tuple[Any, ...]]:
        return self._conn.execute(
            "SELECT c.id, c.path, c.start_line, c.end_line, f.text, c.symbol, c.kind, -f.rank FROM ("
            " SELECT rowid, text, rank FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid >= ? ORDER BY rank LIMIT ?"
            ") f JOIN chunks c ON c.id = f.rowid ORDER BY f.rank",
            (expression, min_rowid, limit),
        ).fetchall()

    def _rerank(self, query: str, hits: list[tuple[int, Hit]], base_url: str | None) -> list[tuple[int, Hit]]:
        from navtui.index.embed import Embedder, EmbeddingUnavailable, cosine, unpack

        ids = [chunk_id for chunk_id, _ in hits]
        marks = ",".join("?" * len(ids))
        vectors = {
            row[0]: unpack(row[1])
            for row in self._conn.execute(f"SELECT chunk_id, vector FROM vectors WHERE chunk_id IN ({marks})", ids)
        }
        if not vectors:
            return hits
        try:
            with Embedder(self.embed_model or "", base_url, timeout=30.0) as embedder:
                query_vector = unpack(embedder.embed([query], query=True)[0])
        except EmbeddingUnavailable:
            return hits  # Ollama went away: BM25 order is still a good answer
        best = max(hit.score for _, hit in hits) or 1.0
        rescored: list[tuple[float, int, Hit]] = []
        for chunk_id, hit in hits:
            vector = vectors.get(chunk_id)
            semantic = cosine(query_vector, vector) if vector is not None else 0.0
            score = _SEMANTIC_WEIGHT * semantic + (1 - _SEMANTIC_WEIGHT) * hit.score / best
            rescored.append((score, chunk_id, hit))
        rescored.sort(key=lambda item: -item[0])
        return [(chunk_id, _with_score(hit, score)) for score, chunk_id, hit in rescored]

    def symbols(self, name: str, kind: str | None = None, limit: int = 20) -> list[SymbolHit]:
        """Definitions whose name matches ``name``: exact, then prefix, then substring, then subsequence.

        ``Parent.name`` narrows to members of ``Parent``; case, ``_`` and ``-`` are ignored when matching.
        """
        parent: str | None = None
        query = name.strip()
        if "." in query.strip("."):
            parent, _, query = query.rpartition(".")
            parent = parent.rsplit(".", 1)[-1]
        norm = normalize_name(query)
        if not norm:
            return []
        escaped = _like_escape(norm)
        sql = (
            "SELECT name, kind, path, start_line, end_line, parent,"
            " CASE WHEN norm = :norm THEN 0 WHEN norm LIKE :prefix ESCAPE '\\' THEN 1"
            " WHEN norm LIKE :substring ESCAPE '\\' THEN 2 ELSE 3 END AS tier"
            " FROM symbols WHERE norm LIKE :subsequence ESCAPE '\\'"
        )
        params: dict[str, object] = {
            "norm": norm,
            "prefix": escaped + "%",
            "substring": "%" + escaped + "%",
            "subsequence": "%" + "%".join(_like_escape(ch) for ch in norm) + "%",
            "exact": query,
            "limit": limit,
        }
        if kind:
            family = _KIND_FAMILIES.get(kind.lower(), (kind.lower(),))
            sql += f" AND kind IN ({','.join(f':k{i}' for i in range(len(family)))})"
            params.update({f"k{i}": value for i, value in enumerate(family)})
        if parent:
            sql += " AND lower(replace(parent, '_', '')) = :parent"
            params["parent"] = normalize_name(parent)
        sql += " ORDER BY tier, name = :exact DESC, length(name), kind = 'section', path, start_line LIMIT :limit"
        return [SymbolHit(*row[:6]) for row in self._conn.execute(sql, params)]


def _boosted(score: float, symbol: str | None, names: set[str]) -> float:
    """A chunk that defines what the query names outranks chunks that merely mention it."""
    if symbol and normalize_name(symbol.rsplit(".", 1)[-1]) in names:
        return score * _DEFINITION_BOOST
    return score


def _with_score(hit: Hit, score: float) -> Hit:
    return Hit(hit.path, hit.start_line, hit.end_line, score, hit.text, hit.symbol, hit.kind)
