"""The files a command must not change because git or navtui later run what they say.

``.git/config`` and its per-worktree and submodule siblings, ``hooks/``, ``info/``, the folder ``core.hooksPath``
names, the same in every other git dir found in the workspace (a nested repository), in each workspace root
``.navtui/`` and ``.mcp.json``, and ``.env*`` files at any depth. With namespaces the launcher binds the existing
ones read-only (``Guarded.read_only``); what does not exist yet cannot be bound, so a ``Baseline`` taken before a
command notices when one appears and removes it. Without namespaces the baseline also keeps the contents of the
existing ones and puts them back (``Baseline.restore``): the fallback the docs describe.

A git dir the command creates (``git init sub``, a ``.git`` file pointing elsewhere) was not there to bind: after
the command its hooks and the config keys that name programs are removed (``_defuse``). Every change undone is a
``GuardChange`` that remembers what the command left, so the user may keep it after all (``keep``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from navtui.core.fs import chmod_here

_GIT_FILES = ("config", "config.worktree", "hooks", "info", "commondir")
_ROOT_FILES = (".navtui", ".mcp.json", ".git")  # .git: only when it is a file (a worktree's pointer)
_ENV_TEMPLATES = (".example", ".sample", ".template", ".dist")
_MAX_FILES = 500
_MAX_BYTES = 4 << 20
# Not walked for .env* files and nested git dirs: what tools and package managers fill (a cost on every command).
_SKIP_DIRS = frozenset(
    {"node_modules", ".venv", "venv", "__pycache__", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
     "site-packages", ".cache", ".gradle", ".terraform"}
)  # fmt: skip
_MAX_DIRS = 3000  # about 100 ms of walking, before and after each command
# Config keys that make git run a program (or read config from elsewhere), in a git dir a command created.
_RUNS_PROGRAM = re.compile(
    r"^(core\.(fsmonitor|hookspath|sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand)"
    r"|sequence\.editor|diff\.external|gpg\.(.+\.)?program|credential\.(.+\.)?helper|pager\..+"
    r"|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver"
    r"|include\.path|includeif\..+\.path|remote\..+\.(uploadpack|receivepack|vcs)|uploadpack\.packobjectshook"
    r"|protocol\.(.+\.)?allow|(web|browser|man)\..*(cmd|browser|path))$",
    re.IGNORECASE,
)


def is_env_file(name: str) -> bool:
    return name.startswith(".env") and not name.lower().endswith(_ENV_TEMPLATES)


@dataclass(frozen=True)
class Scan:
    """What a walk of the workspace found: ``.env*`` files and git dirs (``.git`` folders and pointer files)."""

    env_files: frozenset[Path]
    git_entries: frozenset[Path]
    complete: bool  # False: the walk stopped at its limit (``_MAX_DIRS``)
    dirs: frozenset[str] = frozenset()  # the folders it read

    def new_since(self, before: Scan) -> tuple[list[Path], list[Path]]:
        """The ``.env*`` files and ``.git`` entries here that ``before`` did not have. When ``before`` stopped at
        its limit, only in folders it read: a file beyond it is not new, only unseen (it must not be removed)."""

        def seen(path: Path) -> bool:
            return before.complete or str(path.parent) in before.dirs

        env = sorted(p for p in self.env_files - before.env_files if seen(p))
        gits = sorted(p for p in self.git_entries - before.git_entries if seen(p))
        return env, gits


@dataclass(frozen=True)
class _Folder:
    """One folder as the walk last read it: trusted again while its ctime stays and was not racy."""

    ctime: int
    read_at: int  # time.time_ns() when read
    env: tuple[str, ...]
    gits: tuple[str, ...]
    subdirs: tuple[str, ...]


# Folder path -> what it held. A folder whose ctime is unchanged holds the same names (adding, removing or renaming
# an entry changes it, and unlike the mtime no command can set it back), so the walk stats it instead of reading it
# again; one changed within _RACY_NS of being read could have changed again in the same timestamp tick, so it is
# read again (git's "racily clean" rule).
_FOLDERS: dict[str, _Folder] = {}
_RACY_NS = 2_000_000_000


def _folder(path: str) -> _Folder | None:
    try:
        ctime = os.stat(path, follow_symlinks=False).st_ctime_ns
    except OSError:
        return None
    cached = _FOLDERS.get(path)
    if cached is not None and cached.ctime == ctime and cached.read_at - ctime > _RACY_NS:
        return cached
    env: list[str] = []
    gits: list[str] = []
    subdirs: list[str] = []
    read_at = time.time_ns()
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                name = entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if name == ".git":
                    gits.append(entry.path)
                elif is_dir:
                    if name not in _SKIP_DIRS:
                        subdirs.append(entry.path)
                elif is_env_file(name):
                    env.append(entry.path)
    except OSError:
        return None
    if len(_FOLDERS) > 4 * _MAX_DIRS:
        _FOLDERS.clear()
    found = _Folder(ctime, read_at, tuple(env), tuple(gits), tuple(subdirs))
    _FOLDERS[path] = found
    return found


def scan(roots: tuple[Path, ...]) -> Scan:
    """Every ``.env*`` file and ``.git`` entry below ``roots`` (symlinks not followed, ``_SKIP_DIRS`` skipped)."""
    env: list[str] = []
    gits: list[str] = []
    walked: set[str] = set()
    pending = [str(root) for root in roots]
    complete = True
    while pending:
        if len(walked) >= _MAX_DIRS:
            complete = False
            break
        current = pending.pop()
        walked.add(current)
        folder = _folder(current)
        if folder is None:
            continue
        env += folder.env
        gits += folder.gits
        pending += folder.subdirs
    return Scan(frozenset(map(Path, env)), frozenset(map(Path, gits)), complete, frozenset(walked))


@dataclass(frozen=True)
class Guarded:
    read_only: tuple[Path, ...]  # exist: bound read-only, or restored after a command
    absent: tuple[Path, ...]  # do not exist: removed if a command creates them
    pins: tuple[Path, ...]  # bound onto themselves: a mount point cannot be renamed away
    env_dirs: tuple[Path, ...]  # the workspace roots: where a new .env* file or git dir is looked for
    found: Scan | None = None  # the walk these were taken from (None: not walked)
    git_dirs: frozenset[Path] = frozenset()  # every git dir guarded (resolved): never changed after a command


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
    found = scan(roots)
    nested = [p for p in sorted(found.git_entries) if p.is_dir() and not p.is_symlink()]
    dirs = [*git_dirs, *(d for d in nested if d.resolve() not in git_dirs)]
    for gitdir in list(dirs):
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
    read_only += sorted(p for p in found.git_entries if p.is_file() or p.is_symlink())  # pointers: gitdir: ...
    read_only += sorted(found.env_files)
    if hooks is not None and hooks.is_dir():
        read_only.append(hooks)
    pins = [*roots, *(d for d in git_dirs if d.is_dir())]
    return Guarded(
        tuple(dict.fromkeys(read_only)),
        tuple(dict.fromkeys(absent)),
        tuple(dict.fromkeys(pins)),
        roots,
        found,
        frozenset(d.resolve() for d in dirs),
    )


@dataclass
class _Entry:
    kind: str  # "file", "dir", "link"
    mode: int
    data: bytes | None = None  # None: too big to keep
    stamp: tuple[int, int] = (0, 0)  # a file's size and ctime (how a file too big to keep is compared)


def _snapshot(path: Path, budget: list[int] | None = None) -> list[tuple[Path, _Entry]] | None:
    """``path`` and what is below it, parents first; [] when it does not exist; None when too big to keep."""
    budget = budget if budget is not None else [_MAX_FILES, _MAX_BYTES]
    out: list[tuple[Path, _Entry]] = []
    pending = [path]
    while pending:
        current = pending.pop(0)
        try:
            info = current.lstat()
        except OSError:
            continue
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if stat.S_ISLNK(info.st_mode):
            out.append((current, _Entry("link", 0, os.readlink(current).encode())))
        elif stat.S_ISDIR(info.st_mode):
            out.append((current, _Entry("dir", stat.S_IMODE(info.st_mode))))
            with contextlib.suppress(OSError):
                pending += sorted(current.iterdir())
        elif stat.S_ISREG(info.st_mode):
            data = _read(current) if info.st_size <= budget[1] else None
            if data is None:
                return None
            budget[1] -= len(data)
            out.append((current, _Entry("file", stat.S_IMODE(info.st_mode), data)))
    return out


def _put(path: Path, entry: _Entry) -> None:
    """Make ``path`` what ``entry`` says (a directory keeps what is in it)."""
    try:
        info: os.stat_result | None = path.lstat()
    except OSError:
        info = None
    if entry.kind == "dir" and info is not None and stat.S_ISDIR(info.st_mode):
        chmod_here(path, entry.mode)
        return
    _remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if entry.kind == "dir":
        path.mkdir(mode=entry.mode)
        chmod_here(path, entry.mode)
    elif entry.kind == "link":
        os.symlink((entry.data or b"").decode("utf-8", "surrogateescape"), path)
    else:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, entry.mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(entry.data or b"")
            os.fchmod(handle.fileno(), entry.mode)


@dataclass
class GuardChange:
    """One thing a command did to a guarded path, undone; ``left`` is what the command had left there
    ([]: it deleted the path; None: too big to keep, so it cannot be kept)."""

    path: Path
    note: str  # "changed; restored", "created; removed", ...
    left: list[tuple[Path, _Entry]] | None

    def __str__(self) -> str:
        return f"{self.path} ({self.note})"


def keep(changes: list[GuardChange]) -> list[str]:
    """Put back what the command had left (the user chose to keep its change); the paths that could not be."""
    failed: list[str] = []
    for change in changes:
        if change.left is None:
            failed.append(f"{change.path} (too big to have been kept)")
            continue
        try:
            if not change.left:
                _remove(change.path)
            for path, entry in change.left:
                _put(path, entry)
        except OSError as exc:
            failed.append(f"{change.path} ({exc.strerror or exc})")
    return failed


@dataclass
class Baseline:
    """What the guarded paths held before a command; ``restore`` undoes a command's changes and says what."""

    guarded: Guarded
    contents: dict[Path, _Entry] = field(default_factory=dict)
    complete: bool = True  # False: something was too big to keep, it can only be reported
    # Where each kept path's folder really was (links resolved). A command may put a link in a folder's place
    # (`mv .git x && ln -s ~/.ssh .git`): putting .git/config back through it removed ~/.ssh/config and wrote the
    # git config there, navtui doing it, outside the sandbox. Such a path is left as it is and named.
    folders: dict[Path, str] = field(default_factory=dict)

    @classmethod
    def take(cls, guarded: Guarded, *, contents: bool) -> Baseline:
        """``contents``: keep the bytes of every guarded file (no namespaces); else only what exists."""
        baseline = cls(guarded)
        for path in guarded.absent:
            baseline.folders.setdefault(path.parent, os.path.realpath(path.parent))
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
        self.folders.setdefault(path.parent, os.path.realpath(path.parent))
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
            stamp = (info.st_size, info.st_ctime_ns)
            self.contents[path] = _Entry("file", stat.S_IMODE(info.st_mode), data, stamp)

    def restore(self) -> list[GuardChange]:
        """Put guarded paths back as they were; one change per path (empty: nothing happened)."""
        changes: list[GuardChange] = []
        for path in self.guarded.absent:
            if not self._folder_kept(path):
                continue  # a link now: what is there is not the workspace's (named below if it mattered)
            if os.path.lexists(path):
                changes.append(_undo_creation(path))
        before = self.guarded.found
        after = scan(self.guarded.env_dirs) if before is not None else None
        if before is not None and after is not None:
            new_env, new_git = after.new_since(before)
            changes += [_undo_creation(path) for path in new_env]
            for entry in new_git:
                changes += _defuse(entry, self.guarded)
        if self.contents:
            changes += self._restore_contents()
        return changes

    def _restore_contents(self) -> list[GuardChange]:
        changes: list[GuardChange] = []
        tops = [p for p in self.guarded.read_only if p in self.contents]
        for top in tops:
            if self.contents[top].kind == "dir" and self._folder_kept(top):
                changes += self._remove_new(top)
        for path, entry in self.contents.items():
            if not self._folder_kept(path):
                changes.append(GuardChange(path, "its folder is a link now; left as it is", None))
                continue
            if not _differs(path, entry):
                continue
            left = _snapshot(path)
            note = self._put_back(path, entry)
            if note:
                changes.append(GuardChange(path, note, left if entry.kind != "dir" else (left or [])[:1]))
        return changes

    def _folder_kept(self, path: Path) -> bool:
        """Whether ``path``'s folder is still where it was at the baseline (no link put in its place)."""
        return os.path.realpath(path.parent) == self.folders.get(path.parent)

    def _remove_new(self, top: Path) -> list[GuardChange]:
        removed: list[GuardChange] = []
        if top.is_symlink() or not top.is_dir():
            # Put back whole by _put_back. A link walked here would have navtui (unsandboxed) remove what it
            # points to: `mv .navtui x && ln -s ~ .navtui` emptied the home folder but for the names kept.
            return removed
        for current, dirnames, filenames in os.walk(top, topdown=True):
            for name in [*filenames, *dirnames]:
                path = Path(current) / name
                if path not in self.contents:
                    removed.append(_undo_creation(path))
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
                    chmod_here(path, entry.mode)
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
            os.fchmod(handle.fileno(), entry.mode)
        return "changed; restored" if existed else "deleted; restored"


