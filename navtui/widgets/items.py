"""Transcript items: plain records of what the transcript shows.

(A session record is an ``Entry``, in ``navtui.session.entries``; ``app/session_view.py`` turns entries into
items.) The transcript keeps every item but mounts widgets only for a window of the newest ones; an item can
build its widget again when the user scrolls back. Live widgets write their state back into their item.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, MutableSequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

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
    tag: str | None = None  # a notice with a tag updates the one just before it with the same tag


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


# /find's own notices ("Nothing in this session holds “x”") hold the words searched for: /find never reads them.
FIND_TAG = "find"


def item_text(item: TranscriptItem) -> str:
    """What /find reads of an item: the words its widget shows, collapsed parts included (a tool card's command
    and output, a thought, a divider's notes); nothing of /find's own notices."""
    match item:
        case NoticeItem(tag=tag) if tag == FIND_TAG:
            return ""
        case UserItem(text=text) | AssistantItem(text=text) | ThinkingItem(text=text) | NoticeItem(text=text):
            return text
        case ToolItem():
            return "\n".join(
                (item.name, item.title or "", *map(str, item.arguments.values()), *item.output, item.result)
            )
        case ErrorItem(message=message, hint=hint):
            return f"{message}\n{hint or ''}"
        case DividerItem(label=label, detail=detail):
            return f"{label}\n{detail or ''}"
        case AdvisorItem(note=note):
            return note
        case ContextItem(text=text, files=files):
            return "\n".join((text, *files))
    return ""


Maker = Callable[[], list[TranscriptItem]]


class TranscriptItems(MutableSequence[TranscriptItem]):
    """A long session's items, the older ones made when they are first read (scrolling back).

    ``chunks`` are (how many items, a function that makes them, or the items made) in order, then ``tail``, the newest items, made
    already. A chunk's items are made when one of them is read, and kept from then on (the widgets write their
    state back into them: a card opened stays open). The function must make the same items every time (from
    the session's lines: docs/speed.md, "Sixth wave"). A 5,000-entry session's items held ~4 MB of its text.
    """

    def __init__(self, chunks: list[tuple[int, Maker | list[TranscriptItem]]], tail: list[TranscriptItem]) -> None:
        self._makers: list[Maker | None] = [None if isinstance(make, list) else make for _, make in chunks]
        self._made: list[list[TranscriptItem] | None] = [make if isinstance(make, list) else None for _, make in chunks]
        self._starts: list[int] = []
        start = 0
        for count, _ in chunks:
            self._starts.append(start)
            start += count
        self._counts = [count for count, _ in chunks]
        self._held = start  # items in chunks
        self._tail = tail

    @property
    def unmade(self) -> int:
        """How many items are not made yet (for tests and the benchmark)."""
        return sum(count for count, made in zip(self._counts, self._made, strict=True) if made is None)

    def _chunk(self, number: int) -> list[TranscriptItem]:
        made = self._made[number]
        if made is None:
            make = self._makers[number]
            assert make is not None
            made = make()
            if len(made) != self._counts[number]:  # pragma: no cover - a maker gives what it gave at load
                raise RuntimeError(f"transcript chunk {number} made {len(made)} items, not {self._counts[number]}")
            self._made[number], self._makers[number] = made, None
        return made

    def _at(self, index: int) -> tuple[list[TranscriptItem], int]:
        if index >= self._held:
            return self._tail, index - self._held
        number = bisect.bisect_right(self._starts, index) - 1
        return self._chunk(number), index - self._starts[number]

    def _index(self, index: int) -> int:
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("transcript item index out of range")
        return index

    def __len__(self) -> int:
        return self._held + len(self._tail)

    @overload
    def __getitem__(self, index: int) -> TranscriptItem: ...
    @overload
    def __getitem__(self, index: slice) -> list[TranscriptItem]: ...
    def __getitem__(self, index: int | slice) -> TranscriptItem | list[TranscriptItem]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        items, at = self._at(self._index(index))
        return items[at]

    def __iter__(self) -> Iterator[TranscriptItem]:
        for number in range(len(self._made)):
            yield from self._chunk(number)
        yield from self._tail

    @overload
    def __setitem__(self, index: int, value: TranscriptItem) -> None: ...
    @overload
    def __setitem__(self, index: slice, value: Iterable[TranscriptItem]) -> None: ...
    def __setitem__(self, index: int | slice, value: Any) -> None:
        if isinstance(index, slice):
            self._flatten()
            self._tail[index] = value
            return
        items, at = self._at(self._index(index))
        items[at] = value

    def __delitem__(self, index: int | slice) -> None:
        self._flatten()
        del self._tail[index]

    def insert(self, index: int, value: TranscriptItem) -> None:
        self._flatten()
        self._tail.insert(index, value)

    def append(self, value: TranscriptItem) -> None:
        self._tail.append(value)

    def _flatten(self) -> None:
        """Every item made and in one list (a change other than an append or an assignment: none of navtui's)."""
        self._tail = [*self]
        self._makers, self._made, self._starts, self._counts, self._held = [], [], [], [], 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TranscriptItems | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TranscriptItems({len(self)} items, {self.unmade} not made)"
