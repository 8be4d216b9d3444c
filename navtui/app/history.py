"""Prompt history kept across runs (``~/.navtui/prompt-history.jsonl``, one JSON string per line).

Reading and appending happen in threads (``load`` and ``save`` are called through ``asyncio.to_thread``);
navigation is pure and works on the loaded list.
"""

from __future__ import annotations

import json
from pathlib import Path

MAX_ENTRIES = 1000


class PromptHistory:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: list[str] = []
        self._index: int | None = None  # position while walking; None means "not walking"
        self._draft = ""

    def load(self) -> None:
        """Read the file (call it in a thread). A damaged line is skipped, never fatal."""
        if self.path is None:
            return
        try:
            raw = self.path.read_text(encoding="utf-8")
        except OSError:
            return
        entries: list[str] = []
        for line in raw.split("\n"):
            try:
                value = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                continue
            if isinstance(value, str) and value.strip():
                entries.append(value)
        self.entries = entries[-MAX_ENTRIES:] + self.entries

    def add(self, text: str) -> bool:
        """Record a sent prompt; returns False for a blank one or a repeat of the last."""
        self._index = None
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return False
        self.entries.append(text)
        return True

    def save(self, text: str) -> None:
        """Append one prompt to the file (call it in a thread); errors only lose history, never the prompt."""
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(text) + "\n")
        except OSError:
            pass

    def previous(self, current: str) -> str | None:
        """The prompt before the one shown (``current`` is kept as a draft to come back to)."""
        if not self.entries:
            return None
        if self._index is None:
            self._draft = current
            self._index = len(self.entries)
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def next(self) -> str | None:
        """The prompt after the one shown; past the newest, the draft comes back."""
        if self._index is None:
            return None
        self._index += 1
        if self._index >= len(self.entries):
            self._index = None
            return self._draft
        return self.entries[self._index]

    def reset(self) -> None:
        self._index = None
