"""Cut a file into searchable chunks: one per definition, blank-line-separated blocks in between.

Definitions come from ``ast`` (Python), tree-sitter (when installed) or regular expressions. A definition
longer than the window is cut again: into its own members when it has some, else at blank lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from navtui.index.languages import PYTHON, Language, language_for
from navtui.index.model import Chunk, Symbol
from navtui.index.python_symbols import python_symbols
from navtui.index.symbols_regex import extract_symbols
from navtui.index.treesitter import tree_sitter_symbols

WINDOW = 60  # lines: about what a model reads comfortably in one piece
_NOT_UNITS = frozenset({"constant"})  # symbols findable by name but too small to be chunks of their own


@dataclass
class FileChunks:
    language: str
    chunks: list[Chunk]
    symbols: list[Symbol]


@dataclass
class _Node:
    symbol: Symbol
    children: list[_Node] = field(default_factory=list)


def find_symbols(language: Language, text: str) -> list[Symbol]:
    if language is PYTHON:
        symbols = python_symbols(text)
        if symbols is not None:
            return symbols
    else:
        symbols = tree_sitter_symbols(language.name, text)
        if symbols is not None:
            return symbols
    return extract_symbols(language, text)


def _tree(symbols: list[Symbol]) -> list[_Node]:
    """Nest definitions by their line spans (a Go method is not inside its type, a Python method is)."""
    roots: list[_Node] = []
    stack: list[_Node] = []
    for symbol in sorted(symbols, key=lambda s: (s.start_line, -s.end_line)):
        if symbol.kind in _NOT_UNITS:
            continue
        while stack and stack[-1].symbol.end_line < symbol.start_line:
            stack.pop()
        node = _Node(symbol)
        if stack and symbol.end_line <= stack[-1].symbol.end_line:
            stack[-1].children.append(node)
        elif stack:
            continue  # overlaps its neighbour without nesting: a guessed end line, trust the earlier symbol
        else:
            roots.append(node)
        stack.append(node)
    return roots


class _Chunker:
    def __init__(self, lines: list[str], language: Language, window: int) -> None:
        self.lines = lines
        self.language = language
        self.window = window
        self.chunks: list[Chunk] = []

    def _blank(self, number: int) -> bool:
        return not self.lines[number - 1].strip()

    def _emit(self, start: int, end: int, symbol: str | None, kind: str) -> None:
        while start <= end and self._blank(start):
            start += 1
        while end >= start and self._blank(end):
            end -= 1
        if start <= end:
            self.chunks.append(Chunk(start, end, "\n".join(self.lines[start - 1 : end]), symbol, kind))

    def pack(self, lo: int, hi: int, symbol: str | None = None, kind: str = "block") -> None:
        """Blank-line-separated blocks of ``lo..hi``, packed into chunks of at most ``window`` lines."""
        start = lo
        block_start = lo
        for number in range(lo, hi + 2):
            at_end = number > hi
            if not at_end and not self._blank(number):
                continue
            # ``block_start..number-1`` is a block (possibly empty); close the chunk before it overflows.
            if number - start > self.window and block_start > start:
                self._emit(start, block_start - 1, symbol, kind)
                start = block_start
            while number - start > self.window:  # one block longer than the window: cut it
                self._emit(start, start + self.window - 1, symbol, kind)
                start += self.window
            block_start = number + 1
        self._emit(start, hi, symbol, kind)

    def _leading_comments(self, start: int, floor: int) -> int:
        """Doc comments and annotations directly above a definition belong to it."""
        prefixes = (*self.language.comment_prefixes, "@") if self.language.comment_prefixes else ()
        while prefixes and start - 1 >= floor and self.lines[start - 2].lstrip().startswith(prefixes):
            start -= 1
        return start

    def range(self, lo: int, hi: int, nodes: list[_Node], label: str | None, kind: str) -> None:
        cursor = lo
        for node in nodes:
            symbol = node.symbol
            start, end = max(symbol.start_line, cursor), min(symbol.end_line, hi)
            if end < start:
                continue
            start = self._leading_comments(start, cursor)
            if start > cursor:
                self.pack(cursor, start - 1, label, kind)
            name = symbol.qualified_name
            if end - start + 1 <= self.window:
                self._emit(start, end, name, symbol.kind)
            elif node.children:
                self.range(start, end, node.children, name, symbol.kind)
            else:
                self.pack(start, end, name, symbol.kind)
            cursor = end + 1
        if cursor <= hi:
            self.pack(cursor, hi, label, kind)


def chunk_text(rel_path: str, text: str, window: int = WINDOW) -> FileChunks:
    """Chunks and symbols of one file's text."""
    language = language_for(rel_path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    symbols = find_symbols(language, text)
    chunker = _Chunker(lines, language, window)
    if lines:
        chunker.range(1, len(lines), _tree(symbols), None, "block")
    return FileChunks(language.name, chunker.chunks, symbols)
