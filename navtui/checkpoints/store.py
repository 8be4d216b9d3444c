"""The object store: file contents and directory listings by their SHA-256, in one SQLite file per workspace.

``~/.navtui/checkpoints/<workspace id>/objects.sqlite`` (the id is a hash of the workspace's path). Nothing is
ever written into the workspace or its ``.git``. A *blob* is a file's bytes (or a symlink's target); a *tree*
is a directory: its entries sorted by name, each with kind, mode, object hash and size. Identical content is
stored once, so a checkpoint costs the files that changed and the directories above them.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from navtui.config.paths import navtui_home
from navtui.core.errors import NavtuiError

Kind = Literal["f", "l", "d", "x"]  # file, symlink, directory, left out (too large: not stored)


@dataclass(frozen=True, slots=True)
class TreeEntry:
    kind: Kind
    mode: int  # the permission bits (st_mode & 0o7777)
    hash: str  # blob or tree hash; for "x" a fingerprint of size and mtime (the bytes are not kept)
    size: int = 0


Tree = dict[str, TreeEntry]
FLUSH_BYTES = 32 * 1024 * 1024


def checkpoints_dir() -> Path:
    return navtui_home() / "checkpoints"


def workspace_id(root: Path) -> str:
    return hashlib.sha256(os.fsencode(str(root))).hexdigest()[:16]


def blob_hash(data: bytes) -> str:
    return hashlib.sha256(b"blob\0" + data).hexdigest()


def encode_tree(tree: Tree) -> bytes:
    rows = [[name, e.kind, e.mode, e.hash, e.size] for name, e in sorted(tree.items())]
    return json.dumps(rows, separators=(",", ":")).encode()


def tree_hash(data: bytes) -> str:
    return hashlib.sha256(b"tree\0" + data).hexdigest()


def decode_tree(data: bytes) -> Tree:
    return {row[0]: TreeEntry(row[1], row[2], row[3], row[4]) for row in json.loads(data)}


class ObjectStore:
    """One workspace's objects. Safe for two navtui processes at once (SQLite's locking, WAL)."""

    def __init__(self, directory: Path, workspace: Path | None = None) -> None:
        self.directory = directory
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.chmod(directory.parent, 0o700)
            self._db = sqlite3.connect(directory / "objects.sqlite", timeout=10, check_same_thread=False)
            os.chmod(directory / "objects.sqlite", 0o600)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS objects (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, "
                "zipped INTEGER NOT NULL, data BLOB NOT NULL, created REAL NOT NULL) WITHOUT ROWID"
            )
            # What each file's stat was when its bytes were last hashed: a new process reads only what changed.
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS stat (path TEXT PRIMARY KEY, key TEXT NOT NULL, hash TEXT NOT NULL) "
                "WITHOUT ROWID"
            )
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            if workspace is not None:
                self._db.execute("INSERT OR REPLACE INTO meta VALUES ('workspace', ?)", (str(workspace),))
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:
            raise NavtuiError(
                f"Cannot open the checkpoint store {directory}: {exc}",
                hint="check that ~/.navtui is writable (NAVTUI_HOME moves it)",
            ) from None
        self._known: set[str] = set()
        self._trees: dict[str, Tree] = {}
        self._pending: list[tuple[str, str, int, bytes, float]] = []
        self._pending_bytes = 0

    @classmethod
    def for_workspace(cls, root: Path) -> ObjectStore:
        root = root.resolve()
        return cls(checkpoints_dir() / workspace_id(root), root)

    # ------------------------------------------------------------------ writing
    def add_blob(self, data: bytes) -> str:
        digest = blob_hash(data)
        self._add(digest, "b", data)
        return digest

    def add_tree(self, tree: Tree) -> str:
        data = encode_tree(tree)
        digest = tree_hash(data)
        if digest not in self._trees:
            self._trees[digest] = tree
        self._add(digest, "t", data)
        return digest

    def _add(self, digest: str, kind: str, data: bytes) -> None:
        if digest in self._known:
            return
        self._known.add(digest)
        zipped = zlib.compress(data, 1) if len(data) > 64 else data
        use_zip = len(zipped) < len(data)
        self._pending.append((digest, kind, int(use_zip), zipped if use_zip else data, time.time()))
        self._pending_bytes += len(self._pending[-1][3])
        if self._pending_bytes > FLUSH_BYTES:  # a first walk of a large tree: never all of it in memory
            self.flush()

    def discard_pending(self) -> None:
        for row in self._pending:
            self._known.discard(row[0])
            self._trees.pop(row[0], None)
        self._pending.clear()
        self._pending_bytes = 0

    def flush(self) -> None:
        """Write what was added since the last flush, in one transaction."""
        if not self._pending:
            return
        try:
            with self._db:
                self._db.executemany("INSERT OR IGNORE INTO objects VALUES (?, ?, ?, ?, ?)", self._pending)
        except sqlite3.Error as exc:
            self.discard_pending()
            raise NavtuiError(f"Cannot save a checkpoint in {self.directory}: {exc}") from None
        self._pending.clear()
        self._pending_bytes = 0

    def save_stats(self, rows: list[tuple[str, str, str]]) -> None:
        """(path, stat key, hash) of files hashed by a walk; the bytes themselves were flushed before."""
        if not rows:
            return
        try:
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO stat VALUES (?, ?, ?)", rows)
        except (sqlite3.Error, UnicodeEncodeError):  # a name with a byte that is not UTF-8 cannot be bound
            pass  # only a cache: the next process reads those files again

    def load_stats(self) -> dict[str, tuple[str, str]]:
        try:
            rows = self._db.execute("SELECT path, key, hash FROM stat").fetchall()
        except sqlite3.Error:
            return {}
        return {path: (key, digest) for path, key, digest in rows}

    # ------------------------------------------------------------------ reading
    def blob(self, digest: str) -> bytes:
        return self._get(digest)

    def tree(self, digest: str) -> Tree:
        tree = self._trees.get(digest)
        if tree is None:
            tree = self._trees[digest] = decode_tree(self._get(digest))
        return tree

    def has(self, digest: str) -> bool:
        if digest in self._known:
            return True
        row = self._db.execute("SELECT 1 FROM objects WHERE hash = ?", (digest,)).fetchone()
        return row is not None

    def _get(self, digest: str) -> bytes:
        for pending in self._pending:
            if pending[0] == digest:
                return zlib.decompress(pending[3]) if pending[2] else pending[3]
        row = self._db.execute("SELECT zipped, data FROM objects WHERE hash = ?", (digest,)).fetchone()
        if row is None:
            raise NavtuiError(
                f"The checkpoint store {self.directory} has no object {digest[:12]}",
                hint="its checkpoints were pruned or the store was deleted; the files cannot be restored from it",
            )
        return zlib.decompress(row[1]) if row[0] else bytes(row[1])

    # ------------------------------------------------------------------ pruning
    def prune(self, roots: Iterable[str], *, grace_seconds: float = 3600.0) -> int:
        """Delete the objects no tree in ``roots`` reaches (younger than ``grace_seconds`` stay). Returns how many."""
        reachable: set[str] = set()
        stack = [root for root in roots if self.has(root)]
        while stack:
            digest = stack.pop()
            if digest in reachable:
                continue
            reachable.add(digest)
            for entry in self.tree(digest).values():
                if entry.kind == "d":
                    stack.append(entry.hash)
                elif entry.kind in ("f", "l"):
                    reachable.add(entry.hash)
        cutoff = time.time() - grace_seconds
        rows = self._db.execute("SELECT hash FROM objects WHERE created < ?", (cutoff,)).fetchall()
        doomed = [(digest,) for (digest,) in rows if digest not in reachable]
        with self._db:
            self._db.executemany("DELETE FROM objects WHERE hash = ?", doomed)
            self._db.executemany("DELETE FROM stat WHERE hash = ?", doomed)  # a cache must not name them
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('pruned', ?)", (str(time.time()),))
        self._known.clear()
        self._trees.clear()
        if doomed:
            self._db.execute("VACUUM")
        return len(doomed)

    def last_pruned(self) -> float:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'pruned'").fetchone()
        return float(row[0]) if row else 0.0

    def disk_bytes(self) -> int:
        """The store's size on disk, after folding SQLite's write-ahead log into the database."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        total = 0
        for name in ("objects.sqlite", "objects.sqlite-wal"):
            try:
                total += (self.directory / name).stat().st_size
            except OSError:
                pass
        return total

    def close(self) -> None:
        self.flush()
        self._db.close()
