"""Long pasted text, shown collapsed: ``[pasted #1 · 500 lines]`` in the prompt, a one-line marker in the
transcript. The model always gets the whole text; only what is drawn is short.

The prompt swaps a long paste for a placeholder and puts the text back when the prompt is sent (``expand``);
the transcript collapses the blocks a user message is known to hold (``UserItem.pasted``), or, for a message
replayed from a session where that is not recorded, what follows its first line when it is long
(``long_blocks``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

COLLAPSE_LINES = 8  # a paste with more lines than this is collapsed
COLLAPSE_CHARS = 1000  # ... or with more characters than this (one very long line)
_PLACEHOLDER = re.compile(r"\[pasted #(\d+) · [\d,]+ lines?\]")


def is_long(text: str) -> bool:
    return text.count("\n") + 1 > COLLAPSE_LINES or len(text) > COLLAPSE_CHARS


def line_count(text: str) -> int:
    return text.rstrip("\n").count("\n") + 1


def describe(text: str) -> str:
    lines = line_count(text)
    return f"{lines:,} line{'s' * (lines != 1)}"


@dataclass
class PromptPastes:
    """The long pastes of the prompt being written, by number."""

    texts: dict[int, str] = field(default_factory=dict)

    def placeholder(self, text: str) -> str:
        """Keep ``text``; what to put in the prompt instead."""
        number = max(self.texts, default=0) + 1
        self.texts[number] = text
        return f"[pasted #{number} · {describe(text)}]"

    def expand(self, prompt: str) -> tuple[str, list[str]]:
        """The prompt with every placeholder still in it replaced by its text, and those texts in order."""
        used: list[str] = []

        def restore(match: re.Match[str]) -> str:
            text = self.texts.get(int(match.group(1)))
            if text is None:  # typed by hand, or a paste from an earlier prompt: leave it as it reads
                return match.group(0)
            used.append(text)
            return text

        return _PLACEHOLDER.sub(restore, prompt), used

    def clear(self) -> None:
        self.texts.clear()


def long_blocks(text: str) -> list[str]:
    """For a message with no paste record: what follows its first line, when that is long."""
    first, newline, rest = text.partition("\n")
    if not newline or not is_long(rest):
        return [text] if not newline and len(text) > COLLAPSE_CHARS else []
    return [rest]


def collapse(text: str, blocks: list[str]) -> list[tuple[str, str | None]]:
    """``text`` cut into parts: (plain text, None) and (pasted text, its one-line summary)."""
    parts: list[tuple[str, str | None]] = []
    rest = text
    for block in blocks:
        needle = block.rstrip() or block  # the shown text has lost its trailing newlines
        at = rest.find(needle)
        if at < 0:
            continue
        if at:
            parts.append((rest[:at], None))
        parts.append((needle, f"[pasted {describe(block)}]"))
        rest = rest[at + len(needle) :]
    if rest:
        parts.append((rest, None))
    return parts