def _differs(path: Path, entry: _Entry) -> bool:
    """Is ``path`` no longer what ``entry`` kept (for a directory: itself, not what is in it)?"""
    try:
        info = path.lstat()
    except OSError:
        return True
    if entry.kind == "dir":
        return not stat.S_ISDIR(info.st_mode) or stat.S_IMODE(info.st_mode) != entry.mode
    if entry.kind == "link":
        return not stat.S_ISLNK(info.st_mode) or os.readlink(path).encode() != entry.data
    if not stat.S_ISREG(info.st_mode) or stat.S_IMODE(info.st_mode) != entry.mode:
        return True
    if entry.data is None:
        return (info.st_size, info.st_ctime_ns) != entry.stamp
    return info.st_size != len(entry.data) or _read(path) != entry.data


def _undo_creation(path: Path) -> GuardChange:
    left = _snapshot(path)
    _remove(path)
    return GuardChange(path, "created; removed", left)


def _defuse(dotgit: Path, guarded: Guarded) -> list[GuardChange]:
    """A ``.git`` the command created: remove from its git dir what git would run (hooks, config keys that name
    programs), so neither git nor the user's next ``git commit`` runs what the command left there. A git dir that
    was guarded before (the main one, which a new worktree's ``commondir`` names) is never touched; a ``.git`` file
    pointing outside the workspace at a git dir that would run something is removed instead (that git dir may be
    the user's own)."""
    if dotgit.is_symlink():
        return [_undo_creation(dotgit)]
    if dotgit.is_dir():
        return [c for folder in [dotgit, *_git_dirs_below(dotgit)] for c in _defuse_folder(folder, guarded)]
    from navtui.core.gitsafe import pointed_git_dir

    gitdir = pointed_git_dir(dotgit)
    if gitdir is None or not gitdir.is_dir():
        return []
    known = guarded.git_dirs
    inside = any(gitdir.is_relative_to(p) for p in (*guarded.env_dirs, *known))
    if gitdir in known:
        return []
    if not inside:
        if any(_dangers(folder) != ([], []) for folder in [gitdir, *_git_dirs_below(gitdir)]):
            change = _undo_creation(dotgit)
            change.note = f"points at {gitdir}, outside the workspace, whose hooks or settings run programs; removed"
            return [change]
        return []
    return [c for folder in [gitdir, *_git_dirs_below(gitdir)] for c in _defuse_folder(folder, guarded)]


