"""The files a command must not change because git or navtui later run what they say.

``.git/config`` and its per-worktree and submodule siblings, ``hooks/``, ``info/``, the folder ``core.hooksPath``
names, and in each workspace root ``.navtui/``, ``.mcp.json`` and ``.env*``. With namespaces the launcher binds
the existing ones read-only (``Guarded.read_only``); what does not exist yet cannot be bound, so a ``Baseline``
taken before a command notices when one appears and removes it. Without namespaces the baseline also keeps
the contents of the existing ones and puts them back (``Baseline.restore``): the fallback the docs describe.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

_GIT_FILES = ("config", "config.worktree", "hooks", "info", "commondir")
_ROOT_FILES = (".navtui", ".mcp.json", ".git")  # .git: only when it is a file (a worktree's pointer)
_ENV_TEMPLATES = (".example", ".sample", ".template", ".dist")
_MAX_FILES = 500
_MAX_BYTES = 4 << 20


def is_env_file(name: str) -> bool:
    return name.startswith(".env") and not name.lower().endswith(_ENV_TEMPLATES)


@dataclass(frozen=True)
class Guarded:
    read_only: tuple[Path, ...]  # exist: bound read-only, or restored after a command
    absent: tuple[Path, ...]  # do not exist: removed if a command creates them
    pins: tuple[Path, ...]  # bound onto themselves: a mount point cannot be renamed away
    env_dirs: tuple[Path, ...]  # where a new .env* file is removed


def _git_dirs_below(gitdir: Path) -> list[Path]:
    """Submodules' and linked worktrees' git dirs inside ``gitdir`` (modules nest)."""
    found: list[Path] = []
    worktrees = gitdir / "worktrees"
    with contextlib.suppress(OSError):
        found += [p for p in worktrees.iterdir() if p.is_dir()]
    pending = [gitdir / "modules"]
    while pending and len(found) < 200:
        current = pending.pop()
        with contextlib.suppress(OSError):
            for child in current.iterdir():
                if not child.is_dir() or child.is_symlink():
                    continue
                if (child / "HEAD").exists():
                    found.append(child)
                    pending.append(child / "modules")
                else:
                    pending.append(child)  # a module named a/b lives in modules/a/b
    return found


_HOOKS_CACHE: dict[Path, tuple[tuple[int, ...], Path | None]] = {}


def _config_stamp(root: Path) -> tuple[int, ...]:
    stamps = []
    for path in (root / ".git" / "config", Path.home() / ".gitconfig", Path.home() / ".config/git/config"):
        try:
            stamps.append(path.stat().st_mtime_ns)
        except OSError:
            stamps.append(0)
    return tuple(stamps)


def hooks_path(root: Path) -> Path | None:
    """The folder ``core.hooksPath`` names (asked again only when a config file changed)."""
    stamp = _config_stamp(root)
    cached = _HOOKS_CACHE.get(root)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found = _ask_hooks_path(root)
    _HOOKS_CACHE[root] = (stamp, found)
    return found


def _ask_hooks_path(root: Path) -> Path | None:
    """Through navtui's safe git (reading config runs nothing)."""
    from navtui.core.gitsafe import run_git

    try:
        out = run_git(["config", "--show-scope", "--get-all", "core.hooksPath"], root, timeout=5, read_only=True)
    except (OSError, TimeoutError, Exception):  # noqa: BLE001 - no git, no hooks path
        return None
    # The "command" scope is navtui's own pin (/dev/null): the files' value is what the user's git uses.
    values = [line.split("\t", 1)[1] for line in out.stdout.decode("utf-8", "replace").splitlines()
              if "\t" in line and not line.startswith("command\t")]  # fmt: skip
    text = values[-1].strip() if values else ""
    if not text or text == os.devnull:
        return None
    path = Path(os.path.expanduser(text))
    return (root / path).resolve() if not path.is_absolute() else path.resolve()


def guarded_paths(roots: tuple[Path, ...], git_dirs: tuple[Path, ...], *, hooks: Path | None = None) -> Guarded:
    read_only: list[Path] = []
    absent: list[Path] = []
    dirs = list(git_dirs)
    for gitdir in git_dirs:
        dirs += _git_dirs_below(gitdir)
    for gitdir in dirs:
        for name in _GIT_FILES:
            path = gitdir / name
            (read_only if os.path.lexists(path) else absent).append(path)
    for root in roots:
        for name in _ROOT_FILES:
            path = root / name
            if name == ".git" and (not path.is_file() or path.is_symlink()):
                continue
            (read_only if os.path.lexists(path) else absent).append(path)
        with contextlib.suppress(OSError):
            read_only += [root / n for n in os.listdir(root) if is_env_file(n)]
    if hooks is not None and hooks.is_dir():
        read_only.append(hooks)
    pins = [*roots, *(d for d in git_dirs if d.is_dir())]
    return Guarded(tuple(dict.fromkeys(read_only)), tuple(dict.fromkeys(absent)), tuple(dict.fromkeys(pins)), roots)


