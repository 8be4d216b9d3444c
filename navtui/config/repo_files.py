"""Reading a file that a repository ships and navtui reads by itself (AGENTS.md, WATCHDOG.md and what it imports,
custom commands): only a regular file that lies inside the repository.

No tool call and no approval stands between such a file and the model. git keeps symbolic links, so a cloned
repository can ship ``AGENTS.md -> /proc/self/environ`` (navtui's environment: tokens, passwords) or
``-> ../../.netrc`` (a file the read tool would ask about); a command the model ran can leave a named pipe
(``mkfifo AGENTS.md``), which blocks whoever opens it until a writer comes. So the path is resolved and must land
inside the repository, and the file is opened without blocking and must be a regular file. The user's own files
(``~/.navtui/AGENTS.md``) pass ``inside=None``: they may point anywhere, but must still be regular files.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class RefusedFile(OSError):
    """A file navtui will not read; ``str()`` says why, as the end of a sentence naming the file."""

    def __str__(self) -> str:
        return self.strerror or "refused"


def read_regular(path: Path, limit: int, *, inside: Path | None) -> tuple[bytes, int]:
    """The first ``limit`` bytes of ``path`` and its size on disk.

    With ``inside`` (a repository's root), ``path`` must resolve, links followed, to a file under it. Raises
    ``FileNotFoundError`` and the other ``OSError``s of opening it, and ``RefusedFile`` for a link out of ``inside``
    or a file that is not a regular one (a named pipe, a device, a folder).
    """
    target = path
    if inside is not None:
        target = path.resolve()
        if not target.is_relative_to(inside.resolve()):
            if not path.exists():
                raise FileNotFoundError(errno.ENOENT, "no such file", str(path))
            raise RefusedFile(errno.EACCES, f"is a link to {target}, outside {inside}: not read")
    # O_NONBLOCK: opening a named pipe does not wait for a writer; O_NOFOLLOW: the resolved path is opened as it
    # was checked, not through a link put in its place since (its folders are not checked again).
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_NOFOLLOW if inside is not None else 0)
    fd = os.open(target, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(errno.EINVAL, "is not a regular file (a named pipe, a device or a folder): not read")
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data, max(len(data), info.st_size)
    finally:
        os.close(fd)
