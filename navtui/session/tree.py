"""The entries of one session indexed as a tree: by id, parent links, labels and the session name (pi's
``session_info`` or omp's ``title_change``, whichever came last).

An entry is kept as its compact JSON line and parsed when it is read: a 5,000-entry session is 3.4 MB of lines
against 24 MB of parsed entries (docs/speed.md, "Memory over a long session"). What the tree needs without parsing
(id, parent id, type) is kept beside the lines; labels, names and title changes stay parsed (few, and read on
every load). The kind of row each entry is in the tree is kept too, derived from a message line as it is loaded
(``kinds.record_kind``), so the tree parses only the rows it draws. An entry read is remembered while anyone still holds it, and the newest read stay (``RECENT`` of them,
``RECENT_BYTES`` of lines at most): reading it again gives the same object. A message entry read again while its
message is still held (the agent's context) carries that same message, so the agent can name its messages by the
session's entries. ``pack()``, run by the app in a worker thread while idle, compresses the lines ``BLOCK`` at a
time (0.7 MB for those 3.4 MB); opening a file does not compress (it would take as long again as the parse).
"""

from __future__ import annotations

import json
import sys
import threading
import weakref
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Container, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar, overload

from pydantic import ValidationError

from navtui.core.messages import Message, now_ms
from navtui.session.entries import (
    Entry,
    LabelEntry,
    MessageEntry,
    RawEntry,
    SessionInfoEntry,
    now_iso,
    parse_entry,
    parse_line,
)
from navtui.session.kinds import entry_kind, record_kind
from navtui.session.store import encode_line, gc_paused

RECENT = 64  # parsed entries kept however nobody holds them (the newest read): the readers' hot tail ...
RECENT_BYTES = 256 * 1024  # ... as long as their lines add up to no more than this (a long answer is 80 KB)
BLOCK = 32  # lines compressed together by pack() (zlib level 1: ~5x smaller for session lines)
SOLO_BYTES = 8 * 1024  # a line this long waiting for its block to fill is compressed on its own (a long answer)
CHUNK = 256  # entries a branch's iteration parses at a time
T = TypeVar("T")
_KEPT_PARSED = frozenset({"label", "session_info", "title_change"})  # what the index reads of them: label, name


class TreeNode:
    """One indexed entry in the forest. What the tree's rows need of every entry (id, parent, kind) is read
    from the index; the entry itself is parsed when ``entry`` is read."""

    __slots__ = ("_index", "position", "children", "label")

    def __init__(self, index: EntryIndex, position: int, label: str | None = None) -> None:
        self._index = index
        self.position = position
        self.children: list[TreeNode] = []
        self.label = label

    @property
    def entry(self) -> Entry:
        return self._index._entry(self.position)

    @property
    def id(self) -> str | None:
        return self._index._ids[self.position]

    @property
    def parent_id(self) -> str | None:
        return self._index._parents[self.position]

    @property
    def kind(self) -> str:
        """The row kind (``kinds.entry_kind``), without parsing the entry when the index knows it."""
        return self._index.kind(self.position)

    def __repr__(self) -> str:
        return f"TreeNode({self.id!r}, children={len(self.children)})"


