"""The single funnel from entries to the session file: blobs out, secrets masked, written or kept for retry.

The file is created on the first write (header included, atomically, never over an existing file). A file
read in an old format (pi v1/v2) is rewritten as v3 before navtui's first entry goes into it, under the
lock, only if it is still exactly as read, and with any unreadable lines kept verbatim. A write that fails
leaves the entry queued in memory; the next write retries the queue first, in order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navtui.core.errors import NavtuiError
from navtui.session.blobs import externalize
from navtui.session.entries import Entry, SessionHeader
from navtui.session.redact import env_secrets, mask_value, might_hold_secret
from navtui.session.store import FileStamp, FileVanished, SessionFile, encode_line


def encode_record(record: dict[str, Any]) -> bytes:
    """One entry's line as it goes to disk."""
    record = externalize(record)
    line = encode_line(record)
    literals = env_secrets()
    if might_hold_secret(line.decode("utf-8", "replace"), literals):
        line = encode_line(mask_value(record, literals))
    return line


def decode(line: bytes | None) -> dict[str, Any] | None:
    if line is None:
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@dataclass
class _Migration:
    stamp: FileStamp
    header_line: int
    entry_lines: list[int]  # the file line of each loaded entry, in order


class EntryWriter:
    def __init__(self, path: Path, header: SessionHeader, entries: list[Entry]) -> None:
        self.path = path
        self.header = header
        self.error: NavtuiError | None = None
        self.error_is_new = False
        self._entries = entries  # the manager's list, shared: used to rebuild a file that vanished
        self._file = SessionFile(path)
        self._state = "new"  # new: no file yet | empty: an empty file to start in | ready
        self._queue: list[bytes] = []
        self._migration: _Migration | None = None

    @property
    def unsaved_count(self) -> int:
        return len(self._queue)

    def adopt_empty_file(self) -> None:
        self._state = "empty"

    def adopt_existing(
        self, stamp: FileStamp, *, header_line: int | None, entry_lines: list[int], migrated: bool
    ) -> None:
        self._state = "ready"
        if migrated and header_line is not None:
            self._migration = _Migration(stamp, header_line, entry_lines)

    def encode(self, entry: Entry) -> bytes:
        return encode_record(entry.to_json())

    def write(self, line: bytes) -> None:
        self._queue.append(line)
        self._flush()

    def write_new_file(self) -> None:
        """Create the file with the header and every entry at once (a branched copy)."""
        try:
            self._file.create(self._header_line() + b"".join(self.encode(entry) for entry in self._entries))
        except OSError as exc:
            raise NavtuiError(f"Could not write the session {self.path}: {exc.strerror or exc}") from None
        self._state = "ready"

    def sync(self) -> None:
        if self._queue and not self._flush():
            assert self.error is not None
            raise self.error
        try:
            self._file.sync()
        except OSError as exc:
            raise NavtuiError(f"Could not save the session to {self.path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        self._file.close()

    # ------------------------------------------------------------------ internals
    def _flush(self) -> bool:
        self.error_is_new = False
        data = b"".join(self._queue)
        try:
            if self._state == "new":
                self._file.create(self._header_line() + data)
            elif self._state == "empty":
                self._file.append(self._header_line() + data)
            else:
                if self._migration is not None:
                    self._rewrite_migrated()
                self._file.append(data)
        except FileVanished:
            return self._recreate()
        except (OSError, NavtuiError) as exc:
            self._latch(exc)
            return False
        self._state = "ready"
        self._queue.clear()
        self.error = None
        return True

    def _recreate(self) -> bool:
        """The file was deleted under us: write it again from memory rather than lose the session."""
        self._migration = None
        self._state = "new"
        self._queue = [self.encode(entry) for entry in self._entries]
        try:
            self._file.create(self._header_line() + b"".join(self._queue))
        except OSError as exc:
            self._latch(exc)
            return False
        self._state = "ready"
        self._queue.clear()
        self.error = None
        return True

    def _rewrite_migrated(self) -> None:
        migration = self._migration
        assert migration is not None
        loaded = self._entries[: len(migration.entry_lines)]
        replacements = {migration.header_line: self._header_line()[:-1]}
        for line_number, entry in zip(migration.entry_lines, loaded, strict=True):
            replacements[line_number] = self.encode(entry)[:-1]

        def transform(data: bytes) -> bytes:
            parts = data.split(b"\n")
            if parts[-1] == b"":
                parts.pop()
            for line_number, line in replacements.items():
                parts[line_number] = line  # lines that did not decode are kept as they were
            return b"\n".join(parts) + b"\n"

        self._file.replace(transform, migration.stamp)
        self._migration = None

    def _header_line(self) -> bytes:
        return encode_line(self.header.to_json())

    def _latch(self, exc: Exception) -> None:
        reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
        self.error_is_new = self.error is None
        self.error = NavtuiError(
            f"Could not save the session to {self.path}: {reason}",
            hint="the entries are kept in memory and written with the next one; free disk space or check permissions",
        )
