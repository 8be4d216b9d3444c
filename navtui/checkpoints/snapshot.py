"""Snapshot a workspace into the object store: one walk, reading only the files whose stat changed.

What is kept: every file, symlink (as a link, never followed) and directory under the root that the
repository's ignore rules keep in view (``.gitignore``, ``.ignore``, ``.git/info/exclude``; VCS, tool and
dependency directories never: ``navtui.core.walk``), with its permission bits. A file larger than
``max_file_bytes`` is recorded as *left out* (its size and time, not its bytes) and reported. A walk that
finds more than ``max_files`` entries stops: checkpoints are off for such a directory (a home directory).

Between walks the snapshotter remembers each directory's filtered listing (reused while the directory's
mtime is unchanged, so ignore patterns are matched only where something was added or removed) and each
file's hash by its stat (mtime, ctime, size, inode): a walk after a turn reads the files that changed.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.checkpoints.store import ObjectStore, Tree, TreeEntry
from navtui.checkpoints.watch import DirWatch
from navtui.core.errors import NavtuiError
from navtui.core.fs import is_write_temp
from navtui.core.walk import IGNORE_FILES, SKIPPED_DIRS, find_repo_root, read_ignore_file

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_FILES = 50_000
# Folders deeper than this are not kept (nor anything in them): the walk recurses once per level, and a
# repository's `d/d/d/...` 1,100 deep raised RecursionError at every snapshot. No real project comes near it.
MAX_DEPTH = 256
# Kernel timestamps move in ticks of a few ms: a file written again within the same tick keeps its mtime.
# Files this young at the walk are hashed again next time ("racy git").
RACY_NS = 50_000_000


class TooManyFiles(NavtuiError):
    pass


class _NewIgnoreFile(Exception):
    """A directory gained a .gitignore: the cached rules below it are stale, walk again from scratch."""


@dataclass
class Snapshot:
    tree: str  # the root tree's hash
    left_out: list[tuple[str, int]] = field(default_factory=list)  # (path, size) of files too large to keep
    files: int = 0
    read: int = 0  # files read and hashed this time (the rest came from the stat cache)
    walked: int = 0  # entries looked at this time


@dataclass
class _Dir:
    """What the last walk saw in one directory."""

    mtime_ns: int
    ino: int
    names: list[str]  # the entries in view, sorted
    tree: Tree
    hash: str
    files: int  # entries in this directory and below
    left_out: list[tuple[str, int]]  # files too large to keep, in this directory and below


_Specs = tuple[tuple[str, int, "GitIgnoreSpec"], ...]  # (prefix, chars to strip, spec), deepest first


class Snapshotter:
    """Walks ``root`` into ``store``. One per workspace and process; ``snapshot()`` is thread-safe."""

    def __init__(
        self,
        root: Path,
        store: ObjectStore,
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_files: int = MAX_FILES,
        watch: bool = True,
    ) -> None:
        self.root = root.resolve()
        self.store = store
        self.max_file_bytes = max_file_bytes
        self.max_files = max_files
        self._lock = threading.Lock()
        self._dirs: dict[str, _Dir] = {}
        self._files: dict[str, tuple[str, str]] = store.load_stats()  # path -> (stat key, hash)
        self._new_stats: list[tuple[str, str, str]] = []
        self._ignore_files: dict[str, tuple[int, int, int]] = {}  # path -> stat of every ignore file read
        self._specs: dict[str, _Specs] = {}
        self._base_specs: _Specs | None = None
        self._watch: DirWatch | None = DirWatch() if watch else None
        self._rewatches = 0
        self.racy_ns = RACY_NS
        self._started = 0

    def snapshot(self) -> Snapshot:
        with self._lock:
            dirty = self._dirty()
            entry: _Dir | None = None
            for _attempt in range(3):
                result = Snapshot(tree="")
                self._started = time.time_ns()
                try:
                    entry = self._walk("", str(self.root), self._root_specs(), dirty, _ancestors(dirty), result)
                except _NewIgnoreFile:
                    self._forget_all()
                    dirty = None
                    continue
                except BaseException:
                    self.store.discard_pending()
                    for rel, _key, _digest in self._new_stats:  # their bytes were not saved
                        self._files.pop(rel, None)
                    self._new_stats.clear()
                    raise
                break
            if entry is None:
                raise NavtuiError("Checkpoints are off here: the ignore files kept changing during the walk")
            self.store.flush()
            self.store.save_stats(self._new_stats)
            self._new_stats.clear()
            result.tree = entry.hash
            result.files = entry.files
            result.left_out = list(entry.left_out)
            if result.files > self.max_files:
                self._forget_all()
                raise self._too_many()
            return result

    def _too_many(self) -> TooManyFiles:
        return TooManyFiles(
            f"Checkpoints are off here: {self.root} holds more than {self.max_files:,} files",
            hint="start navtui in the project's directory, or raise checkpoints.max_files",
        )

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()

    def _dirty(self) -> set[str] | None:
        """The directories to look at again (``None``: all of them)."""
        if self._ignore_rules_changed():
            self._forget_all()
        watch = self._watch
        if watch is None or not self._dirs:
            return None
        dirty = watch.changed()
        if dirty is None and self._rewatches < 3:  # the queue overflowed: walk everything, watching afresh
            self._rewatches += 1
            watch.reset()
            self._dirs.clear()
        return dirty

    def _forget_all(self) -> None:
        self._dirs.clear()
        self._specs.clear()
        self._ignore_files.clear()
        self._base_specs = None
        if self._watch is not None and self._watch.active:
            self._watch.reset()

    # ------------------------------------------------------------------ the walk
    def _walk(
        self, rel: str, path: str, parent_specs: _Specs, dirty: set[str] | None, above: set[str], result: Snapshot
    ) -> _Dir:
        cached = self._dirs.get(rel)
        if cached is not None and dirty is not None and rel not in dirty:
            if rel not in above:
                return cached  # nothing changed in or below it
            return self._refresh_children(rel, path, cached, parent_specs, dirty, above, result)
        dir_stat = os.lstat(path)
        specs = self._dir_specs(rel, path, parent_specs)
        if cached is None or cached.ino != dir_stat.st_ino:
            if self._watch is not None:
                self._watch.add(path, rel)  # before listing: a change from now on is seen
            cached = None
        if cached is not None and cached.mtime_ns == dir_stat.st_mtime_ns:
            names = cached.names
        else:
            names = self._list(rel, path, specs)
            if cached is not None:
                for gone in set(cached.names) - set(names):
                    self._forget_below(rel + gone + "/")
        tree: Tree = {}
        files = len(names)
        left_out: list[tuple[str, int]] = []
        result.walked += len(names)
        if result.walked > self.max_files:  # before reading a home directory's worth of files
            raise self._too_many()
        for name in names:
            child_rel = rel + name
            child = path + "/" + name
            try:
                st = os.lstat(child)
            except OSError:
                continue  # gone since the listing
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISDIR(st.st_mode):
                if child_rel.count("/") >= MAX_DEPTH:
                    continue  # MAX_DEPTH levels kept: this one would be one more
                try:
                    sub = self._walk(child_rel + "/", child, specs, dirty, above, result)
                except PermissionError:
                    continue
                tree[name] = TreeEntry("d", mode, sub.hash)
                files += sub.files
                left_out.extend(sub.left_out)
                if files > self.max_files:
                    break
            elif stat.S_ISREG(st.st_mode):
                entry = self._file(child_rel, child, st, mode, result)
                if entry is not None:
                    tree[name] = entry
                    if entry.kind == "x":
                        left_out.append((child_rel, entry.size))
            elif stat.S_ISLNK(st.st_mode):
                try:
                    target = os.fsencode(os.readlink(child))
                except OSError:
                    continue
                tree[name] = TreeEntry("l", mode, self.store.add_blob(target), len(target))
        digest = previous.hash if (previous := self._dirs.get(rel)) and previous.tree == tree else None
        seen = _Dir(
            dir_stat.st_mtime_ns, dir_stat.st_ino, names, tree, digest or self.store.add_tree(tree), files, left_out
        )
        self._dirs[rel] = seen
        return seen

    def _refresh_children(
        self,
        rel: str,
        path: str,
        cached: _Dir,
        parent_specs: _Specs,
        dirty: set[str],
        above: set[str],
        result: Snapshot,
    ) -> _Dir:
        """A directory whose own entries did not change, with news further down."""
        specs = self._dir_specs(rel, path, parent_specs)
        tree = dict(cached.tree)
        files = len(cached.names)
        left_out: list[tuple[str, int]] = []
        for name, item in cached.tree.items():
            child_rel = rel + name + "/"
            if item.kind == "d":
                sub = self._dirs.get(child_rel)
                if sub is None or child_rel in dirty or child_rel in above:
                    sub = self._walk(child_rel, path + "/" + name, specs, dirty, above, result)
                    tree[name] = TreeEntry("d", item.mode, sub.hash)
                files += sub.files
                left_out.extend(sub.left_out)
            elif item.kind == "x":
                left_out.append((rel + name, item.size))
        digest = cached.hash if tree == cached.tree else self.store.add_tree(tree)
        entry = _Dir(cached.mtime_ns, cached.ino, cached.names, tree, digest, files, left_out)
        self._dirs[rel] = entry
        return entry

    def _forget_below(self, prefix: str) -> None:
        for rel in [rel for rel in self._dirs if rel.startswith(prefix)]:
            del self._dirs[rel]
        for rel in [rel for rel in self._specs if rel.startswith(prefix)]:
            del self._specs[rel]

    def _file(self, rel: str, path: str, st: os.stat_result, mode: int, result: Snapshot) -> TreeEntry | None:
        if st.st_size > self.max_file_bytes:
            return TreeEntry("x", mode, f"{st.st_size}:{st.st_mtime_ns}", st.st_size)
        key = f"{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_size}:{st.st_ino}:{st.st_dev}"
        cached = self._files.get(rel)
        if cached is not None and cached[0] == key:
            return TreeEntry("f", mode, cached[1], st.st_size)
        try:
            with open(path, "rb") as handle:
                data = handle.read(self.max_file_bytes + 1)
        except OSError:
            return None  # unreadable (permissions) or gone: not part of the snapshot
        result.read += 1
        digest = self.store.add_blob(data)
        if max(st.st_mtime_ns, st.st_ctime_ns) < self._started - self.racy_ns:
            self._files[rel] = (key, digest)
            self._new_stats.append((rel, key, digest))
        else:
            self._files.pop(rel, None)
        return TreeEntry("f", mode, digest, len(data))

    def _list(self, rel: str, path: str, specs: _Specs) -> list[str]:
        try:
            entries = list(os.scandir(path))
        except OSError:
            return []
        names = []
        for entry in entries:
            name = entry.name
            if name in IGNORE_FILES and entry.path not in self._ignore_files and os.path.isfile(entry.path):
                raise _NewIgnoreFile
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if name in SKIPPED_DIRS and (is_dir or name == ".git"):
                continue
            if not is_dir and is_write_temp(name):
                continue  # navtui's own write, half done: the file it becomes is walked once it is renamed
            if is_dir and os.path.exists(entry.path + "/pyvenv.cfg"):
                continue  # a virtualenv
            if specs and _ignored(rel + name + ("/" if is_dir else ""), specs):
                continue
            names.append(name)
        names.sort()
        return names

    # ------------------------------------------------------------------ ignore rules
    def _root_specs(self) -> _Specs:
        """The rules of the directories above the root, up to its repository's top (and its info/exclude)."""
        if self._base_specs is None:
            top = find_repo_root(self.root)
            specs: list[tuple[str, int, GitIgnoreSpec]] = []
            if top is not None:
                chain = [self.root, *self.root.parents]
                above = [directory for directory in chain[1 : chain.index(top) + 1]] if top != self.root else []
                for directory in above:
                    prefix = self.root.relative_to(directory).as_posix() + "/"
                    specs[:0] = [(prefix, 0, spec) for spec in self._read_specs(directory)]
                exclude = self._read_spec_file(top / ".git" / "info" / "exclude")
                if exclude is not None:
                    prefix = "" if top == self.root else self.root.relative_to(top).as_posix() + "/"
                    specs.append((prefix, 0, exclude))
            self._base_specs = tuple(specs)
        return self._base_specs

    def _dir_specs(self, rel: str, path: str, parent: _Specs) -> _Specs:
        cached = self._specs.get(rel)
        if cached is None:
            own = [(("", len(rel), spec)) for spec in reversed(self._read_specs(Path(path)))]
            cached = self._specs[rel] = (*own, *parent) if own else parent
        return cached

    def _read_specs(self, directory: Path) -> list[GitIgnoreSpec]:
        specs = []
        for name in IGNORE_FILES:
            spec = self._read_spec_file(directory / name)
            if spec is not None:
                specs.append(spec)
        return specs

    def _read_spec_file(self, source: Path) -> GitIgnoreSpec | None:
        try:
            st = source.stat()
        except OSError:
            return None
        text = read_ignore_file(source)  # never a named pipe: it would hold the snapshot for ever
        if text is None:
            return None
        lines = text.splitlines()
        from navtui.core.globs import ignore_spec

        self._ignore_files[str(source)] = (st.st_mtime_ns, st.st_size, st.st_ino)
        return ignore_spec(lines)  # a hostile rule cannot hold the snapshot before each turn

    def _ignore_rules_changed(self) -> bool:
        for source, key in self._ignore_files.items():
            try:
                st = os.stat(source)
            except OSError:
                return True
            if (st.st_mtime_ns, st.st_size, st.st_ino) != key:
                return True
        return False


def _ancestors(dirty: set[str] | None) -> set[str]:
    """Every directory above a dirty one (``""`` included)."""
    above: set[str] = set()
    for rel in dirty or ():
        parts = rel.split("/")[:-1]
        for depth in range(len(parts)):
            above.add("/".join(parts[:depth]) + ("/" if depth else ""))
    return above


def _ignored(rel: str, specs: _Specs) -> bool:
    """Deeper rules first; within one file the last matching pattern wins (``check_file``)."""
    for prefix, strip, spec in specs:
        result = spec.check_file(prefix + rel[strip:])
        if result.include is not None:
            return bool(result.include)
    return False
