"""Markdown that is safe to open in a renderer: raw HTML written by a model is escaped, code is left alone.

A Markdown export is read in places that render inline HTML (a code host's preview, an editor's preview).
A model that writes ``<img src=x onerror=...>`` or ``<details open>`` into its answer must not get it rendered
there, so every ``<`` outside code becomes ``&lt;`` (the renderer shows it as ``<``). Fenced and indented code
blocks come from markdown-it's own block map, so nesting in lists and quotes is handled as a renderer would;
inline code spans are skipped with the CommonMark rule (a backtick run closes on a run of the same length).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_BACKTICKS = re.compile(r"`+")


@cache
def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _code_lines(markdown: str) -> set[int]:
    lines: set[int] = set()
    for token in _parser().parse(markdown):
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(*token.map))
    return lines


def _escape_outside_spans(text: str) -> str:
    """``<`` escaped except inside inline code spans of ``text`` (one paragraph or one line)."""
    if "<" not in text:
        return text
    out: list[str] = []
    position = 0
    while True:
        opening = _BACKTICKS.search(text, position)
        if opening is None:
            break
        closing: re.Match[str] | None = None
        after = opening.end()
        while (closing := _BACKTICKS.search(text, after)) is not None:
            if len(closing.group()) == len(opening.group()):
                break
            after = closing.end()
        if closing is None:  # an unmatched run is literal text
            out.append(text[position : opening.end()].replace("<", "&lt;"))
            position = opening.end()
            continue
        out.append(text[position : opening.start()].replace("<", "&lt;"))
        out.append(text[opening.start() : closing.end()])
        position = closing.end()
    out.append(text[position:].replace("<", "&lt;"))
    return "".join(out)


def escape_raw_html(markdown: str) -> str:
    """``markdown`` with raw HTML neutralised outside code; text without ``<`` is returned unchanged."""
    if "<" not in markdown:
        return markdown
    code = _code_lines(markdown)
    lines = markdown.split("\n")
    out: list[str] = []
    prose: list[str] = []  # one paragraph's lines: a code span may run over a line break, never a blank line

    def flush() -> None:
        if prose:
            out.append(_escape_outside_spans("\n".join(prose)))
            prose.clear()

    for number, line in enumerate(lines):
        if number in code or not line.strip():
            flush()
            out.append(line)
        else:
            prose.append(line)
    flush()
    return "\n".join(out)
