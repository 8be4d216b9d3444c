"""Build and update the index: walk, skip what did not change, chunk what did, write in batches."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from navtui.core.walk import is_binary
from navtui.index.chunker import chunk_text
from navtui.index.model import Chunk, IndexStats, Symbol
from navtui.index.store import (
    IndexDamaged,
    IndexLink,
    IndexLocked,
    classify,
    index_path,
    open_for_write,
    read_meta,
    remove_index,
    replace_index,
    write_meta,
)
from navtui.index.tokens import identifier_terms, normalize_name
from navtui.index.walker import Ignorer, WalkedFile, walk_files

ProgressFn = Callable[[str, int, int], None]  # (phase: scan|index|embed, done, total)
DEFAULT_MAX_FILE_BYTES = 1_000_000
_BATCH_FILES = 500
_PROGRESS_EVERY = 100
_OPTIMIZE_AFTER = 500  # changed files


@dataclass
class _FileResult:
    rel: str
    mtime_ns: int
    size: int
    hash: str
    status: str  # ok | binary
    language: str | None = None
    chunks: list[Chunk] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    known: bool = False  # a previous version is in the index and must go first


def _read(walked: WalkedFile, known: tuple[int, int, str, str] | None) -> _FileResult | str:
    """A file's new state, or ``"unchanged"`` / ``"touched"`` (same content, new mtime)."""
    if known is not None and known[0] == walked.mtime_ns and known[1] == walked.size:
        return "unchanged"
    data = walked.path.read_bytes()
    digest = hashlib.blake2b(data, digest_size=16).hexdigest()
    if known is not None and known[2] == digest:
        return "touched"
    result = _FileResult(walked.rel, walked.mtime_ns, walked.size, digest, "ok", known=known is not None)
    if is_binary(data):
        result.status = "binary"
        return result
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff").replace("\r\n", "\n")
    chunked = chunk_text(walked.rel, text)
    result.language, result.chunks, result.symbols = chunked.language, chunked.chunks, chunked.symbols
    return result


