"""Finding ``old_text`` in a file: exact and unique first, then tolerant of whitespace, quotes and indentation.

Small models copy text imperfectly: trailing spaces, curly quotes, a different indentation level, or the
line-number prefix of ``read`` output. Each fallback works on whole lines and must still match exactly once.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from navtui.core.errors import ToolError

_LOOKALIKES = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00a0": " ", "\u2009": " ", "\u202f": " ",
        "\u2026": "...",
    }
)  # fmt: skip
_NUMBERED = re.compile(r"^\s*\d+(?:\t|: |\| )")
MAX_LISTED = 8


@dataclass
class Applied:
    text: str
    count: int  # replacements made
    first_line: int  # 1-based line of the first replacement
    fuzzy: str | None = None  # which tolerance found the match, when the exact text did not


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _positions(text: str, needle: str) -> list[int]:
    found, start = [], 0
    while (index := text.find(needle, start)) >= 0:
        found.append(index)
        start = index + len(needle)
    return found


def _listed(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:MAX_LISTED])
    return shown + (", ..." if len(numbers) > MAX_LISTED else "")


def _not_unique(shown: str, count: int, lines: list[int], how: str = "") -> ToolError:
    return ToolError(
        f"old_text matches {count} times in {shown}{how} (at lines {_listed(lines)}). Include more surrounding "
        "lines so it matches exactly once, or set replace_all to true to change every occurrence."
    )


def _trailing(line: str) -> str:
    return line.translate(_LOOKALIKES).rstrip()


def _loose(line: str) -> str:
    return " ".join(line.translate(_LOOKALIKES).split())


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if len(lines) > 1 and lines[-1] == "" else lines


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _reindent(old_lines: list[str], window: list[str], new_lines: list[str]) -> list[str]:
    """Shift ``new_lines`` by the indentation the file adds to (or removes from) every line of ``old_text``."""
    deltas = set()
    for old, actual in zip(old_lines, window, strict=True):
        if not old.strip():
            continue
        have, want = _indent(old), _indent(actual)
        if want.endswith(have):
            deltas.add(("add", want[: len(want) - len(have)]))
        elif have.endswith(want):
            deltas.add(("remove", have[: len(have) - len(want)]))
        else:
            return new_lines
    if len(deltas) != 1:
        return new_lines
    kind, prefix = deltas.pop()
    if not prefix:
        return new_lines
    if kind == "add":
        return [prefix + line if line.strip() else line for line in new_lines]
    return [line.removeprefix(prefix) for line in new_lines]


def _line_windows(lines: list[str], old_lines: list[str], norm: Callable[[str], str]) -> list[int]:
    wanted = [norm(line) for line in old_lines]
    size = len(wanted)
    starts: list[int] = []
    for start in range(len(lines) - size + 1):
        if norm(lines[start]) != wanted[0]:
            continue
        matches = all(norm(lines[start + k]) == wanted[k] for k in range(1, size))
        if matches and (not starts or start >= starts[-1] + size):  # overlapping windows count once
            starts.append(start)
    return starts


def _fuzzy(text: str, old: str, new: str, replace_all: bool, shown: str) -> Applied | None:
    old_lines = _split(old)
    if not any(line.strip() for line in old_lines):
        return None
    lines = text.split("\n")
    levels: list[tuple[str, Callable[[str], str]]] = [
        ("ignoring trailing whitespace and quote/dash look-alikes", _trailing),
        ("ignoring indentation and whitespace", _loose),
    ]
    for label, norm in levels:
        starts = _line_windows(lines, old_lines, norm)
        if not starts:
            continue
        if len(starts) > 1 and not replace_all:
            raise _not_unique(shown, len(starts), [s + 1 for s in starts], f" ({label})")
        new_lines = [] if new == "" else _split(new)
        for start in reversed(starts):
            window = lines[start : start + len(old_lines)]
            replacement = _reindent(old_lines, window, new_lines) if norm is _loose else new_lines
            lines[start : start + len(old_lines)] = replacement
        return Applied("\n".join(lines), len(starts), starts[0] + 1, label)
    return None


def _closest(text: str, old: str, shown: str) -> str:
    lines = text.split("\n")
    old_lines = _split(old)
    key = next((line.strip() for line in old_lines if line.strip()), "")
    best, best_ratio = -1, 0.0
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(key)
    for index, line in enumerate(lines[:50_000]):
        matcher.set_seq1(line.strip())
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = index, ratio
    if best < 0 or best_ratio < 0.5:
        return " No similar text was found; re-read the file to see its current content."
    first = max(best - 2, 0)
    last = min(best + len(old_lines) + 2, len(lines))
    excerpt = "\n".join(f"{n + 1:>6}\t{lines[n]}" for n in range(first, last))
    return (
        f" The most similar text is at lines {first + 1}-{last}:\n{excerpt}\n"
        "Copy old_text exactly from the current file, without the line-number prefix."
    )


def apply_edit(text: str, old: str, new: str, *, replace_all: bool = False, shown: str = "the file") -> Applied:
    """Replace ``old`` with ``new`` in ``text``; a ``ToolError`` says why not (0 or several matches)."""
    if old == "":
        raise ToolError("old_text is empty. Give the exact text to replace; to create or overwrite a file use write.")
    if old == new:
        raise ToolError("old_text and new_text are identical, so the edit would change nothing.")
    positions = _positions(text, old)
    if len(positions) == 1 or (positions and replace_all):
        count = len(positions) if replace_all else 1
        return Applied(text.replace(old, new, count), count, _line_of(text, positions[0]))
    if positions:
        raise _not_unique(shown, len(positions), [_line_of(text, p) for p in positions])
    applied = _fuzzy(text, old, new, replace_all, shown)
    if applied is not None:
        return applied
    old_lines = [line for line in old.split("\n") if line.strip()]
    if old_lines and all(_NUMBERED.match(line) for line in old_lines):
        # The model pasted read output, line numbers included.
        new_lines = [line for line in new.split("\n") if line.strip()]
        stripped_new = new
        if new_lines and all(_NUMBERED.match(line) for line in new_lines):
            stripped_new = "\n".join(_NUMBERED.sub("", line, count=1) for line in new.split("\n"))
        stripped_old = "\n".join(_NUMBERED.sub("", line, count=1) for line in old.split("\n"))
        try:
            applied = apply_edit(text, stripped_old, stripped_new, replace_all=replace_all, shown=shown)
        except ToolError:
            applied = None
        if applied is not None:
            applied.fuzzy = "after removing line-number prefixes" + (f", {applied.fuzzy}" if applied.fuzzy else "")
            return applied
    raise ToolError(f"old_text was not found in {shown}.{_closest(text, old, shown)}")
