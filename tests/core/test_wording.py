"""Counts in the words a user reads."""

from __future__ import annotations

from navtui.core.wording import counted


def test_a_count_takes_its_nouns_number() -> None:
    assert [counted(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    assert (counted(1, "entry", "entries"), counted(3, "entry", "entries")) == ("1 entry", "3 entries")
    assert counted(12000, "line") == "12,000 lines"
