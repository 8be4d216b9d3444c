"""Definitions found by regular expressions, with their end lines from braces, indentation or headings."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from navtui.index.languages import Language, Rule
from navtui.index.model import Symbol

CONTAINER_KINDS = frozenset(
    {
        "class",
        "struct",
        "interface",
        "enum",
        "trait",
        "impl",
        "module",
        "namespace",
        "object",
        "record",
        "protocol",
        "extension",
        "actor",
        "union",
        "section",
    }
)
_BODY_LOOKAHEAD_LINES = 3

_DOUBLE = r'"(?:\\.|[^"\\\n])*"'
_BACKTICK = r"`(?:\\.|[^`\\])*`"
_SKIP_MULTI = re.compile(rf"//[^\n]*|/\*.*?\*/|{_DOUBLE}|'(?:\\.|[^'\\\n])*'|{_BACKTICK}|[{{}};]", re.DOTALL)
# C, Java and Rust: a quote is a one-character literal (Rust lifetimes such as 'a are not strings).
_SKIP_CHAR = re.compile(rf"//[^\n]*|/\*.*?\*/|{_DOUBLE}|'(?:\\.|[^'\\\n])'|{_BACKTICK}|[{{}};]", re.DOTALL)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")


@dataclass(frozen=True)
class _Brace:
    offset: int
    line: int
    close_line: int


class _Lines:
    def __init__(self, text: str) -> None:
        self.starts = [0]
        self.starts.extend(match.end() for match in re.finditer("\n", text))
        self.count = len(self.starts) if not text.endswith("\n") else len(self.starts) - 1

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)


def _braces(text: str, lines: _Lines, language: Language) -> tuple[list[_Brace], list[int]]:
    """Every ``{`` with the line of its matching ``}``, plus the offsets of top-level-ish ``;``."""
    scanner = _SKIP_MULTI if language.multichar_single_quotes else _SKIP_CHAR
    opened: list[tuple[int, int]] = []  # (index into braces, line)
    braces: list[_Brace] = []
    semicolons: list[int] = []
    for match in scanner.finditer(text):
        token = match.group()
        if token == "{":
            line = lines.line_of(match.start())
            opened.append((len(braces), line))
            braces.append(_Brace(match.start(), line, lines.count))
        elif token == "}":
            if opened:
                index, line = opened.pop()
                braces[index] = _Brace(braces[index].offset, line, lines.line_of(match.start()))
        elif token == ";":
            semicolons.append(match.start())
    return braces, semicolons


_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _brace_end(
    text: str, start: int, limit: int, line: int, braces: list[_Brace], offsets: list[int], semicolons: list[int]
) -> int | None:
    """The line closing the body that follows a definition at ``start``, or None when it has no body.

    The body must open within a few lines, before the next definition (``limit``), a blank line or a ``;``.
    """
    index = bisect.bisect_left(offsets, start)
    after = bisect.bisect_left(semicolons, start)
    semicolon = semicolons[after] if after < len(semicolons) else len(text)
    single_line: int | None = None
    while index < len(braces):
        brace = braces[index]
        if brace.offset >= min(limit, semicolon) or brace.line > line + _BODY_LOOKAHEAD_LINES:
            break
        if brace.line > line and _BLANK_LINE.search(text, start, brace.offset):
            break
        if brace.close_line > brace.line:
            return brace.close_line
        single_line = brace.close_line  # ``{a, b}`` destructuring or an empty ``{}`` body: keep looking
        index += 1
    return single_line


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _indent_end(text_lines: list[str], line: int) -> int:
    """For indentation languages: the last line before the next one indented no deeper than ``line``."""
    base = _indent_of(text_lines[line - 1])
    last = line
    for number in range(line + 1, len(text_lines) + 1):
        current = text_lines[number - 1]
        if not current.strip():
            continue
        if _indent_of(current) <= base:
            if current.strip().startswith(("end", "}")):
                return number
            break
        last = number
    return last


def _sections(text_lines: list[str]) -> list[Symbol]:
    """Markdown headings outside fenced code, each ending before the next heading of its level or higher."""
    found: list[tuple[int, int, str]] = []  # (line, level, title)
    fenced = False
    for number, line in enumerate(text_lines, 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            found.append((number, len(match.group(1)), match.group(2).strip()))
    symbols: list[Symbol] = []
    for i, (number, level, title) in enumerate(found):
        end = len(text_lines)
        for later, later_level, _ in found[i + 1 :]:
            if later_level <= level:
                end = later - 1
                break
        symbols.append(Symbol(title[:120], "section", number, end))
    return symbols


def assign_parents(symbols: list[Symbol]) -> list[Symbol]:
    """Give each symbol its innermost enclosing container as parent; functions inside one become methods."""
    ordered = sorted(symbols, key=lambda s: (s.start_line, -s.end_line))
    stack: list[Symbol] = []
    out: list[Symbol] = []
    for symbol in ordered:
        while stack and stack[-1].end_line < symbol.start_line:
            stack.pop()
        container = next((c for c in reversed(stack) if c.end_line >= symbol.end_line), None)
        if container is not None and symbol.parent is None:
            kind = "method" if symbol.kind == "function" else symbol.kind
            symbol = Symbol(symbol.name, kind, symbol.start_line, symbol.end_line, container.name)
        out.append(symbol)
        if symbol.kind in CONTAINER_KINDS:
            stack.append(symbol)
    return out


def extract_symbols(language: Language, text: str) -> list[Symbol]:
    """The definitions of one file, in line order."""
    text_lines = text.split("\n")
    if text_lines and text_lines[-1] == "":
        text_lines.pop()
    if language.blocks == "sections":
        return assign_parents(_sections(text_lines))
    if not language.rules:
        return []
    lines = _Lines(text)
    braces: list[_Brace] = []
    semicolons: list[int] = []
    if language.blocks == "braces":
        braces, semicolons = _braces(text, lines, language)
    offsets = [brace.offset for brace in braces]
    found: dict[int, tuple[re.Match[str], Rule]] = {}
    for rule in language.rules:
        for match in rule.pattern.finditer(text):
            found.setdefault(lines.line_of(match.start()), (match, rule))  # earlier rules are more specific
    starts = sorted(found)
    symbols: list[Symbol] = []
    members: set[int] = set()
    for position, line in enumerate(starts):
        match, rule = found[line]
        groups = match.groupdict()
        name, parent = groups["name"], groups.get("parent")
        if "::" in name:  # C++ ``Type::method``
            parent, _, name = name.rpartition("::")
            parent = parent.rsplit("::", 1)[-1]
        kind = groups.get("kind") or rule.kind
        if language.blocks == "braces":
            limit = found[starts[position + 1]][0].start() if position + 1 < len(starts) else len(text)
            end = _brace_end(text, match.start(), limit, line, braces, offsets, semicolons)
            if end is None:
                if rule.needs_body:
                    continue
                end = line
        else:
            end = _indent_end(text_lines, line)
        if parent and kind == "function":
            kind = "method"
        if rule.member:
            members.add(line)
        symbols.append(Symbol(name, kind, line, max(end, line), parent or None))
    symbols = assign_parents(symbols)
    return [s for s in symbols if s.start_line not in members or s.parent is not None]
