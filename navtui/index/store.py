"""The SQLite file behind the index: schema, connections, and what counts as damaged or locked."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from navtui.core.errors import NavtuiError

SCHEMA_VERSION = "1"
INDEX_FILENAME = "index.sqlite"
# Column weights for bm25(): a hit in a definition's name counts most, one in the raw text least.
BM25_WEIGHTS = (1.5, 4.0, 1.0, 0.8)  # path, symbol, text, idents

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, hash TEXT NOT NULL,
    status TEXT NOT NULL, language TEXT);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    symbol TEXT, kind TEXT);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    path, symbol, text, idents, tokenize = "unicode61 remove_diacritics 2 tokenchars '_'");
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, row);
CREATE TABLE IF NOT EXISTS symbols(
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, norm TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, parent TEXT);
CREATE INDEX IF NOT EXISTS symbols_norm ON symbols(norm);
CREATE INDEX IF NOT EXISTS symbols_path ON symbols(path);
CREATE TABLE IF NOT EXISTS vectors(chunk_id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
"""


class IndexUnavailable(NavtuiError):
    """The index cannot be used (missing, damaged, or from another version)."""


class IndexDamaged(Exception):
    """The file is not a usable index; the builder starts it afresh."""


class IndexLocked(Exception):
    """Another connection holds the write lock past the busy timeout."""


def index_path(root: Path) -> Path:
    return root / ".navtui" / INDEX_FILENAME


def index_root(cwd: Path) -> Path:
    """The directory an index belongs to: the repository root holding ``cwd`` (or ``cwd`` itself)."""
    from navtui.config.paths import find_repo_root

    cwd = cwd.resolve()
    return find_repo_root(cwd) or cwd


def classify(exc: sqlite3.Error) -> Exception:
    """Map an SQLite failure to locked (retry elsewhere) or damaged (start afresh)."""
    message = str(exc).lower()
    if "locked" in message or "busy" in message:
        return IndexLocked(str(exc))
    return IndexDamaged(str(exc))


class IndexLink(OSError):
    """The index's file or its folder is a symbolic link: navtui neither writes nor reads through it."""

    def __str__(self) -> str:
        return self.strerror or "a link"


def refuse_links(path: Path) -> None:
    """Raise ``IndexLink`` when ``path`` or its folder (``.navtui``) is a symbolic link.

    git keeps links, so a repository can ship ``.navtui/index.sqlite -> ~/.bash_profile``: SQLite follows it and
    creates (or fills an empty) file there with the repository's text in it; a ``.navtui`` that links out would get
    the index and its ``.gitignore``. The index is the repository's own file, so a link in its place is refused.
    (SQLite itself refuses a ``-wal`` or ``-shm`` that is a link.)
    """
    for candidate in (path.parent, path):
        if candidate.is_symlink():
            raise IndexLink(
                0,
                f"{candidate} is a link to {os.readlink(candidate)}: navtui writes no index through it (remove the link)",
            )


def connect(path: Path, *, busy_timeout: float = 5.0) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit) with a generous page cache; ``IndexLink`` when the
    file or its folder is a link."""
    refuse_links(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA cache_size = -32768")  # 32 MB
    conn.execute("PRAGMA mmap_size = 268435456")  # a fresh connection per tool call reads pages without copying
    conn.execute("PRAGMA temp_store = MEMORY")
    return conn


_IGNORE_HEAD = "# navtui's repository index (rebuilt by `navtui index`)"
_IGNORE_TEXT = f"{_IGNORE_HEAD}\nindex.sqlite*\n# this file too: git status stays clean; settings and commands stay committable\n.gitignore\n"


def _ignore_file(directory: Path) -> None:
    """Keep the index (and this file) out of git even where .gitignore does not list them; the project's
    settings and commands stay committable. An earlier navtui's file, which did not list itself, is replaced."""
    marker = directory / ".gitignore"
    if marker.is_symlink():  # written through, it would make a file wherever the link points
        return
    with contextlib.suppress(OSError, UnicodeDecodeError):
        if not marker.exists() or (
            marker.read_text(encoding="utf-8").startswith(_IGNORE_HEAD)
            and ".gitignore" not in marker.read_text(encoding="utf-8").splitlines()
        ):
            marker.write_text(_IGNORE_TEXT, encoding="utf-8")


def open_for_write(path: Path, *, busy_timeout: float = 5.0) -> sqlite3.Connection:
    """Open (creating if needed) an index for writing; raises ``IndexDamaged`` or ``IndexLocked``."""
    conn: sqlite3.Connection | None = None
    try:
        fresh = not path.exists() or path.stat().st_size == 0
        conn = connect(path, busy_timeout=busy_timeout)
        if fresh:
            if path.parent.name == ".navtui":
                _ignore_file(path.parent)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.executescript(_SCHEMA)
            weights = ", ".join(str(w) for w in BM25_WEIGHTS)
            conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', ?)", (f"bm25({weights})",))
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        else:
            version = read_meta(conn, "schema")
            if version != SCHEMA_VERSION:
                raise IndexDamaged(f"schema version {version!r}, expected {SCHEMA_VERSION!r}")
            conn.execute("BEGIN IMMEDIATE")  # fail now, not halfway, when another writer holds the lock
            conn.execute("COMMIT")
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn
    except sqlite3.Error as exc:
        if conn is not None:
            conn.close()
        raise classify(exc) from exc
    except IndexDamaged:
        if conn is not None:
            conn.close()
        raise


def read_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def write_meta(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (key,))
    else:
        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))


def remove_index(path: Path) -> None:
    """Delete the index and its WAL companions (a stale -wal must never be replayed into a new file)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def replace_index(built: Path, path: Path) -> None:
    """Move a freshly built index over ``path`` (the old file stays readable by whoever has it open)."""
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
    os.replace(built, path)
