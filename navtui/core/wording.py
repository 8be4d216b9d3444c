"""Counts in the words a user reads: "1 file", "2 files", never "file(s)"."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` with ``noun`` in the number it takes: "1 file", "0 files", "3 entries" (``plural`` when the
    plural is not the noun and an s). Thousands are grouped ("12,000 files")."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
