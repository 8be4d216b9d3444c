"""The agent's context as a list whose older messages may stay in the session's lines until they are read.

A resumed session's context is every message since its latest compaction: a never-compacted 5,000-entry branch is
~5,000 messages (8.6 MB of pydantic models), nearly all of which the first request's compaction summarizes away.
``ContextMessages`` holds its newest messages and, for the older ones, only where to read each (a loader and a
position: the session's index keeps the line) and its token estimate, counted once when the context was built.

It behaves as the list it stands for: reading an item, a slice or iterating gives the messages the list would
hold (a message read is parsed from its line; while anyone still holds it, the session gives the same object
again), equal to them; every change is the list's. ``hold`` reads every message in and keeps it: the agent does
before its first request, so what stays lazy is only what a resumed session has not yet sent (and, in a session
that compacts, never will). ``messages_tokens`` sums the estimates without reading a line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, MutableSequence
from typing import TYPE_CHECKING, Any, overload

from navtui.core.messages import ToolResultMessage
from navtui.core.tokens import estimate_message_tokens, estimate_text_tokens

if TYPE_CHECKING:
    from navtui.core.messages import AssistantMessage, UserMessage

    AnyMessage = UserMessage | AssistantMessage | ToolResultMessage


PRUNED_PREFIX = "[output pruned:"  # a tool result blanked by pruning (agent/pruning.py) starts so


def result_tokens(message: Any) -> int | None:
    """What pruning weighs of a tool result not pruned yet: its text's estimate; None for any other message."""
    if not isinstance(message, ToolResultMessage) or message.text.startswith(PRUNED_PREFIX):
        return None
    return estimate_text_tokens(message.text)


class Lazy:
    """An older message not held: how to read it, its token estimate (``estimate_message_tokens``), for a tool
    result not pruned yet its text's (``estimate_text_tokens``: what pruning weighs; else None), and the id of the
    session entry whose own message it is (None when the context made it: a custom message, a copy with its
    blobs resolved), by which compaction names what it keeps."""

    __slots__ = ("load", "position", "tokens", "result_tokens", "entry_id")

    def __init__(
        self,
        load: Callable[[int], AnyMessage],
        position: int,
        tokens: int,
        result_tokens: int | None = None,
        entry_id: str | None = None,
    ) -> None:
        self.load = load
        self.position = position
        self.tokens = tokens
        self.result_tokens = result_tokens
        self.entry_id = entry_id

    def __repr__(self) -> str:
        return f"Lazy({self.position}, tokens={self.tokens})"


class ContextMessages(MutableSequence["AnyMessage"]):
    """A list of messages, some of them ``Lazy`` (read when they are read). Slices are lists; equal to a list of
    the same messages."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[AnyMessage | Lazy] = ()) -> None:
        self._items: list[AnyMessage | Lazy] = list(items._items) if isinstance(items, ContextMessages) else list(items)

    # ------------------------------------------------------------------ what is held
    @property
    def lazy_count(self) -> int:
        """How many messages are not held (read from their lines when read)."""
        return sum(isinstance(item, Lazy) for item in self._items)

    def hold(self) -> None:
        """Read every message not held yet, and keep it: a plain list from then on."""
        items = self._items
        for index, item in enumerate(items):
            if isinstance(item, Lazy):
                items[index] = item.load(item.position)

    def copy(self) -> ContextMessages:
        return ContextMessages(self)

    def lazy_at(self, index: int) -> Lazy | None:
        """What stands for ``self[index]`` when it is not held (its line not read), else None."""
        item = self._items[index]
        return item if isinstance(item, Lazy) else None

    def held(self) -> Iterator[AnyMessage]:
        """The messages held (read or given), reading no line."""
        return (item for item in self._items if not isinstance(item, Lazy))

    def tokens(self, start: int = 0, stop: int | None = None) -> int:
        """The sum of ``estimate_message_tokens`` over ``self[start:stop]``, reading no line."""
        return sum(
            item.tokens if isinstance(item, Lazy) else estimate_message_tokens(item) for item in self._items[start:stop]
        )

    # ------------------------------------------------------------------ the list
    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> AnyMessage: ...
    @overload
    def __getitem__(self, index: slice) -> list[AnyMessage]: ...
    def __getitem__(self, index: int | slice) -> AnyMessage | list[AnyMessage]:
        if isinstance(index, slice):
            return [_read(item) for item in self._items[index]]
        return _read(self._items[index])

    @overload
    def __setitem__(self, index: int, value: AnyMessage) -> None: ...
    @overload
    def __setitem__(self, index: slice, value: Iterable[AnyMessage]) -> None: ...
    def __setitem__(self, index: int | slice, value: Any) -> None:
        if isinstance(index, slice):
            self._items[index] = list(value._items) if isinstance(value, ContextMessages) else list(value)
        else:
            self._items[index] = value

    def __delitem__(self, index: int | slice) -> None:
        del self._items[index]

    def insert(self, index: int, value: AnyMessage) -> None:
        self._items.insert(index, value)

    def append(self, value: AnyMessage) -> None:
        self._items.append(value)

    def extend(self, values: Iterable[AnyMessage]) -> None:
        self._items.extend(list(values._items) if isinstance(values, ContextMessages) else list(values))

    def clear(self) -> None:
        self._items.clear()

    def __iter__(self) -> Iterator[AnyMessage]:
        items = self._items
        index = 0
        while index < len(items):  # as a list's iterator: what is appended meanwhile is reached too
            yield _read(items[index])
            index += 1

    def __reversed__(self) -> Iterator[AnyMessage]:
        items = self._items
        index = len(items) - 1
        while 0 <= index < len(items):
            yield _read(items[index])
            index -= 1

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ContextMessages | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ContextMessages({len(self._items)} messages, {self.lazy_count} not held)"


def _read(item: AnyMessage | Lazy) -> AnyMessage:
    return item.load(item.position) if isinstance(item, Lazy) else item


def messages_tokens(messages: Iterable[Any], start: int = 0) -> int:
    """The sum of ``estimate_message_tokens`` over ``messages[start:]``; a ``ContextMessages`` reads no line."""
    if isinstance(messages, ContextMessages):
        return messages.tokens(start)
    if start:
        messages = list(messages)[start:]
    return sum(estimate_message_tokens(m) for m in messages)
