"""The context note: the index's best chunks for a session's first prompt, within a token budget."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from navtui.index.languages import language_for
from navtui.index.query import Hit, Index

MAX_CHUNKS = 8
_CANDIDATES = 24
_RELATIVE_FLOOR = 0.35  # drop chunks scoring under this share of the best one: they matched only a stray word
_FENCE = re.compile(r"^[ \t]*(`{3,})", re.MULTILINE)
_HEADER = (
    "<repository_context>\n"
    "Passages the repository index found for this request (they may be incomplete or out of date; "
    "read a file before editing it).\n"
)
_FOOTER = "</repository_context>"


@dataclass(frozen=True)
class ContextNote:
    text: str
    files: list[str] = field(default_factory=list)  # distinct paths, best first, for the transcript card
    hits: list[Hit] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


def estimate_tokens(text: str) -> int:
    return len(text.encode("utf-8")) // 4


def _fence(text: str) -> str:
    """A code fence longer than any fence inside the chunk (Markdown files contain fences)."""
    longest = max((len(match.group(1)) for match in _FENCE.finditer(text)), default=0)
    return "`" * max(3, longest + 1)


def format_hit(hit: Hit, text: str | None = None) -> str:
    body = hit.text if text is None else text
    fence = _fence(body)
    label = f" ({hit.symbol})" if hit.symbol else ""
    language = language_for(hit.path).name
    language = "" if language == "text" else language
    return f"### {hit.path}:{hit.start_line}-{hit.end_line}{label}\n{fence}{language}\n{body}\n{fence}\n"


def _trimmed(hit: Hit, budget_bytes: int) -> Hit | None:
    """The first lines of ``hit`` that fit in ``budget_bytes`` once formatted, or None if not even a few fit."""
    lines = hit.text.split("\n")
    while lines:
        end = hit.start_line + len(lines) - 1
        candidate = Hit(hit.path, hit.start_line, end, hit.score, "\n".join(lines), hit.symbol, hit.kind)
        if len(format_hit(candidate).encode("utf-8")) <= budget_bytes:
            return candidate if len(lines) >= 3 else None
        lines = lines[: max(0, min(len(lines) - 1, len(lines) * 3 // 4))]
    return None


def context_note(root: Path, prompt: str, token_budget: int, *, base_url: str | None = None) -> ContextNote | None:
    """The best chunks for ``prompt`` as a ``<repository_context>`` block, or None (no index, nothing relevant)."""
    index = Index.open(root)
    if index is None:
        return None
    try:
        hits = index.search(prompt, _CANDIDATES, base_url=base_url)
    finally:
        index.close()
    if not hits:
        return None
    floor = hits[0].score * _RELATIVE_FLOOR
    budget = token_budget * 4 - len((_HEADER + _FOOTER).encode("utf-8"))
    chosen: list[Hit] = []
    for hit in hits:
        if hit.score < floor or len(chosen) >= MAX_CHUNKS or budget <= 0:
            break
        size = len(format_hit(hit).encode("utf-8"))
        if size > budget:
            if chosen:
                continue  # a smaller chunk further down may still fit
            trimmed = _trimmed(hit, budget)
            if trimmed is None:
                break
            hit, size = trimmed, len(format_hit(trimmed).encode("utf-8"))
        chosen.append(hit)
        budget -= size
    if not chosen:
        return None
    text = _HEADER + "\n".join(format_hit(hit) for hit in chosen) + _FOOTER
    files = list(dict.fromkeys(hit.path for hit in chosen))
    return ContextNote(text, files, chosen)
