"""Transcript items: plain records of what the transcript shows.

(A session record is an ``Entry``, in ``navtui.session.items``; ``app/session_view.py`` turns items into
items.) The transcript keeps every item but mounts widgets only for a window of the newest ones; an item can
build its widget again when the user scrolls back. Live widgets write their state back into their item.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ToolStatus = Literal["pending", "success", "error"]
Level = Literal["info", "warning", "error"]


@dataclass
class TranscriptItem:
    """Base of every transcript record."""


@dataclass
class UserItem(TranscriptItem):
    text: str
    kind: str = "prompt"  # prompt | queued | steer | nudge | context
    pasted: list[str] | None = None  # long pastes in ``text``, shown collapsed (None: not known, see pasted.py)
    expanded: bool = False


@dataclass
class AssistantItem(TranscriptItem):
    text: str = ""
    streaming: bool = False


@dataclass
class ThinkingItem(TranscriptItem):
    text: str = ""
    streaming: bool = False
    expanded: bool = False


@dataclass
class ToolItem(TranscriptItem):
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
class NoticeItem(TranscriptItem):
    text: str
    level: Level = "info"
    title: str | None = None


@dataclass
class AdvisorItem(TranscriptItem):
    """The advisor's advice: one card per delivery (nits arrive batched)."""

    note: str
    severity: str = "nit"  # nit | concern | blocker


@dataclass
class ContextItem(TranscriptItem):
    """Context added before the model started (the repository index): collapsed to the file list."""

    source: str
    text: str
    files: list[str] = field(default_factory=list)
    tokens: int = 0
    expanded: bool = False


@dataclass
class ErrorItem(TranscriptItem):
    message: str
    hint: str | None = None


@dataclass
class DividerItem(TranscriptItem):
    label: str
    detail: str | None = None  # e.g. handover notes, shown when expanded
    expanded: bool = False


@dataclass
class WelcomeItem(TranscriptItem):
    cwd: str
    model: str
    provider: str


@dataclass
class ProviderHelpItem(TranscriptItem):
    message: str
    hint: str | None = None
    steps: list[str] = field(default_factory=list)


@dataclass
class PullItem(TranscriptItem):
    """A model download (``/models pull``): its latest progress line, then how it ended."""

    model: str
    status: str = "starting"
    completed: int | None = None
    total: int | None = None
    state: Literal["running", "done", "failed", "cancelled"] = "running"
    message: str = ""  # how it ended, in words
