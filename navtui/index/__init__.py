"""The repository index ("docdex"): chunks and symbols of a repository in SQLite FTS5, optional embeddings.

Imported lazily by the rest of navtui (``navtui --help`` must not pay for SQLite work). Public API::

    build_index(root, *, embed_model=None, progress=None) -> IndexStats
    update_files(root, paths) -> IndexStats | None
    Index.open(root) -> Index | None;  index.search(query, limit) -> list[Hit];  index.symbols(name, kind, limit)
    context_note(root, prompt, token_budget) -> ContextNote | None
    index_root(cwd) -> Path  (the repository root an index belongs to)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from navtui.index.builder import build_index, update_files
    from navtui.index.model import IndexStats
    from navtui.index.note import ContextNote, context_note
    from navtui.index.query import Hit, Index, SymbolHit
    from navtui.index.store import IndexUnavailable, index_path, index_root

_EXPORTS = {
    "build_index": "navtui.index.builder",
    "update_files": "navtui.index.builder",
    "ContextNote": "navtui.index.note",
    "context_note": "navtui.index.note",
    "IndexStats": "navtui.index.model",
    "Hit": "navtui.index.query",
    "Index": "navtui.index.query",
    "SymbolHit": "navtui.index.query",
    "IndexUnavailable": "navtui.index.store",
    "index_path": "navtui.index.store",
    "index_root": "navtui.index.store",
}
__all__ = [
    "ContextNote",
    "Hit",
    "Index",
    "IndexStats",
    "IndexUnavailable",
    "SymbolHit",
    "build_index",
    "context_note",
    "index_path",
    "index_root",
    "update_files",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'navtui.index' has no attribute {name!r}")
    return getattr(import_module(module), name)