def _dangers(folder: Path) -> tuple[list[Path], list[str]]:
    """The hooks git would run from ``folder`` and its config keys that name programs."""
    hooks: list[Path] = []
    if (folder / "hooks").is_symlink():
        # The link is the danger (git runs hooks from wherever it points), and it is what goes: listing the
        # folder it points to had navtui remove the user's own files there (hooks -> ~/bin emptied ~/bin).
        hooks = [folder / "hooks"]
    else:
        with contextlib.suppress(OSError):
            hooks = [
                h for h in sorted((folder / "hooks").iterdir()) if not h.name.endswith(".sample") and not h.is_dir()
            ]
    keys = [key for name in ("config", "config.worktree") for key in _program_keys(folder / name)]
    return hooks, keys


def _defuse_folder(folder: Path, guarded: Guarded) -> list[GuardChange]:
    if folder.resolve() in guarded.git_dirs:
        return []
    changes: list[GuardChange] = []
    hooks, _ = _dangers(folder)
    for hook in hooks:
        left = _snapshot(hook)
        _remove(hook)
        changes.append(GuardChange(hook, "a hook in a git dir the command created; removed", left))
    for name in ("config", "config.worktree"):
        change = _defuse_config(folder / name)
        if change is not None:
            changes.append(change)
    return changes


def _program_keys(config: Path) -> list[str]:
    """The keys of ``config`` that make git run a program or read other config (``git config``: runs nothing)."""
    from navtui.core.gitsafe import run_git

    if not config.is_file() or config.is_symlink():
        return []
    listed = run_git(["config", "--file", str(config), "--null", "--list"], config.parent, read_only=True)
    keys: list[str] = []
    for record in listed.stdout.split(b"\0"):
        raw, _, value = record.partition(b"\n")
        name = raw.decode("utf-8", "replace")
        if name and (_RUNS_PROGRAM.match(name) or value.lstrip().startswith(b"ext::")) and name not in keys:
            keys.append(name)
    return keys


def _defuse_config(config: Path) -> GuardChange | None:
    """Unset the keys of ``config`` that make git run a program."""
    from navtui.core.gitsafe import run_git

    keys = _program_keys(config)
    if not keys:
        return None
    left = _snapshot(config)
    for key in keys:
        run_git(["config", "--file", str(config), "--unset-all", key], config.parent)
    return GuardChange(config, f"set {', '.join(keys)} in a git dir the command created; removed", left)


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
