"""Small filesystem helpers shared by every layer that writes files.

Whole-file writes go through a temp file beside the target, fsync and rename, so the target is always the old
or the new version. A crash between the temp file and the rename would leave the temp file behind forever
(``.name.x8a2.tmp`` in the user's repository); so every temp file is first noted in this process's journal,
and the next start removes the ones whose process is gone (``recover_temp_files``).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

from navtui.core.crash import crash_point

TEMP_SUFFIX = ".tmp"
_WRITE_TEMP = re.compile(r"\..+\.[A-Za-z0-9_]{8}\.tmp")


def is_write_temp(name: str) -> bool:
    """Whether ``name`` is the temp file of an atomic write in progress (``.calc.py.1f2e3d4c.tmp``).

    A checkpoint's walk that ran while the write tool wrote big.txt listed ``.big.txt.f553bdf4.tmp`` as a file
    too large to keep (seen once at load ~2); such a file is renamed or removed a moment later."""
    return _WRITE_TEMP.fullmatch(name) is not None


def atomic_write_bytes(
    path: Path, data: bytes, *, mode: int | None = None, inside: Sequence[Path] | None = None
) -> None:
    """Write via a temp file in the same directory, fsync, then rename over ``path``.

    The existing file's permission bits are kept unless ``mode`` is given. With ``inside`` (the workspace's
    roots), the folder is opened first and must be one of theirs as opened (``_write_in_folder``).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_in_folder(path, data, mode, inside)


def _forget_bytecode(folder: int, stem: str) -> None:
    """Remove ``__pycache__/<stem>.*.pyc`` beside a Python file just written.

    Python takes a compiled module as current when its source has the same size and the same mtime in whole
    seconds: a file written twice in one second with the same length (``a * b`` fixed to ``a + b``) ran its old
    code, and the agent's check said the fix had failed (seen in tests/agent/test_check.py once the suite's
    interpreters wrote bytecode). Through the folder's descriptor, never following a link."""
    try:
        cache = os.open("__pycache__", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return
    try:
        for name in os.listdir(cache):
            if name.startswith(stem + ".") and name.endswith(".pyc"):
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=cache)
    finally:
        os.close(cache)


