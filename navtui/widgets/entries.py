"""Transcript entries: plain records of what the transcript shows.

The transcript keeps every entry but mounts widgets only for a window of the newest ones; a record can build
its widget again when the user scrolls back. Live widgets write their state back into their record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ToolStatus = Literal["pending", "success", "error"]
Level = Literal["info", "warning", "error"]


@dataclass
class Entry:
    """Base of every transcript record."""


@dataclass
class UserEntry(Entry):
    text: str
    kind: str = "prompt"  # prompt | queued | steer | nudge | context


@dataclass
class AssistantEntry(Entry):
    text: str = ""
    streaming: bool = False


@dataclass
class ThinkingEntry(Entry):
    text: str = ""
    streaming: bool = False
    expanded: bool = False


@dataclass
class ToolEntry(Entry):
    call_id: str
    name: str
    title: str | None = None  # the key arguments, one line (filled in when the card is first shown)
    arguments: dict[str, Any] = field(default_factory=dict)
    status: ToolStatus = "pending"
    output: list[str] = field(default_factory=list)  # streamed output lines while running (bounded)
    output_lines: int = 0  # how many lines streamed in total
    result: str = ""
    diff: str | None = None
    details: dict[str, Any] | None = None
    expanded: bool | None = None  # None: the card decides (errors and diffs open, the rest closed)


@dataclass
class NoticeEntry(Entry):
    text: str
    level: Level = "info"
    title: str | None = None


@dataclass
class AdvisorEntry(Entry):
    """The advisor's advice: one card per delivery (nits arrive batched)."""

    note: str
    severity: str = "nit"  # nit | concern | blocker


@dataclass
class ContextEntry(Entry):
    """Context added before the model started (the repository index): collapsed to the file list."""

    source: str
    text: str
    files: list[str] = field(default_factory=list)
    tokens: int = 0
    expanded: bool = False


@dataclass
class ErrorEntry(Entry):
    message: str
    hint: str | None = None


@dataclass
class DividerEntry(Entry):
    label: str
    detail: str | None = None  # e.g. handover notes, shown when expanded
    expanded: bool = False


@dataclass
class WelcomeEntry(Entry):
    cwd: str
    model: str
    provider: str


@dataclass
class ProviderHelpEntry(Entry):
    message: str
    hint: str | None = None
    steps: list[str] = field(default_factory=list)
