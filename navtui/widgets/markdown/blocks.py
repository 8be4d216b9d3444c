"""Cut streaming Markdown into top-level blocks that can no longer change.

Only the last block of a growing document can still change (a paragraph may become a table, a fence may
close), so everything before it can be rendered once and kept. The splitter reads complete lines only,
knows when it is inside a code fence, and cuts:

* at a blank line followed by a line that starts at column 0 (the new block is separated by a gap);
* before a top-level heading or list item that follows a non-blank line (no gap: a tight list stays tight).

Work per ``feed`` is proportional to the new text, never to the document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_HEADING = re.compile(r"^#{1,6}(?:[ \t]|$)")
_THEMATIC_BREAK = re.compile(r"^(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")


@dataclass(frozen=True)
class Block:
    """One finished top-level block; ``gap`` says whether a blank line separates it from the previous one."""

    source: str
    gap: bool


class BlockSplitter:
    """Incremental splitter: ``feed`` text, get the blocks that just finished; ``tail`` is still open."""

    def __init__(self) -> None:
        self._tail = ""  # the open block, including a partial last line
        self._scan = 0  # offset in _tail of the first complete line not yet looked at
        self._fence: str | None = None  # the opening marker while inside a fence
        self._blank_before = False  # the last complete line was blank (outside a fence)
        self._prev_kind = ""  # "list", "heading", "text" or "" for the previous non-blank line
        self._tail_gap = False  # the open block follows a blank line

    @property
    def tail(self) -> str:
        return self._tail

    @property
    def tail_gap(self) -> bool:
        return self._tail_gap

    @property
    def in_fence(self) -> bool:
        return self._fence is not None

    def feed(self, text: str) -> list[Block]:
        self._tail += text
        finished: list[Block] = []
        tail = self._tail
        start = 0  # where the open block begins in `tail`
        pos = self._scan
        while True:
            end = tail.find("\n", pos)
            if end < 0:
                break
            line = tail[pos:end]
            cut = self._classify(line)
            if cut is not None and pos > start:
                body = tail[start:pos].rstrip("\n")
                if body.strip():
                    finished.append(Block(body, self._tail_gap))
                    self._tail_gap = cut
                start = pos
            pos = end + 1
        if start:
            self._tail = tail[start:]
            pos -= start
        self._scan = pos
        return finished

    def _starts_block_without_gap(self, kind: str) -> bool:
        """A heading, a line after a heading, or a list item after an item starts a new block (no gap)."""
        previous = self._prev_kind
        if not previous:
            return False
        return kind == "heading" or previous == "heading" or (kind == "list" and previous == "list")

    def _classify(self, line: str) -> bool | None:
        """Track fences and blank lines; return the gap flag if a new block starts at this line."""
        fence = self._fence
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                self._fence = None
            return None
        if not line.strip():
            if self._prev_kind:
                self._blank_before = True
            return None
        cut: bool | None = None
        starts_flush = not line[0].isspace()
        kind = "text"
        if starts_flush and _HEADING.match(line):
            kind = "heading"
        elif starts_flush and _LIST_ITEM.match(line) and not _THEMATIC_BREAK.match(line):
            kind = "list"
        if self._blank_before and starts_flush:
            cut = True
        elif self._starts_block_without_gap(kind):
            cut = False
        self._blank_before = False
        if not starts_flush and self._prev_kind == "list":
            kind = "list"  # an indented continuation keeps the item open
        self._prev_kind = kind
        match = _FENCE.match(line)
        if match:
            marker = match.group(1)
            # A backtick fence's info string may not contain backticks; otherwise it is inline code.
            if marker[0] != "`" or "`" not in line[match.end() :]:
                self._fence = marker
        return cut


def split_blocks(text: str) -> tuple[list[Block], str]:
    """Split a whole document: the finished blocks and the last (open) block."""
    splitter = BlockSplitter()
    blocks = splitter.feed(text)
    return blocks, splitter.tail