class _Writer:
    """Writes results in batches, one transaction each, with ids assigned here so FTS rows line up."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.next_id = (conn.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0) + 1
        self.pending: list[_FileResult] = []
        self.touched: list[tuple[int, int, str]] = []

    def add(self, result: _FileResult) -> None:
        self.pending.append(result)
        if len(self.pending) >= _BATCH_FILES:
            self.flush()

    def touch(self, walked: WalkedFile) -> None:
        self.touched.append((walked.mtime_ns, walked.size, walked.rel))

    def remove(self, paths: Iterable[str]) -> None:
        rows = [(path,) for path in paths]
        if rows:
            self.conn.execute("BEGIN")
            self._delete(rows)
            self.conn.executemany("DELETE FROM files WHERE path = ?", rows)
            self.conn.execute("COMMIT")

    def _delete(self, rows: list[tuple[str]]) -> None:
        ids = "SELECT id FROM chunks WHERE path = ?"
        self.conn.executemany(f"DELETE FROM chunks_fts WHERE rowid IN ({ids})", rows)
        self.conn.executemany(f"DELETE FROM vectors WHERE chunk_id IN ({ids})", rows)
        self.conn.executemany("DELETE FROM chunks WHERE path = ?", rows)
        self.conn.executemany("DELETE FROM symbols WHERE path = ?", rows)

    def flush(self) -> None:
        if not self.pending and not self.touched:
            return
        chunk_rows: list[tuple[object, ...]] = []
        fts_rows: list[tuple[object, ...]] = []
        symbol_rows: list[tuple[object, ...]] = []
        for result in self.pending:
            for chunk in result.chunks:
                chunk_rows.append(
                    (self.next_id, result.rel, chunk.start_line, chunk.end_line, chunk.symbol, chunk.kind)
                )
                # Names carry their own parts, so "widget" finds make_widget in the heavily weighted columns too.
                symbol = f"{chunk.symbol} {identifier_terms(chunk.symbol)}" if chunk.symbol else ""
                path = f"{result.rel} {identifier_terms(result.rel)}"
                fts_rows.append((self.next_id, path, symbol, chunk.text, identifier_terms(chunk.text)))
                self.next_id += 1
            symbol_rows.extend(
                (s.name, normalize_name(s.name), s.kind, result.rel, s.start_line, s.end_line, s.parent)
                for s in result.symbols
                if s.kind != "section"  # headings label chunks; symbol lookup is for code
            )
        self.conn.execute("BEGIN")
        self._delete([(result.rel,) for result in self.pending if result.known])
        self.conn.executemany(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?)",
            [(r.rel, r.mtime_ns, r.size, r.hash, r.status, r.language) for r in self.pending],
        )
        self.conn.executemany("UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?", self.touched)
        self.conn.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?)", chunk_rows)
        self.conn.executemany(
            "INSERT INTO chunks_fts(rowid, path, symbol, text, idents) VALUES (?, ?, ?, ?, ?)", fts_rows
        )
        self.conn.executemany(
            "INSERT INTO symbols(name, norm, kind, path, start_line, end_line, parent) VALUES (?, ?, ?, ?, ?, ?, ?)",
            symbol_rows,
        )
        self.conn.execute("COMMIT")
        self.pending, self.touched = [], []


def _known(conn: sqlite3.Connection) -> dict[str, tuple[int, int, str, str]]:
    return {row[0]: row[1:] for row in conn.execute("SELECT path, mtime_ns, size, hash, status FROM files")}


def _apply(writer: _Writer, walked: WalkedFile, known: tuple[int, int, str, str] | None, stats: IndexStats) -> None:
    try:
        result = _read(walked, known)
    except OSError:
        stats.files_skipped += 1  # vanished or unreadable since the walk; a later run picks it up
        return
    if result == "touched":
        writer.touch(walked)
    if isinstance(result, str):
        if known is not None and known[3] == "binary":
            stats.files_skipped += 1
        else:
            stats.files_unchanged += 1
        return
    writer.add(result)
    if result.status == "binary":
        stats.files_skipped += 1
    else:
        stats.files_indexed += 1


def _storable(rel: str) -> bool:
    """Whether a path can be stored: SQLite's text is UTF-8, and a name that is not (held with surrogateescape,
    ``core/text.py``) cannot be written as text."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unnamed_notice(names: list[str]) -> str:
    from navtui.core.display import display_safe

    shown = ", ".join(f"'{display_safe(name)}'" for name in names[:3]) + (", ..." if len(names) > 3 else "")
    count = f"{len(names)} file{'s' if len(names) != 1 else ''}"
    return f"{count} not indexed: the name is not UTF-8 ({shown}); rename to index it."


def _totals(conn: sqlite3.Connection, stats: IndexStats) -> None:
    stats.chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    stats.symbols = conn.execute("SELECT count(*) FROM symbols").fetchone()[0]


def _build(
    conn: sqlite3.Connection,
    root: Path,
    stats: IndexStats,
    *,
    embed_model: str | None,
    progress: ProgressFn | None,
    max_file_bytes: int,
    base_url: str | None,
) -> None:
    known = _known(conn)
    report = progress or (lambda _phase, _done, _total: None)
    walked: list[WalkedFile] = []
    for item in walk_files(root):
        walked.append(item)
        if len(walked) % _PROGRESS_EVERY == 0:
            report("scan", len(walked), 0)
    report("index", 0, len(walked))
    writer = _Writer(conn)
    present: set[str] = set()
    unnamed: list[str] = []
    for done, item in enumerate(walked, 1):
        stats.files_seen += 1
        if item.size > max_file_bytes:
            stats.files_skipped += 1
        elif not _storable(item.rel):
            stats.files_skipped += 1
            unnamed.append(item.rel)
        else:
            present.add(item.rel)
            _apply(writer, item, known.get(item.rel), stats)
        if done % _PROGRESS_EVERY == 0:
            report("index", done, len(walked))
    writer.flush()
    if unnamed:
        stats.notices.append(_unnamed_notice(unnamed))
    gone = [path for path in known if path not in present]
    writer.remove(gone)
    stats.files_removed = len(gone)
    report("index", len(walked), len(walked))
    from navtui.index.embedding_pass import embed_pass

    embed_pass(conn, stats, embed_model, base_url=base_url, progress=report)
    write_meta(conn, "built_at", str(time.time()))
    if stats.files_indexed + stats.files_removed >= _OPTIMIZE_AFTER:
        # Merge the FTS segments a big write left behind: queries read one b-tree instead of dozens.
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
    _totals(conn, stats)


