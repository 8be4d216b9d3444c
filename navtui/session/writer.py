"""The single funnel from entries to the session file: blobs out, secrets masked, written or kept for retry.

The file is created on the first write (header included, atomically, never over an existing file). A file
read in an old format (pi v1/v2) is never rewritten: before navtui's first entry, its migrated lines go into
a new v3 file beside it whose header's ``parentSession`` names the original, and navtui continues there. A
write that fails leaves the entry queued in memory; the next write retries the queue first, in order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navtui.core.errors import NavtuiError
from navtui.core.fs import write_error_text
from navtui.core.secrets import env_secrets
from navtui.session.blobs import externalize
from navtui.session.entries import CURRENT_VERSION, Entry, SessionHeader, now_iso
from navtui.session.interop import is_title_slot
from navtui.session.listing import new_session_id, new_session_path
from navtui.session.redact import holds_secret, mask_value
from navtui.session.store import FileVanished, SessionFile, encode_line


def encode_record(record: dict[str, Any], *, blobs: bool = True) -> bytes:
    """One entry's line as it goes to disk (large images as blob references when ``blobs``)."""
    if blobs:
        record = externalize(record)
    literals = env_secrets()
    return encode_line(mask_value(record, literals) if holds_secret(record, literals) else record)


def decode(line: bytes | None) -> dict[str, Any] | None:
    if line is None:
        return None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


@dataclass
class Migration:
    """A v1/v2 file read and migrated in memory: what goes into its v3 continuation."""

    version: int  # the original's format version
    records: list[dict[str, Any]]  # the migrated lines after the header, in file order, every field kept


class EntryWriter:
    def __init__(self, path: Path, header: SessionHeader, entries: Iterable[Entry], *, blobs: bool = True) -> None:
        self.path = path
        self.header = header
        self.blobs = blobs  # large images go to the blob store (navtui's own files); inline otherwise
        self.error: NavtuiError | None = None
        self.error_is_new = False
        self.moved_from: Path | None = None  # set when a migrated file was continued in a new one
        self._entries = entries  # the manager's index, shared: used to rebuild a file that vanished
        self._file = SessionFile(path)
        self._state = "new"  # new: no file yet | empty: an empty file to start in | ready
        self._queue: list[bytes] = []
        self._migration: Migration | None = None

    @property
    def unsaved_count(self) -> int:
        return len(self._queue)

    @property
    def migration_pending(self) -> Migration | None:
        return self._migration

    def adopt_empty_file(self) -> None:
        self._state = "empty"

    def adopt_existing(self, migration: Migration | None = None) -> None:
        self._state = "ready"
        self._migration = migration

    def encode(self, entry: Entry) -> bytes:
        return encode_record(entry.to_json(), blobs=self.blobs)

    def overwrite_title_slot(self, line: bytes) -> bool:
        """Rewrite omp's fixed-width title slot in place (False when the file no longer starts with one)."""
        if self._state != "ready" or self._migration is not None:
            return False
        try:
            return self._file.overwrite_head(line, is_title_slot)
        except (OSError, NavtuiError):
            return False

    def original_lines(self) -> dict[str, bytes]:
        """The lines of the file (or of its pending migration) by entry id, first occurrence, as stored."""
        if self._migration is not None:
            records = self._migration.records
            return {r["id"]: encode_line(r) for r in reversed(records) if isinstance(r.get("id"), str)}
        try:
            data = self.path.read_bytes()
        except OSError:
            return {}
        lines: dict[str, bytes] = {}
        for line in data.split(b"\n"):
            record = decode(line)
            if record is not None and isinstance(record.get("id"), str) and record.get("type") != "session":
                lines.setdefault(record["id"], line + b"\n")
        return lines

    def write(self, line: bytes) -> None:
        self._queue.append(line)
        self._flush()

    def write_new_file(self, originals: dict[str, bytes] | None = None) -> None:
        """Create the file with the header and every entry at once (a branched copy).

        An entry found in ``originals`` with the same parent is copied as that line, byte for byte.
        """
        originals = originals or {}

        def line(entry: Entry) -> bytes:
            original = originals.get(entry.id) if entry.id is not None else None
            if original is None:
                return self.encode(entry)
            record = decode(original)
            if record is not None and record.get("parentId") == entry.parent_id:
                return original
            return encode_line({**(record or entry.to_json()), "parentId": entry.parent_id})

        try:
            self._file.create(self._header_line() + b"".join(line(entry) for entry in self._entries))
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
            elif self._migration is not None:
                self._continue_migrated(data)
            else:
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

    def _continue_migrated(self, data: bytes) -> None:
        """Write the migrated history and ``data`` to a new v3 file beside the original, which stays as it was."""
        migration = self._migration
        assert migration is not None
        original = self.path
        session_id = new_session_id()
        extra = {k: v for k, v in (self.header.model_extra or {}).items() if k not in ("version",)}
        header = SessionHeader(
            id=session_id,
            version=CURRENT_VERSION,
            timestamp=now_iso(),
            cwd=self.header.cwd,
            parent_session=str(original),
            **extra,
        )
        target = original.parent / new_session_path(Path(self.header.cwd or "."), session_id).name
        history = b"".join(encode_line(record) for record in migration.records)
        new_file = SessionFile(target)
        new_file.create(encode_line(header.to_json()) + history + data)
        self._file.close()
        self.path, self.header, self._file = target, header, new_file
        self._migration = None
        self.moved_from = original

    def _header_line(self) -> bytes:
        return encode_line(self.header.to_json())

    def _latch(self, exc: Exception) -> None:
        reason = write_error_text(exc) if isinstance(exc, OSError) else str(exc)
        self.error_is_new = self.error is None
        self.error = NavtuiError(
            f"Could not save the session to {self.path}: {reason}",
            hint="the entries are kept in memory and written with the next one; free disk space or check permissions",
        )
