"""Which files of a repository the index reads: gitignore-aware, no VCS/tool/venv directories, no binaries."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

# Directories never worth indexing, whatever .gitignore says.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".navtui",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".idea",
        ".vscode",
    }
)
# Extensions that are binary (or generated noise) often enough that reading them is a waste.
_SKIP_EXTENSIONS_WORDS = """png jpg jpeg gif bmp ico webp tiff svgz pdf zip gz tgz bz2 xz zst 7z rar jar war class so dylib dll exe
    o a obj lib pyc pyo pyd whl egg mp3 mp4 m4a mov avi mkv wav ogg flac woff woff2 ttf otf eot sqlite sqlite3 db
    bin dat npy npz pkl pickle parquet feather onnx gguf safetensors pt pth ckpt map"""
SKIP_EXTENSIONS = frozenset(_SKIP_EXTENSIONS_WORDS.split())
SKIP_NAMES = frozenset(
    {"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock", "uv.lock", "Pipfile.lock"}
)
SNIFF_BYTES = 8192

_Chain = tuple[tuple[str, GitIgnoreSpec], ...]  # (directory prefix with trailing "/", or "", spec)


@dataclass(frozen=True)
class WalkedFile:
    rel: str  # POSIX path relative to the root
    path: Path
    mtime_ns: int
    size: int


def is_binary(data: bytes) -> bool:
    """A NUL byte in the first few KB marks a file as binary (git's own heuristic)."""
    return b"\0" in data[:SNIFF_BYTES]


def skipped_name(name: str) -> bool:
    if name in SKIP_NAMES or name.endswith((".min.js", ".min.css")):
        return True
    _, dot, ext = name.rpartition(".")
    return bool(dot) and ext.lower() in SKIP_EXTENSIONS


def _load_spec(directory: Path, *, root: bool = False) -> GitIgnoreSpec | None:
    lines: list[str] = []
    sources = [directory / ".gitignore"]
    if root:
        sources.append(directory / ".git" / "info" / "exclude")
    for source in sources:
        try:
            lines.extend(source.read_text(encoding="utf-8", errors="replace").splitlines())
        except OSError:
            continue
    return GitIgnoreSpec.from_lines(lines) if lines else None


def _ignored(chain: _Chain, rel: str, is_dir: bool) -> bool:
    """Git's rule: the last matching pattern wins, deeper .gitignore files after shallower ones."""
    decision: bool | None = None
    suffix = "/" if is_dir else ""
    for prefix, spec in chain:
        if prefix and not rel.startswith(prefix):
            continue
        result = spec.check_file(rel[len(prefix) :] + suffix)
        if result.include is not None:
            decision = result.include
    return bool(decision)


def _skip_dir(path: Path, name: str) -> bool:
    return name in SKIP_DIRS or (path / "pyvenv.cfg").exists()


def walk_files(root: Path) -> Iterator[WalkedFile]:
    """Every file under ``root`` that git would track and the index may read (symlinks are not followed)."""
    root = root.resolve()
    root_spec = _load_spec(root, root=True)
    stack: list[tuple[Path, str, _Chain]] = [(root, "", (("", root_spec),) if root_spec else ())]
    while stack:
        directory, prefix, chain = stack.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[tuple[Path, str, _Chain]] = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    path = Path(entry.path)
                    if _skip_dir(path, entry.name) or _ignored(chain, rel, True):
                        continue
                    spec = _load_spec(path)
                    sub_chain = (*chain, (rel + "/", spec)) if spec else chain
                    subdirs.append((path, rel + "/", sub_chain))
                elif entry.is_file():
                    if skipped_name(entry.name) or _ignored(chain, rel, False):
                        continue
                    st = entry.stat()
                    yield WalkedFile(rel, Path(entry.path), st.st_mtime_ns, st.st_size)
            except OSError:
                continue  # vanished or unreadable while walking
        stack.extend(reversed(subdirs))


class Ignorer:
    """Answers "would the walker skip this path?" for single files (re-indexing after an edit)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._specs: dict[str, GitIgnoreSpec | None] = {}

    def _spec(self, prefix: str) -> GitIgnoreSpec | None:
        if prefix not in self._specs:
            self._specs[prefix] = _load_spec(self.root / prefix, root=not prefix)
        return self._specs[prefix]

    def ignored(self, rel: str) -> bool:
        parts = rel.split("/")
        if skipped_name(parts[-1]):
            return True
        chain: list[tuple[str, GitIgnoreSpec]] = []
        for depth in range(len(parts)):
            prefix = "/".join(parts[:depth]) + "/" if depth else ""
            if depth:
                name = parts[depth - 1]
                if _skip_dir(self.root / prefix, name) or _ignored(tuple(chain), prefix[:-1], True):
                    return True
            spec = self._spec(prefix)
            if spec is not None:
                chain.append((prefix, spec))
        return _ignored(tuple(chain), rel, False)