def _write_in_folder(path: Path, data: bytes, mode: int | None, inside: Sequence[Path] | None) -> None:
    """The write of ``atomic_write_bytes``, through an open descriptor of ``path``'s folder.

    The file tools check that a path lies in the workspace, then write; a background command may replace a
    folder on the way with a link in between (``mv d d2; ln -s ~ d``), and the write (navtui's, not sandboxed)
    then landed in the home folder: ``d/.bashrc`` became ``~/.bashrc``. Here the folder is opened once, where it
    really is (``/proc/self/fd``) is checked against ``inside``, and the temp file and the rename go through that
    descriptor, so a swap after the check changes nothing.
    """
    try:
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except PermissionError:  # a folder this user may write in but not list (mode 0300): as a handle only
        if not hasattr(os, "O_PATH"):
            raise
        folder = os.open(path.parent, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        real = _where(folder, path.parent)
        if inside is not None and not any(real == root or real.is_relative_to(root) for root in inside):
            raise OSError(errno.EXDEV, f"{path.parent} is now {real}, outside the workspace (a link put in its place)")
        if mode is None:
            with contextlib.suppress(FileNotFoundError):
                mode = os.stat(path.name, dir_fd=folder).st_mode & 0o7777
        temp = f".{path.name}.{os.urandom(4).hex()}{TEMP_SUFFIX}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
        _journal.note(str(real / temp))
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                crash_point("write:after_temp_write")
                os.fsync(handle.fileno())
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
            crash_point("write:after_temp_fsync")
            os.replace(temp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
            crash_point("write:after_rename")
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=folder)
            raise
        if path.suffix == ".py":
            _forget_bytecode(folder, path.stem)
        with contextlib.suppress(OSError):
            os.fsync(folder)
    finally:
        os.close(folder)


def _where(folder: int, name: Path) -> Path:
    """Where the open folder really is (``/proc/self/fd``); without /proc (macOS), its name resolved now."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{folder}"))
    except OSError:
        return name.resolve()


def chmod_here(path: Path, mode: int) -> None:
    """chmod of the file or folder itself, never through a link put in its place since it was looked at.

    navtui's own restores (``/undo``, the sandbox guard's undo) run unconfined: a background job that swapped
    ``run.sh`` for ``-> ~/.ssh/id_ed25519`` while the undo dialog was open had the key's mode set to 0644.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "it is a link now; not changed through it") from None
        if exc.errno != errno.EACCES or os.path.islink(path):
            raise
        os.chmod(path, mode)  # a file this user may not read (mode 000): by name, just checked not to be a link
        return
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def make_temp(target: Path) -> tuple[int, str]:
    """A new temp file beside ``target`` (``.name.XXXX.tmp``), noted in the journal: (open fd, path)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent)
    _journal.note(tmp)
    return fd, tmp


_FULL = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "the file would be larger than this system allows (a file size limit, or a full disk)",
}


def write_error_text(exc: OSError) -> str:
    """Why a write failed, in words that say what to do about a full disk."""
    return _FULL.get(exc.errno or 0) or exc.strerror or str(exc)


def fsync_dir(directory: Path) -> None:
    """Make a rename or a new file in ``directory`` durable (best effort: some filesystems refuse)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class _TempJournal:
    """This process's list of temp files, in ``<dir>/<pid>.tmps``, locked for as long as the process lives.

    A journal whose lock can be taken belongs to a process that is gone: the temp files it lists that still
    exist were never renamed into place, so they are debris. Appending a line costs one ``write``; the
    journal is not fsynced (after a power cut the temp file's data is not durable either).
    """

    def __init__(self) -> None:
        self._directory: Path | None = None
        self._fd: int | None = None
        self._at_exit = False

    def open(self, directory: Path) -> None:
        if self._directory == directory and self._fd is not None:
            return
        self.close()
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(directory / f"{os.getpid()}{TEMP_SUFFIX}s", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError:
            return  # no journal: writes still work, only the clean-up after a crash is lost
        fcntl.flock(fd, fcntl.LOCK_EX)
        self._directory, self._fd = directory, fd
        if not self._at_exit:  # a clean exit leaves no journal behind (a crash does: the next start reads it)
            atexit.register(self.close)
            self._at_exit = True

    def note(self, tmp: str) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.write(self._fd, os.fsencode(os.path.abspath(tmp)) + b"\n")

    def close(self) -> None:
        """Forget the journal (its temp files were all renamed or removed by now)."""
        if self._fd is None or self._directory is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self._directory / f"{os.getpid()}{TEMP_SUFFIX}s")
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = self._directory = None


_journal = _TempJournal()


def open_temp_journal(directory: Path) -> None:
    """Note every temp file this process creates from now on in a journal under ``directory``."""
    _journal.open(directory)


def recover_temp_files(directory: Path) -> list[Path]:
    """Remove the temp files left by navtui processes that died mid-write; returns the ones removed."""
    removed: list[Path] = []
    try:
        journals = [p for p in directory.iterdir() if p.name.endswith(f"{TEMP_SUFFIX}s")]
    except OSError:
        return removed
    for journal in journals:
        try:
            fd = os.open(journal, os.O_RDONLY)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # its process is still running
            with open(fd, "rb", closefd=False) as handle:
                listed = handle.read().split(b"\n")
            for raw in listed:
                tmp = Path(os.fsdecode(raw)) if raw else None
                if tmp is None or not (tmp.name.startswith(".") and tmp.name.endswith(TEMP_SUFFIX)):
                    continue
                try:
                    tmp.unlink()
                except OSError:
                    continue  # renamed into place (gone), or not ours to remove
                removed.append(tmp)
            with contextlib.suppress(OSError):
                journal.unlink()
        finally:
            os.close(fd)
    return removed
