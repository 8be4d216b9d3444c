"""/find's marks: the words found, shown in the theme's colours over what a line already draws."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip


def mark_words(strip: Strip, words: str, style: Style) -> Strip:
    """``strip`` with every occurrence of ``words`` (in any case) drawn in ``style`` over its own styles."""
    text = strip.text
    lowered, wanted = text.lower(), words.lower()
    if not wanted or wanted not in lowered or len(lowered) != len(text):  # (a letter whose lower case is longer)
        return strip
    cuts: list[int] = []
    start = lowered.find(wanted)
    while start >= 0:
        end = start + len(wanted)
        cuts += [cell_len(text[:start]), cell_len(text[:end])]
        start = lowered.find(wanted, end)
    pieces = strip.divide([*cuts, strip.cell_length])
    marked = [
        Strip([Segment(t, (s or Style()) + style, c) for t, s, c in piece], piece.cell_length) if number % 2 else piece
        for number, piece in enumerate(pieces)
    ]
    return Strip.join(marked)