class EntryIndex(Container[str]):
    """Entries in file order plus what is derived from them. Only the first entry with a given id is indexed.

    ``in`` tells whether an id is indexed; ``len`` and iteration cover every entry in file order (each parsed
    as it is reached).
    """

    def __init__(self, *, block: int = BLOCK, solo: int = SOLO_BYTES) -> None:
        self.labels: dict[str, str] = {}
        self.name: str | None = None
        self.duplicate_ids = 0
        # An entry's line (without its newline), or the entry kept parsed, or None: the line is in its block (or,
        # a long one whose block is not full yet, compressed alone: ``_solo``).
        self._slots: list[bytes | Entry | None] = []
        # The lines of positions [k * block, (k + 1) * block) joined by newlines and compressed (an entry kept
        # parsed: an empty line), made by pack() while the app is idle; lines not packed yet stay in their slots.
        self._block = block
        self._blocks: list[bytes] = []
        # A long line of the block not full yet, compressed alone until its block is (position -> compressed line):
        # a session of ten long answers keeps them plain for hundreds of entries otherwise (~80 KB each).
        self._solo: dict[int, bytes] = {}
        self._solo_bytes = solo
        self._sizes = array("I")  # each line's length (0: kept parsed), for the newest read's budget
        self._unpacked: tuple[int, list[bytes]] = (-1, [])  # the block read last, decompressed
        self._ids: list[str | None] = []
        self._types: list[str] = []  # the line's type (what parse_entry reads it as: "message", "custom" ...)
        self._kinds: list[str | None] = []  # the tree's row kind (kinds.entry_kind); None: parse to know it
        self._parents: list[str | None] = []
        # 1 where the line is a message entry holding nothing else beside its message (type, id, parentId and a
        # timestamp string): with its message still held, the entry is made again without reading the line, from
        # the timestamp noted when it was read (``_stamps``, kept only while some message may still be held: a
        # string for every entry was 0.37 MB of a 5,000-entry session).
        self._plain = bytearray()
        self._stamps: dict[int, str] = {}
        self._position: dict[str, int] = {}  # id -> the position of the first entry with it
        # parent id -> its children's positions: an int for an only child (most entries have one: 0.5 MB of
        # one-item lists for 5,000 entries), a list from the second on
        self._children: dict[str, int | list[int]] = {}
        self._recent: OrderedDict[int, Entry] = OrderedDict()
        self._recent_bytes = 0
        self._live: _WeakMap[Entry] = _WeakMap()
        self._live_messages: _WeakMap[Any] = _WeakMap()
        self._lock = threading.Lock()
        self._packing = threading.Lock()
        self.lines_parsed = 0  # how many times a line was parsed (for tests: a reader parses what it reads)
        self._undated: set[int] = set()  # lines without a timestamp (theirs or their message's)
        self._loaded_iso, self._loaded_ms = now_iso(), now_ms()

    # ------------------------------------------------------------------ adding
    def add(self, entry: Entry, *, keep: bool = False) -> None:
        """An entry made in this session (or already parsed); kept as its JSON line unless the index reads it
        (or ``keep``: a short-lived index of entries the caller holds anyway)."""
        kind = entry_kind(entry)
        if keep or entry.type in _KEPT_PARSED:
            self._insert(entry, entry.type, entry.id, entry.parent_id, entry, row_kind=kind)
            return
        line = encode_line(entry.to_json())[:-1]
        plain = isinstance(entry, MessageEntry) and not entry.model_extra and entry.id is not None
        position = self._insert(line, entry.type, entry.id, entry.parent_id, None, plain=plain, row_kind=kind)
        with self._lock:
            self._remember(position, entry)

    def add_line(self, line: bytes, record: dict[str, Any]) -> None:
        """A line read from the file and its decoded ``record``; parsed only when it is read (or kept parsed)."""
        message = record.get("message")
        if "timestamp" not in record or (type(message) is dict and "timestamp" not in message):
            self._undated.add(len(self._slots))
        if (type(record.get("type")) is str and record["type"] in _KEPT_PARSED) or "parent_id" in record:
            # Kept parsed; or a parent spelled by name, which only a model reads as one: the model says.
            entry = parse_entry(record)
            if entry.type in _KEPT_PARSED:
                self._insert(entry, entry.type, entry.id, entry.parent_id, entry, row_kind=entry_kind(entry))
            else:
                self._insert(line, entry.type, entry.id, entry.parent_id, None, row_kind=entry_kind(entry))
            return
        # What parse_entry's models read: a type, id and parent id only when they are strings (else the line is
        # raw, whose fields are the same strings, or "").
        kind, entry_id, parent_id = record.get("type"), record.get("id"), record.get("parentId")
        plain = (
            kind == "message"
            and len(record) == 5
            and "parentId" in record
            and type(entry_id) is str
            and type(record.get("timestamp")) is str
            and (parent_id is None or type(parent_id) is str)
        )
        self._insert(
            line,
            kind if type(kind) is str else "",
            entry_id if type(entry_id) is str else None,
            parent_id if type(parent_id) is str else None,
            None,
            plain=plain,
            row_kind=record_kind(record),
        )

    def _insert(
        self,
        slot: bytes | Entry,
        kind: str,
        entry_id: str | None,
        parent_id: str | None,
        entry: Entry | None,
        *,
        plain: bool = False,
        row_kind: str | None,
    ) -> int:
        position = len(self._slots)
        if entry_id is not None:
            entry_id = sys.intern(entry_id)
        if parent_id is not None:
            parent_id = sys.intern(parent_id)
        self._slots.append(slot)
        self._sizes.append(len(slot) if isinstance(slot, bytes) else 0)
        self._types.append(sys.intern(kind))
        self._ids.append(entry_id)
        self._parents.append(parent_id)
        self._plain.append(plain)
        self._kinds.append(row_kind)
        if entry_id is not None:
            if entry_id in self._position:
                self.duplicate_ids += 1
            else:
                self._position[entry_id] = position
                if parent_id is not None and parent_id != entry_id:
                    children = self._children.get(parent_id)
                    if children is None:
                        self._children[parent_id] = position
                    elif isinstance(children, int):
                        self._children[parent_id] = [children, position]
                    else:
                        children.append(position)
        if entry is None:
            return position
        if isinstance(entry, LabelEntry):
            if entry.label:
                self.labels[entry.target_id] = entry.label
            else:
                self.labels.pop(entry.target_id, None)
        elif isinstance(entry, SessionInfoEntry):
            self.name = entry.name or None
        elif isinstance(entry, RawEntry) and entry.type == "title_change":  # omp's record of a renamed session
            title = entry.raw.get("title")
            self.name = title if isinstance(title, str) and title else None
        return position

    # ------------------------------------------------------------------ reading
    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._position

    def __len__(self) -> int:
        return len(self._slots)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries(range(len(self._slots))))

    def _entries(self, positions: Iterable[int]) -> list[Entry]:
        """The entries at ``positions``, parsed in one go with the collector paused (it would walk what is being
        built, again and again)."""
        with gc_paused():
            return [self._entry(position) for position in positions]

    def entry_at(self, position: int) -> Entry:
        """The entry at ``position`` (``Branch.positions``), parsed when it is not held."""
        return self._entry(position)

    def get(self, entry_id: str) -> Entry | None:
        position = self._position.get(entry_id)
        return self._entry(position) if position is not None else None

    def kind(self, position: int) -> str:
        """The tree's row kind of the entry at ``position`` (parsed, once, when the line did not tell)."""
        kind = self._kinds[position]
        if kind is None:
            self._entry(position)  # (a parse notes the kind)
            kind = self._kinds[position]
            assert kind is not None
        return kind

    def first_of_kind(self, kind: str) -> Entry | None:
        """The first entry in file order whose row kind is ``kind`` (``kinds.entry_kind``), parsing only it and the
        lines whose kind their fields did not tell."""
        kinds = self._kinds
        for position in range(len(kinds)):
            if (kinds[position] or self.kind(position)) == kind:
                entry = self._entry(position)
                if entry_kind(entry) == kind:  # (a line read as one kind that proved not valid is raw)
                    return entry
        return None

    def parsed_count(self) -> int:
        """Entries held parsed by the index itself (kept parsed, or among the newest read)."""
        return sum(slot is not None and not isinstance(slot, bytes) for slot in self._slots) + len(self._recent)

    def lines_size(self) -> int:
        """Bytes the index holds of its lines: the compressed blocks, and the lines not in one yet."""
        plain = sum(len(slot) for slot in self._slots if isinstance(slot, bytes))
        return sum(map(len, self._blocks)) + sum(map(len, self._solo.values())) + plain

    def last_id(self) -> str | None:
        """The newest indexed entry (the leaf a freshly opened session starts at)."""
        for position in range(len(self._ids) - 1, -1, -1):
            entry_id = self._ids[position]
            if entry_id is not None and self._position.get(entry_id) == position:
                return entry_id
        return None

    def path(self, leaf_id: str) -> Branch:
        """Root to ``leaf_id`` (a broken chain stops at the first missing parent; a cycle at its repeat)."""
        positions: list[int] = []
        seen: set[str] = set()
        position = self._position.get(leaf_id)
        while position is not None:
            entry_id = self._ids[position]
            if entry_id in seen:
                break
            seen.add(entry_id)  # type: ignore[arg-type]
            positions.append(position)
            parent = self._parents[position]
            position = self._position.get(parent) if parent is not None else None
        positions.reverse()
        return Branch(self, positions)

    def children(self, parent_id: str | None) -> list[Entry]:
        """Direct children of ``parent_id`` in file order; ``None``: the roots (orphans included)."""
        if parent_id is not None:
            children = self._children.get(parent_id, ())
            return self._entries((children,) if isinstance(children, int) else children)
        parents, known = self._parents, self._position
        return self._entries(
            position
            for entry_id, position in known.items()
            if parents[position] not in known or parents[position] == entry_id
        )

    def tree(self) -> list[TreeNode]:
        """Every indexed entry as a forest; children oldest first. Orphans and cycle members become roots."""
        labels, parents = self.labels, self._parents
        nodes = {
            entry_id: TreeNode(self, position, labels.get(entry_id)) for entry_id, position in self._position.items()
        }
        roots: list[TreeNode] = []
        parent_of: dict[str, TreeNode] = {}
        for entry_id, node in nodes.items():
            parent_id = parents[node.position]
            parent = nodes.get(parent_id) if parent_id is not None and parent_id != entry_id else None
            if parent is None:
                roots.append(node)
            else:
                parent.children.append(node)
                parent_of[entry_id] = parent
        reached = _reach(roots)
        if len(reached) < len(nodes):
            for entry_id, node in nodes.items():  # cycles: cut each at its first member in file order
                if entry_id not in reached:
                    parent_of[entry_id].children.remove(node)
                    roots.append(node)
                    reached |= _reach([node])
        # Siblings are ordered by time: only entries with siblings are parsed for it.
        with gc_paused():
            if len(roots) > 1:
                roots.sort(key=_by_time)
            stack = list(roots)
            while stack:
                node = stack.pop()
                if len(node.children) > 1:
                    node.children.sort(key=_by_time)
                stack.extend(node.children)
        return roots

    # ------------------------------------------------------------------ the lines
    def pack(self) -> int:
        """Compress the lines of every full block not compressed yet, oldest first, then each line of at least
        ``SOLO_BYTES`` in the block not full yet on its own; return how many blocks and lone lines were packed.
        Safe in a worker thread while the loop reads and appends: a block or line is compressed outside the lock
        (zlib lets go of the GIL while it works; lines never change once indexed), then its slots let go of their
        lines under the lock, the compressed copy stored first. One packer at a time (a second waits, then finds
        less to do). Not at load: compressing took as long again as the parse (docs/speed.md, "Sixth wave")."""
        with self._packing:
            return self._pack()

    def _pack(self) -> int:
        size, packed = self._block, 0
        while True:
            block = len(self._blocks)
            start = block * size
            if start + size > len(self._slots):
                break
            lines = (self._plain_line(position) for position in range(start, start + size))
            data = zlib.compress(b"\n".join(lines), 1)
            with self._lock:
                self._blocks.append(data)
                for position in range(start, start + size):
                    if isinstance(self._slots[position], bytes):
                        self._slots[position] = None
                    self._solo.pop(position, None)
            packed += 1
        for position in range(len(self._blocks) * size, len(self._slots)):
            slot = self._slots[position]
            if isinstance(slot, bytes) and len(slot) >= self._solo_bytes:
                data = zlib.compress(slot, 1)
                with self._lock:
                    self._solo[position] = data
                    self._slots[position] = None
                packed += 1
        return packed

    def _plain_line(self, position: int) -> bytes:
        """The packer's read of a line not in a block yet (b"" for an entry kept parsed)."""
        slot = self._slots[position]
        if isinstance(slot, bytes):
            return slot
        solo = self._solo.get(position) if slot is None else None
        return zlib.decompress(solo) if solo is not None else b""

    def line(self, position: int) -> bytes:
        """The line of the entry at ``position`` as it was read (an appended entry: its compact JSON); b"" for an
        entry kept parsed."""
        with self._lock:  # (the block read last is shared)
            return self._line(position)

    def _line(self, position: int) -> bytes:
        slot = self._slots[position]
        if isinstance(slot, bytes):
            return slot
        if slot is not None:
            return b""
        solo = self._solo.get(position)
        if solo is not None:
            return zlib.decompress(solo)
        block, at = divmod(position, self._block)
        if self._unpacked[0] != block:
            self._unpacked = (block, zlib.decompress(self._blocks[block]).split(b"\n"))
        return self._unpacked[1][at]

    # ------------------------------------------------------------------ parsing
    def _entry(self, position: int) -> Entry:
        slot = self._slots[position]
        if slot is not None and not isinstance(slot, bytes):
            return slot
        with self._lock:  # a path may be read in a worker thread (checkpoints) while the loop reads too
            entry = self._recent.get(position)
            if entry is not None:
                self._recent.move_to_end(position)
                return entry
            entry = self._live.get(position)
            if entry is None:
                entry = self._parse(position)
                if self._kinds[position] is None or isinstance(entry, RawEntry):
                    # (or a line its kind was read from that proved not valid: a raw entry's kind)
                    self._kinds[position] = entry_kind(entry)
            self._remember(position, entry)
            return entry

    def _parse(self, position: int) -> Entry:
        message: Message | None = self._live_messages.get(position)
        entry: Entry | None = None
        if message is not None and self._plain[position] and (stamp := self._stamps.get(position)) is not None:
            # Still in someone's hands (the agent's context), and the line holds nothing else: made again
            # around that same object (equal to the line's entry), without reading the line.
            entry_id = self._ids[position]
            assert entry_id is not None  # (a line with a stamp has a string id)
            return MessageEntry.model_construct(
                id=entry_id, parent_id=self._parents[position], timestamp=stamp, message=message
            )
        line = self._line(position)
        if message is not None:  # still in someone's hands: the same object again
            try:
                entry = MessageEntry.model_validate({**json.loads(line), "message": message})
            except ValidationError:  # pragma: no cover - the line made this message: it validates again
                pass
        if entry is None:
            entry = parse_line(self._types[position], line)
            self.lines_parsed += 1
        if position in self._undated:
            self._date(entry)
        return entry

    def _date(self, entry: Entry) -> None:
        """A line without a timestamp reads as loaded now, every time (as it did when every line was parsed at
        load): a model's default would be the time of each read."""
        if isinstance(entry, RawEntry):
            return  # (no default: a raw line keeps what it has)
        if "timestamp" not in entry.model_fields_set:
            entry.__dict__["timestamp"] = self._loaded_iso
        message = entry.message if isinstance(entry, MessageEntry) else None
        if message is not None and "timestamp" not in message.model_fields_set:
            message.__dict__["timestamp"] = self._loaded_ms

    def _remember(self, position: int, entry: Entry) -> None:
        if self._live.get(position) is not entry:
            self._live[position] = entry
        if isinstance(entry, MessageEntry):
            if self._live_messages.get(position) is not entry.message:
                self._live_messages[position] = entry.message
            if self._plain[position]:
                self._note_stamp(position, entry.timestamp)
        recent = self._recent
        if position not in recent:
            self._recent_bytes += self._size(position)
        recent[position] = entry
        recent.move_to_end(position)
        while len(recent) > RECENT or (self._recent_bytes > RECENT_BYTES and len(recent) > 1):
            self._recent_bytes -= self._size(recent.popitem(last=False)[0])

    def _note_stamp(self, position: int, stamp: str) -> None:
        """Note a plain message entry's timestamp for as long as its message may be held; the notes of messages
        no longer held are dropped once they outnumber the held ones (a branch read whole notes every entry)."""
        stamps, live = self._stamps, self._live_messages
        stamps[position] = stamp
        if len(stamps) > 2 * len(live) + RECENT:
            live.purge()
            self._stamps = {held: stamps[held] for held in stamps if held in live}

    def _size(self, position: int) -> int:
        return self._sizes[position]


