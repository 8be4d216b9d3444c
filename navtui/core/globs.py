"""Ignore rules and globs that match in time proportional to the path, whatever the pattern.

pathspec turns a ``.gitignore`` line into a Python regular expression, and Python's engine backtracks: a line
``a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b`` against a file named with 60 ``a`` did not finish in a minute, nor
``**/a/**/a/**/a/**/a/**/a/**/a/**/b`` against a folder 300 deep. A cloned repository can ship both, and the model
can pass such a glob to ``find``: the walk (the index, ``find``, ``@`` completion, the checkpoint before each turn)
held navtui for ever. ``ignore_spec`` keeps pathspec's rules and rewrites each expression so that a wildcard
between two others takes the first place its following text fits, once (an atomic group): for ``*`` within a name
and for ``**`` between folders, this is the same match (``tests/core/test_globs.py`` compares both on thousands of
patterns and paths), and no longer a search through every way to split the name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec
    from pathspec.pattern import RegexPattern

_STAR = "[^/]*"  # * within one name
_BEFORE = "(?:.+/)?"  # a leading **/
_BETWEEN = "(?:/.+)?"  # /**/ between two folders
_LAZY = {_STAR: "[^/]*?", _BEFORE: "(?:.+?/)??", _BETWEEN: "(?:/.+?)??"}
_SPLIT = re.compile("(" + "|".join(re.escape(span) for span in _LAZY) + ")")
# Fixed-length text between two wildcards: escaped or plain characters, and one-character classes.
_CHUNK = re.compile(r"(?:\\.|[^\\()\[\]$^*+?{}|.]|\[(?:\\.|[^\]\\])+\])+")
_CLASS = re.compile(r"\[(?:\\.|[^\]\\])+\]")


def defused(regex: str) -> str:
    """``regex`` (pathspec's, for one line) with every wildcard that another one follows made atomic."""
    pieces = _SPLIT.split(regex)  # text, wildcard, text, wildcard, ..., text
    out = [pieces[0]]
    for index in range(1, len(pieces), 2):
        span, chunk = pieces[index], pieces[index + 1]
        following = pieces[index + 2] if index + 2 < len(pieces) else None
        if following is not None and _CHUNK.fullmatch(chunk):
            if span == _STAR and following == _STAR and "/" not in _CLASS.sub("", chunk):
                out.append(f"(?>{_LAZY[span]}{chunk})")  # the first place in this name where the text fits
                continue
            if span in (_BEFORE, _BETWEEN) and following == _BETWEEN:
                out.append(f"(?>{_LAZY[span]}{chunk}(?=/))")  # the first folder where the text fits
                continue
        out.append(span + chunk)
    return "".join(out)


def _pattern(line: str) -> RegexPattern:
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    pattern = GitIgnoreSpecPattern(line)
    if pattern.regex is not None:
        pattern.regex = re.compile(defused(pattern.regex.pattern))
    return pattern


def ignore_spec(lines: Iterable[str]) -> GitIgnoreSpec:
    """``GitIgnoreSpec.from_lines(lines)``, matching in linear time (pathspec's plain backend: a faster engine
    it may find installed would not take the atomic groups)."""
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(lines, pattern_factory=_pattern, backend="simple")