def build_index(
    root: Path,
    *,
    embed_model: str | None = None,
    progress: ProgressFn | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    base_url: str | None = None,
    busy_timeout: float = 5.0,
) -> IndexStats:
    """Create or refresh ``<root>/.navtui/index.sqlite``; a damaged or locked file is rebuilt with a notice.

    ``embed_model`` None keeps the model of an earlier ``--embed`` build (if any); ``""`` drops embeddings.
    """
    root = root.resolve()
    started = time.perf_counter()
    path = index_path(root)
    options = _BuildOptions(
        embed_model=embed_model, progress=progress, max_file_bytes=max_file_bytes, base_url=base_url
    )
    stats = IndexStats(str(root))
    try:
        _build_at(path, root, stats, busy_timeout, options)
    except IndexDamaged as exc:
        notices = [f"The index at {path} was damaged ({exc}); rebuilt it from scratch.", *stats.notices]
        remove_index(path)
        stats = IndexStats(str(root), notices=notices)
        _build_at(path, root, stats, busy_timeout, options)
    except IndexLocked:
        notices = [f"The index at {path} is locked by another process; built a fresh copy and replaced it."]
        stats = IndexStats(str(root), notices=notices)
        fresh = path.with_name(f"index.{os.getpid()}.tmp.sqlite")
        remove_index(fresh)
        try:
            _build_at(fresh, root, stats, busy_timeout, options)
            replace_index(fresh, path)
        finally:
            remove_index(fresh)
    stats.seconds = time.perf_counter() - started
    return stats


class _BuildOptions(TypedDict):
    embed_model: str | None
    progress: ProgressFn | None
    max_file_bytes: int
    base_url: str | None


def _build_at(path: Path, root: Path, stats: IndexStats, busy_timeout: float, options: _BuildOptions) -> None:
    conn = open_for_write(path, busy_timeout=busy_timeout)
    try:
        _build(conn, root, stats, **options)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise classify(exc) from exc
    finally:
        conn.close()


def update_files(
    root: Path,
    paths: Iterable[str | Path],
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    base_url: str | None = None,
    busy_timeout: float = 5.0,
) -> IndexStats | None:
    """Re-index a few files (after the agent edited them); None when there is no usable index to update."""
    root = root.resolve()
    path = index_path(root)
    if not path.exists():
        return None
    started = time.perf_counter()
    stats = IndexStats(str(root))
    try:
        conn = open_for_write(path, busy_timeout=busy_timeout)
    except (IndexDamaged, IndexLocked, IndexLink):
        return None  # not worth a rebuild mid-session; `navtui index` or `/index` will do it (or say why not)
    ignorer = Ignorer(root)
    try:
        writer = _Writer(conn)
        gone: list[str] = []
        for raw in paths:
            target = Path(raw) if Path(raw).is_absolute() else root / raw
            try:
                rel = target.resolve().relative_to(root).as_posix()
            except ValueError:
                continue  # outside the indexed tree
            if not _storable(rel):
                continue  # never indexed (the build says so), so nothing to update
            stats.files_seen += 1
            known = conn.execute("SELECT mtime_ns, size, hash, status FROM files WHERE path = ?", (rel,)).fetchone()
            try:
                st = target.stat()
            except OSError:
                st = None
            if st is None or not target.is_file() or st.st_size > max_file_bytes or ignorer.ignored(rel):
                if known is not None:
                    gone.append(rel)
                continue
            _apply(writer, WalkedFile(rel, target, st.st_mtime_ns, st.st_size), known, stats)
        writer.flush()
        writer.remove(gone)
        stats.files_removed = len(gone)
        model = read_meta(conn, "embed_model")
        if model:
            from navtui.index.embedding_pass import embed_pass

            embed_pass(conn, stats, None, base_url=base_url, progress=None)
        _totals(conn, stats)
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        stats.notices.append(f"Could not update the index: {exc}")
    finally:
        conn.close()
    stats.seconds = time.perf_counter() - started
    return stats