class _WeakMap(Generic[T]):
    """Position -> an object while someone else holds it. ``weakref.WeakValueDictionary`` runs Python code to make
    each reference and again when its object goes (the context of the bench's 20,000-entry session: 0.92-0.96 s of
    CPU with it, 0.86-0.88 s without, load 3.8). Here a reference is a plain one whose callback is a list's
    ``append`` (no Python frame): the references of objects gone are counted by it, and dropped once they are many."""

    __slots__ = ("_refs", "_gone", "_note_gone")

    def __init__(self) -> None:
        self._refs: dict[int, weakref.ref[T]] = {}
        self._gone: list[weakref.ref[T]] = []  # references whose object went since the last purge
        self._note_gone = self._gone.append

    def get(self, position: int) -> T | None:
        ref = self._refs.get(position)
        return ref() if ref is not None else None

    def __setitem__(self, position: int, value: T) -> None:
        self._refs[position] = weakref.ref(value, self._note_gone)
        if len(self._gone) > len(self._refs) // 2 + _WEAK_MAP_SLACK:
            self.purge()

    def __contains__(self, position: int) -> bool:
        return self.get(position) is not None

    def __len__(self) -> int:
        """How many objects are held, or fewer (a position read again after its object went is counted gone)."""
        return max(0, len(self._refs) - len(self._gone))

    def purge(self) -> None:
        """Drop the references whose objects are gone."""
        self._refs = {position: ref for position, ref in self._refs.items() if ref() is not None}
        self._gone.clear()


