"""Markdown that is safe to open in a renderer: raw HTML and script links are made inert, code is left alone.

A Markdown export is read in places that render inline HTML (a code host's preview, an editor's preview).
A model that writes ``<img src=x onerror=...>`` or ``<details open>`` into its answer must not get it rendered
there, so every ``<`` outside code becomes ``&lt;`` (the renderer shows it as ``<``). Fenced and indented code
blocks come from markdown-it's own block map, so nesting in lists and quotes is handled as a renderer would;
inline code spans are skipped with the CommonMark rule (a backtick run closes on a run of the same length).

A link whose destination runs script (``[x](javascript:...)``, ``vbscript:``, ``data:``; a reference definition
too) gets the destination ``#unsafe-link:...`` instead, a fragment no renderer follows; character references are
kept from spelling such a scheme (``&#`` becomes ``&amp;#`` outside code). Control characters are shown, not
written (``display_safe``), so a terminal that ``cat``s the file is safe too.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from navtui.core.display import display_safe

_BACKTICKS = re.compile(r"`+")
_SCRIPT_SCHEMES = r"(?:javascript|vbscript|livescript|data)\s*:"
_SCRIPT_LINK = re.compile(r"(\]\(\s*(?:&lt;)?\s*)(" + _SCRIPT_SCHEMES + ")", re.IGNORECASE)  # < is escaped by now
_SCRIPT_DEFINITION = re.compile(
    r"^(\s{0,3}\[[^\]]+\]:\s*(?:&lt;)?\s*)(" + _SCRIPT_SCHEMES + ")", re.IGNORECASE | re.MULTILINE
)


def _neutralise(text: str) -> str:
    """One stretch of prose (no code in it): ``<`` escaped, script links and character references disarmed."""
    text = text.replace("<", "&lt;").replace("&#", "&amp;#")
    text = _SCRIPT_LINK.sub(r"\1#unsafe-link:\2", text)
    return _SCRIPT_DEFINITION.sub(r"\1#unsafe-link:\2", text)


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
    """``text`` (one paragraph or one line) neutralised except inside its inline code spans."""
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
            out.append(_neutralise(text[position : opening.end()]))
            position = opening.end()
            continue
        out.append(_neutralise(text[position : opening.start()]))
        out.append(text[opening.start() : closing.end()])
        position = closing.end()
    out.append(_neutralise(text[position:]))
    return "".join(out)


def safe_markdown(markdown: str) -> str:
    """``markdown`` with raw HTML and script links neutralised outside code and control characters shown."""
    markdown = display_safe(markdown)
    if "<" not in markdown and "&#" not in markdown and ":" not in markdown:
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
