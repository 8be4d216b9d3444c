"""Cut streaming Markdown into top-level blocks that can no longer change, where markdown-it says blocks are.

Only the last top-level block of a growing document can still change (a paragraph may become a heading or a
table, a fence may close, a list may gain items), so every block before it can be rendered once and kept.
The splitter parses the open part (complete lines only) with markdown-it and cuts at the start line of each
top-level block its token map reports, as Textual's own ``Markdown`` does: a loose list stays one block,
a blank line inside a fence never cuts. Reference definitions (``[1]: https://...``) are collected as they
arrive; ``references`` holds them for rendering any block, and ``references_version`` changes when a new
one appears, so blocks rendered before it can be rendered again.

Between two top-level blocks the view puts one blank line, as Rich does when it renders a whole document.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@dataclass(frozen=True, slots=True)  # a 20,000-token answer has ~380: 40 bytes each, with a __dict__ 350
class Block:
    """One finished top-level block: its source, up to where the next block starts."""

    source: str


@cache
def parser() -> MarkdownIt:
    """The one markdown-it parser, for cutting and for rendering: CommonMark plus tables and strikethrough.

    Raw HTML off: a tag the model wrote is shown as the text it is (Rich would drop it silently)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("strikethrough").enable("table")


def block_starts(source: str, env: dict[str, Any] | None = None, next_line: str = "") -> list[int]:
    """The line numbers where top-level blocks start (markdown-it's token map) in ``source`` (whole lines);
    ``env`` collects references; ``next_line``: the start of the line after them, not ended yet.

    A last block that is a code fence closed by a whole line ends there: the line after its closing fence starts
    the next block, whatever it turns out to be (nothing after a closed fence joins it). Cut there, the fence is
    a finished block as soon as it closes, not once the next block's first line is complete: a long paragraph's
    one line took 6-11 flushes at 1,000 tok/s, and the fence was rendered whole with it at each (docs/speed.md,
    "Ninth wave"). Any other last block ends at ``next_line`` when nothing that line can become joins it
    (``_ends_before``): a heading, list or quote was rendered again with the paragraph after it at every flush
    until that paragraph's first line ended ("Tenth wave")."""
    tokens = parser().parse(source, {} if env is None else env)
    blocks = [token for token in tokens if token.level == 0 and token.nesting >= 0 and token.map]
    starts = [token.map[0] for token in blocks if token.map]
    last = blocks[-1] if blocks else None
    if last is not None and last.type == "fence" and last.map and last.map[1] - 1 > last.map[0]:
        closing = source.split("\n")[last.map[1] - 1]
        if _closes(closing, last.markup):
            starts.append(last.map[1])
    elif last is not None and next_line and _ends_before(last.type, source, next_line):
        starts.append(source.count("\n"))
    return starts


def _ends_before(kind: str, source: str, next_line: str) -> bool:
    """A top-level block of ``kind``, the last in ``source`` (whole lines), ends before the line that starts with
    ``next_line``, whatever the rest of that line is (CommonMark): the line before it is blank, so no paragraph
    continues and no setext underline or table row joins, a quote or table has ended; it is not indented, so it
    is neither a list item's content nor indented code. Only a list can still take it (an item with the same
    marker, after a blank line: a loose list), and an open code fence takes every line (a closed one is cut
    where it closes). A heading or a thematic break is one line whatever follows it, blank or not."""
    if kind in ("heading_open", "hr"):
        return True
    if kind == "fence" or next_line[0] in " \t":
        return False
    if kind in ("bullet_list_open", "ordered_list_open") and next_line[0] in "-+*0123456789":
        return False
    before = source[: source.rfind("\n", 0, len(source) - 1) + 1]  # up to the last whole line
    return not source[len(before) :].strip()


def _closes(line: str, markup: str) -> bool:
    """``line`` is a closing fence for a fence opened with ``markup`` (CommonMark: up to three spaces, at least as
    many of the same character, then only spaces or tabs)."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not markup:
        return False
    run = len(stripped) - len(stripped.lstrip(markup[0]))
    return run >= len(markup) and not stripped[run:].strip(" \t")


class BlockSplitter:
    """Incremental splitter: ``feed`` text, get the blocks that just finished; ``tail`` is still open."""

    def __init__(self) -> None:
        self._tail = ""  # the open part: the last block so far, and any partial last line
        self._parsed = 0  # how much of _tail (complete lines) the last parse saw
        self._saw_next = False  # the last parse saw the start of the line after them (``block_starts``' next_line)
        self._settled: dict[str, dict[str, str]] = {}  # definitions in finished blocks (the first one wins)
        self.references: dict[str, dict[str, str]] = {}  # normalised label -> {"href", "title"}
        self.references_version = 0

    @property
    def tail(self) -> str:
        return self._tail

    def feed(self, text: str) -> list[Block]:
        self._tail += text
        complete = self._tail.rfind("\n") + 1
        next_line = self._tail[complete:]
        if complete <= self._parsed and (self._saw_next or not next_line):
            # No new complete line, and the line after them was seen begun: nothing can have finished. A block is
            # also finished by the first character of the next one (``block_starts``), which may come alone in a
            # feed after a blank line: the block before stayed open a whole line, a long paragraph's, and was
            # rendered with it at every flush (docs/speed.md, "Eleventh wave").
            return []
        self._saw_next = bool(next_line)
        source = self._tail[:complete]
        env: dict[str, Any] = {}
        starts = block_starts(source, env, next_line)
        found = env.get("references", {})
        if len(starts) < 2:
            self._parsed = complete
            self._learn(found, settled_before=0)
            return []
        self._learn(found, settled_before=starts[-1])
        offsets = _line_offsets(source)
        cuts = [offsets[line] for line in starts[1:]]  # the first block starts the open part
        finished = [Block(self._tail[start:end]) for start, end in zip([0, *cuts[:-1]], cuts, strict=True)]
        self._tail = self._tail[cuts[-1] :]
        self._parsed = complete - cuts[-1]
        return finished

    def close(self) -> Block | None:
        """The document ended: its open part is a finished block too (``None`` when it is only blank)."""
        tail, self._tail, self._parsed, self._saw_next = self._tail, "", 0, False
        return Block(tail) if tail.strip() else None

    def _learn(self, found: dict[str, dict[str, Any]], *, settled_before: int) -> None:
        """Take the definitions of the open part; those before line ``settled_before`` can no longer change."""
        open_part: dict[str, dict[str, str]] = {}
        for label, definition in found.items():
            known = {"href": str(definition.get("href", "")), "title": str(definition.get("title", ""))}
            if definition.get("map", [0])[0] < settled_before:
                self._settled.setdefault(label, known)  # the first definition of a label wins (CommonMark)
            else:
                open_part[label] = known
        references = {**open_part, **self._settled}
        if references != self.references:
            self.references = references
            self.references_version += 1


def _line_offsets(text: str) -> list[int]:
    """The offset where each line starts (plus the end)."""
    offsets = [0]
    position = text.find("\n")
    while position >= 0:
        offsets.append(position + 1)
        position = text.find("\n", position + 1)
    return offsets


def split_blocks(text: str) -> tuple[list[Block], str]:
    """Split a whole document: the finished blocks and the last (open) block."""
    splitter = BlockSplitter()
    blocks = splitter.feed(text)
    return blocks, splitter.tail