_WEAK_MAP_SLACK = 256


class Branch(Sequence[Entry]):
    """A root-to-leaf path whose entries are parsed as they are read: a reader that walks back from the leaf and
    stops early (the latest checkpoint) parses only what it reads. Slices are lists; equal to a list of the same
    entries."""

    def __init__(self, index: EntryIndex, positions: list[int]) -> None:
        self._index = index
        self._positions = positions

    @property
    def entry_index(self) -> EntryIndex:
        return self._index

    @property
    def positions(self) -> list[int]:
        """Where the entries are in the index, root first (``EntryIndex.entry_at``)."""
        return self._positions

    @property
    def ids(self) -> list[str]:
        """The entries' ids, root first, without parsing them."""
        ids = self._index._ids
        return [ids[position] for position in self._positions]  # type: ignore[misc]

    @property
    def types(self) -> list[str]:
        """The entries' types (their lines' ``type``: what they parse as), root first, without parsing them."""
        types = self._index._types
        return [types[position] for position in self._positions]

    def __len__(self) -> int:
        return len(self._positions)

    def held_messages(self) -> list[tuple[str, Any]]:
        """(entry id, message) for the message entries whose message someone still holds (the agent's context),
        parsing nothing: a held message is the one its entry gives while it is held."""
        index = self._index
        ids, slots, live = index._ids, index._slots, index._live_messages
        out: list[tuple[str, Any]] = []
        for position in self._positions:
            entry_id = ids[position]
            if not entry_id:
                continue
            slot = slots[position]
            message = slot.message if isinstance(slot, MessageEntry) else live.get(position)
            if message is not None:
                out.append((entry_id, message))
        return out

    def newest_first(self, types: Container[str]) -> Iterator[Entry]:
        """The entries whose type is in ``types``, leaf first; the others are not parsed."""
        index = self._index
        kinds, entry = index._types, index._entry
        for position in reversed(self._positions):
            if kinds[position] in types:
                yield entry(position)

    @overload
    def __getitem__(self, item: int) -> Entry: ...
    @overload
    def __getitem__(self, item: slice) -> list[Entry]: ...
    def __getitem__(self, item: int | slice) -> Entry | list[Entry]:
        if isinstance(item, slice):
            return self._index._entries(self._positions[item])
        return self._index._entry(self._positions[item])

    def __iter__(self) -> Iterator[Entry]:
        # A chunk at a time: a reader that keeps nothing (the transcript's items, a count) never holds every entry.
        index, positions = self._index, self._positions
        for start in range(0, len(positions), CHUNK):
            yield from index._entries(positions[start : start + CHUNK])

    def __reversed__(self) -> Iterator[Entry]:
        entry = self._index._entry
        for position in reversed(self._positions):
            yield entry(position)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Branch):
            return self._index is other._index and self._positions == other._positions
        return isinstance(other, list) and list(self) == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Branch({self.ids!r})"


def _by_time(node: TreeNode) -> str:
    return node.entry.timestamp


def _reach(roots: list[TreeNode]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        entry_id = node.id
        if entry_id in seen:
            continue
        seen.add(entry_id)  # type: ignore[arg-type]
        stack.extend(node.children)
    return seen
