"""Which files of a repository the index reads: the files in view (``core/walk.py``) minus those named as
binary or generated (images, archives, lock files, minified code); binaries by content are sniffed when read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from navtui.core.walk import RepoRules, WalkedFile
from navtui.core.walk import walk_files as walk_repository

_SKIP_EXTENSIONS_WORDS = """png jpg jpeg gif bmp ico webp tiff svgz pdf zip gz tgz bz2 xz zst 7z rar jar war class so dylib dll exe
    o a obj lib pyc pyo pyd whl egg mp3 mp4 m4a mov avi mkv wav ogg flac woff woff2 ttf otf eot sqlite sqlite3 db
    bin dat npy npz pkl pickle parquet feather onnx gguf safetensors pt pth ckpt map"""
SKIP_EXTENSIONS = frozenset(_SKIP_EXTENSIONS_WORDS.split())
SKIP_NAMES = frozenset(
    {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock", "uv.lock", "Pipfile.lock"}
)

__all__ = ["Ignorer", "WalkedFile", "skipped_name", "walk_files"]


def skipped_name(name: str) -> bool:
    if name in SKIP_NAMES or name.endswith((".min.js", ".min.css")):
        return True
    _, dot, ext = name.rpartition(".")
    return bool(dot) and ext.lower() in SKIP_EXTENSIONS


def walk_files(root: Path) -> Iterator[WalkedFile]:
    """Every file under ``root`` in view that the index may read (symlinks are not followed)."""
    for item in walk_repository(root):
        if not skipped_name(item.path.name):
            yield item


class Ignorer:
    """Answers "would the walk skip this path?" for single files (re-indexing after an edit)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._rules = RepoRules(self.root)

    def ignored(self, rel: str) -> bool:
        return skipped_name(rel.rsplit("/", 1)[-1]) or self._rules.hidden(self.root, rel)
