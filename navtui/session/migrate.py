"""Bring pi/omp session files of versions 1 and 2 to version 3, in memory.

v1 -> v2: every entry gets an ``id`` and a ``parentId`` (a linear chain in file order), and a compaction's
``firstKeptEntryIndex`` (an index into the file's lines) becomes ``firstKeptEntryId``.
v2 -> v3: a message with the role ``hookMessage`` (an extension's note) gets the role ``custom``.
Both steps are pi's and omp's own migrations, so a file migrated by navtui is what they would have made.
"""

from __future__ import annotations

from typing import Any

from navtui.session.entries import CURRENT_VERSION, new_entry_id


def file_version(header: dict[str, Any]) -> int:
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def migrate(header: dict[str, Any], records: list[dict[str, Any]]) -> bool:
    """Migrate ``records`` (the lines after the header) in place; True when anything changed."""
    version = file_version(header)
    if version >= CURRENT_VERSION:
        return False
    if version < 2:
        _v1_to_v2(records)
    _v2_to_v3(records)
    header["version"] = CURRENT_VERSION
    return True


def _v1_to_v2(records: list[dict[str, Any]]) -> None:
    taken: set[str] = set()
    previous: str | None = None
    for record in records:
        entry_id = new_entry_id(taken)
        taken.add(entry_id)
        record["id"] = entry_id
        record["parentId"] = previous
        previous = entry_id
    for record in records:
        index = record.get("firstKeptEntryIndex")
        if record.get("type") == "compaction" and isinstance(index, int):
            # The index counted file lines with the header at 0.
            if 1 <= index <= len(records):
                record["firstKeptEntryId"] = records[index - 1]["id"]
            del record["firstKeptEntryIndex"]


def _v2_to_v3(records: list[dict[str, Any]]) -> None:
    for record in records:
        message = record.get("message")
        if record.get("type") == "message" and isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
