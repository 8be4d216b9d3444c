"""What navtui does to its own process at start so a command it runs cannot read its secrets.

- Not dumpable (``PR_SET_DUMPABLE`` 0): another process of the same user can no longer read navtui's
  ``/proc/<pid>/environ`` or ``mem``, nor attach a debugger; no core file holds the keys.
- The provider keys' values are overwritten in the environment block the kernel shows as
  ``/proc/<pid>/environ`` (and that ``getenv`` and children started without an explicit environment use).
  ``os.environ``, copied at interpreter start, keeps them for navtui's own providers.

Root keeps ``CAP_SYS_PTRACE`` and could still read a non-dumpable process: the second point covers that, and
sandboxed commands get their own PID namespace, where navtui does not exist (docs/trust.md).
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Iterable

_PR_SET_DUMPABLE = 4


def protect_process(secret_names: Iterable[str]) -> list[str]:
    """Make this process non-dumpable and wipe ``secret_names`` in its initial environment; returns the names
    wiped. Does nothing off Linux."""
    if not sys.platform.startswith("linux"):
        return []
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return []
    libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    libc.getenv.restype = ctypes.c_void_p
    libc.getenv.argtypes = [ctypes.c_char_p]
    libc.strlen.restype = ctypes.c_size_t
    libc.strlen.argtypes = [ctypes.c_void_p]
    wiped = []
    for name in secret_names:
        value = libc.getenv(name.encode())
        if value:
            ctypes.memset(value, ord("x"), libc.strlen(value))
            wiped.append(name)
    return wiped