@dataclass
class _Entry:
    kind: str  # "file", "dir", "link"
    mode: int
    data: bytes | None = None  # None: too big to keep


@dataclass
class Baseline:
    """What the guarded paths held before a command; ``restore`` undoes a command's changes and says what."""

    guarded: Guarded
    contents: dict[Path, _Entry] = field(default_factory=dict)
    env_names: dict[Path, set[str]] = field(default_factory=dict)
    complete: bool = True  # False: something was too big to keep, it can only be reported

    @classmethod
    def take(cls, guarded: Guarded, *, contents: bool) -> Baseline:
        """``contents``: keep the bytes of every guarded file (no namespaces); else only what exists."""
        baseline = cls(guarded)
        for root in guarded.env_dirs:
            with contextlib.suppress(OSError):
                baseline.env_names[root] = {n for n in os.listdir(root) if is_env_file(n)}
        if contents:
            budget = [_MAX_FILES, _MAX_BYTES]
            for path in guarded.read_only:
                baseline._keep(path, budget)
        return baseline

    def _keep(self, path: Path, budget: list[int]) -> None:
        try:
            info = path.lstat()
        except OSError:
            return
        if budget[0] <= 0:
            self.complete = False
            return
        budget[0] -= 1
        if stat.S_ISLNK(info.st_mode):
            self.contents[path] = _Entry("link", 0, os.readlink(path).encode())
        elif stat.S_ISDIR(info.st_mode):
            self.contents[path] = _Entry("dir", stat.S_IMODE(info.st_mode))
            with contextlib.suppress(OSError):
                for child in sorted(path.iterdir()):
                    self._keep(child, budget)
        elif stat.S_ISREG(info.st_mode):
            data = None
            if info.st_size <= budget[1]:
                with contextlib.suppress(OSError):
                    data = path.read_bytes()
                    budget[1] -= len(data)
            self.complete = self.complete and data is not None
            self.contents[path] = _Entry("file", stat.S_IMODE(info.st_mode), data)

    def restore(self) -> list[str]:
        """Put guarded paths back as they were; one line per path changed (empty: nothing happened)."""
        changes: list[str] = []
        for path in self.guarded.absent:
            if os.path.lexists(path):
                _remove(path)
                changes.append(f"{path} (created; removed)")
        for root, before in self.env_names.items():
            with contextlib.suppress(OSError):
                for name in sorted({n for n in os.listdir(root) if is_env_file(n)} - before):
                    _remove(root / name)
                    changes.append(f"{root / name} (created; removed)")
        if self.contents:
            changes += self._restore_contents()
        return changes

    def _restore_contents(self) -> list[str]:
        changes: list[str] = []
        tops = [p for p in self.guarded.read_only if p in self.contents]
        for top in tops:
            if self.contents[top].kind == "dir":
                changes += self._remove_new(top)
        for path, entry in self.contents.items():
            note = self._put_back(path, entry)
            if note:
                changes.append(f"{path} ({note})")
        return changes

    def _remove_new(self, top: Path) -> list[str]:
        removed: list[str] = []
        for current, dirnames, filenames in os.walk(top, topdown=True):
            for name in [*filenames, *dirnames]:
                path = Path(current) / name
                if path not in self.contents:
                    _remove(path)
                    removed.append(f"{path} (created; removed)")
            dirnames[:] = [d for d in dirnames if Path(current, d) in self.contents]
        return removed

    @staticmethod
    def _put_back(path: Path, entry: _Entry) -> str | None:
        try:
            info: os.stat_result | None = path.lstat()
        except OSError:
            info = None
        if entry.kind == "dir":
            if info is not None and stat.S_ISDIR(info.st_mode):
                if stat.S_IMODE(info.st_mode) != entry.mode:
                    os.chmod(path, entry.mode)
                    return "permissions changed; restored"
                return None
            _remove(path)
            path.mkdir(mode=entry.mode, parents=True, exist_ok=True)
            return "replaced; restored"
        if entry.kind == "link":
            if info is not None and stat.S_ISLNK(info.st_mode) and os.readlink(path).encode() == entry.data:
                return None
            _remove(path)
            os.symlink((entry.data or b"").decode(), path)
            return "changed; restored"
        same = (
            info is not None
            and stat.S_ISREG(info.st_mode)
            and stat.S_IMODE(info.st_mode) == entry.mode
            and entry.data is not None
            and _read(path) == entry.data
        )
        if same:
            return None
        if entry.data is None:
            return "changed; too big to restore"
        existed = info is not None
        _remove(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, entry.mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(entry.data)
        os.chmod(path, entry.mode)
        return "changed; restored" if existed else "deleted; restored"


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
