"""One rule for everything navtui writes to stdout and stderr: on a terminal it is inert, in a pipe it is total.

``navtui.cli.main`` puts ``sys.stdout`` and ``sys.stderr`` behind ``GuardedStream`` before anything runs, so every
subcommand, ``--print``, warning, error, argparse message and traceback goes through it:

* on a terminal every write passes ``display_safe``: a session name, a file's content, a server's name or an
  exception message holding ``ESC ] 52`` shows as ``␛]52`` and never reaches the terminal as a sequence. The
  stream says it is not a terminal, so libraries that colour their output when writing to a terminal (Rich,
  argparse in 3.14) write plain text instead of escape codes that would be shown as text;
* into a pipe or a file the text stays as it was (data for the next program): a byte that was not UTF-8 goes out
  as that byte again (``surrogateescape``), any other lone surrogate as U+FFFD, never an encoding error.

navtui's own styled output (``navtui search``'s colours, ``navtui index``'s progress bar) writes to
``raw(stream)`` through a Rich console, and only text that went through ``display_safe``.

The full-screen app is not affected: Textual draws on ``sys.__stderr__`` and handles its own escaping.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO, cast

from navtui.core.display import display_safe

_NOT_ESCAPED_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


class GuardedStream(io.TextIOBase):
    """``stream`` with every write made inert (on a terminal) or encodable (elsewhere)."""

    def __init__(self, stream: TextIO, *, terminal: bool) -> None:
        self.raw = stream
        self.terminal = terminal

    def write(self, text: str) -> int:
        if self.terminal:
            self.raw.write(display_safe(text))
        else:
            if _NOT_ESCAPED_BYTE.search(text):
                text = _NOT_ESCAPED_BYTE.sub("\ufffd", text)
            self.raw.write(text)
        return len(text)

    def writelines(self, lines: object) -> None:
        for line in lines:  # type: ignore[attr-defined]
            self.write(line)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return False  # see the module docstring: no library should style what it writes here

    def fileno(self) -> int:
        return self.raw.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.raw.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.raw.errors

    @property
    def buffer(self) -> object:
        return self.raw.buffer


def is_terminal(stream: object) -> bool:
    """Whether ``stream`` (guarded or not) ends on a terminal."""
    if isinstance(stream, GuardedStream):
        return stream.terminal
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def raw(stream: TextIO) -> TextIO:
    """The stream under a guard: only for navtui's own styled output, of text that went through display_safe."""
    return stream.raw if isinstance(stream, GuardedStream) else stream


def _guard(stream: TextIO) -> TextIO:
    if isinstance(stream, GuardedStream):
        return stream
    terminal = is_terminal(stream)
    if not terminal and hasattr(stream, "reconfigure"):
        try:
            stream.reconfigure(errors="surrogateescape")
        except (ValueError, OSError):  # pragma: no cover - a stream that cannot change its error handler
            pass
    return cast(TextIO, GuardedStream(stream, terminal=terminal))


@contextmanager
def guarded_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` guarded for the duration (restored after: tests call ``main`` in-process)."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _guard(sys.stdout), _guard(sys.stderr)
    try:
        yield
    finally:
        for guarded in (sys.stdout, sys.stderr):
            try:
                guarded.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = saved
