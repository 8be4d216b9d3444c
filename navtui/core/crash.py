"""Named crash points for the reliability tests: ``NAVTUI_CRASH_AT=<label>`` kills the process right there.

Test-only. The variable is read once, at import; when it is unset (always, outside the tests) a crash point is
one comparison with ``None``. The process dies with ``os._exit(137)``, the status of a SIGKILL: no ``finally``,
no ``atexit``, no buffered write flushed, exactly what a power cut or ``kill -9`` leaves behind.

Labels in use (docs/reliability.md lists them): ``write:after_temp_write``, ``write:after_temp_fsync``,
``write:after_rename`` (every whole-file write: edits, writes, settings, blobs); ``session:after_temp_write``,
``session:after_temp_fsync``, ``session:after_link`` (a new session file); ``append:before_write`` (a session
line); ``tool:after_spawn`` (a shell command has started).
"""

from __future__ import annotations

import os

CRASH_ENV = "NAVTUI_CRASH_AT"
CRASH_STATUS = 137
_TARGET = os.environ.get(CRASH_ENV) or None


def crash_point(label: str) -> None:
    """Die here if the tests asked for it (``NAVTUI_CRASH_AT=label``); otherwise do nothing."""
    if _TARGET is not None and label == _TARGET:
        os._exit(CRASH_STATUS)
