"""``SessionManager``: the session API the agent and the UI use.

A session is an append-only tree of entries in one JSONL file (pi/omp format v3) plus a leaf pointer.
Every ``append_*`` adds a child of the leaf and moves the leaf to it; ``branch``/``reset_leaf`` only move
the pointer. Each entry is written (and flushed to the OS) before ``append_*`` returns; ``sync()`` fsyncs,
at the end of every turn. A failed write (a full disk) keeps the entries in memory, retries them on the
next write, and makes ``sync()`` raise until they are saved.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from navtui.config.paths import sessions_dir
from navtui.core.context_messages import ContextMessages
from navtui.core.errors import NavtuiError
from navtui.core.messages import message_from_json
from navtui.session import writer
from navtui.session.context import SessionContext, build_context
from navtui.session.entries import (
    CURRENT_VERSION,
    AnyMessage,
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
    SessionHeader,
    SessionInfoEntry,
    ThinkingLevelChangeEntry,
    UserBlock,
    new_entry_id,
    now_iso,
    parse_entry,
)
from navtui.session.interop import (
    TitleSlot,
    complete_message,
    model_change_fields,
    parse_title_slot,
    prompt_words,
    title_slot_line,
)
from navtui.session.listing import (
    SessionSummary,
    id_from_filename,
    list_sessions,
    new_session_id,
    new_session_path,
    resolve_session,
    session_files,
)
from navtui.session.migrate import file_version, migrate
from navtui.session.store import JsonlLines, JsonlRecord, encode_line, gc_paused, read_file, read_tail, scan_jsonl
from navtui.session.tree import EntryIndex, TreeNode

__all__ = ["SessionContext", "SessionManager", "SessionSummary", "SessionTail", "TreeNode", "list_sessions"]


@dataclass
class SessionTail:
    """The end of a session file, read without parsing the rest (for a fast first paint)."""

    header: SessionHeader | None
    entries: list[Entry]  # the last entries in file order
    leaf_path: Sequence[Entry]  # the part of the newest entry's root-to-leaf path found among them


class SessionManager:
    def __init__(self, path: Path, header: SessionHeader, *, blobs: bool = True) -> None:
        self.warnings: list[str] = []
        self.read_only_reason: str | None = None
        self.title_slot: TitleSlot | None = None  # omp 17+: the fixed-width first line with the title
        self._index = EntryIndex()
        self._leaf_id: str | None = None
        self._context: tuple[tuple[str | None, int, SessionHeader], SessionContext] | None = None
        self._writer = writer.EntryWriter(path, header, self._index, blobs=blobs)

    @property
    def path(self) -> Path:
        """The file this session is written to (a migrated pi v1/v2 file continues in a new one)."""
        return self._writer.path

    @property
    def header(self) -> SessionHeader:
        return self._writer.header

    @property
    def migrated_from_version(self) -> int | None:
        """The format version of a pi v1/v2 file that will continue in a new v3 file on the first append."""
        pending = self._writer.migration_pending
        return pending.version if pending is not None else None

    # ------------------------------------------------------------------ opening
    @classmethod
    def create(cls, cwd: Path, *, root: Path | None = None) -> SessionManager:
        """A new, empty session for ``cwd``; its file is written on the first append."""
        cwd = Path(cwd).resolve()
        session_id = new_session_id()
        return cls(new_session_path(cwd, session_id, root), SessionHeader(id=session_id, cwd=str(cwd)))

    @classmethod
    def open(cls, path: Path) -> SessionManager:
        path = Path(path).expanduser().absolute()
        # One collector pause for the whole load: what the collector then walks is only what stays.
        with gc_paused():
            try:
                data, stamp = read_file(path)
            except FileNotFoundError:
                raise NavtuiError(
                    f"No session file at {path}", hint="`navtui sessions` lists this directory's sessions"
                ) from None
            except OSError as exc:
                raise NavtuiError(f"Cannot read the session file {path}: {exc.strerror or exc}") from None
            lines = JsonlLines(size=len(data), stamp=stamp)
            manager = cls._from_lines(path, lines, scan_jsonl(data, lines))
            del data
        return manager

    @classmethod
    def continue_recent(cls, cwd: Path, *, root: Path | None = None) -> SessionManager | None:
        """The most recently written session of ``cwd`` that has something to continue (``None``: there is none).

        A damaged one (its first line unreadable) is still returned, read-only: the caller continues its history
        in a new file and says why, instead of claiming there is no earlier session.
        """
        for path in session_files(Path(cwd).resolve(), root):
            try:
                manager = cls.open(path)
            except NavtuiError:
                continue
            if manager.read_only_reason is None or manager.leaf_id is not None:
                return manager
        return None

    @staticmethod
    def resolve(cwd: Path, id_or_prefix: str, *, root: Path | None = None) -> Path:
        return resolve_session(Path(cwd), id_or_prefix, root=root)

    @staticmethod
    def list_sessions(cwd: Path | None, *, root: Path | None = None) -> list[SessionSummary]:
        return list_sessions(cwd, root=root)

    @staticmethod
    def read_tail(path: Path, n: int = 100) -> SessionTail:
        """The last ``n`` entries of ``path``, seeking from the end: milliseconds even for a huge file."""
        first, lines = read_tail(Path(path), n)
        header = _header_from(writer.decode(first)) if first is not None else None
        entries = [parse_entry(record) for record in map(writer.decode, lines) if record is not None]
        entries = [entry for entry in entries if entry.type != "session"]
        index = EntryIndex()
        for entry in entries:
            index.add(entry, keep=True)
        leaf_id = index.last_id()
        return SessionTail(header, entries, index.path(leaf_id) if leaf_id else [])

    @classmethod
    def _from_lines(cls, path: Path, lines: JsonlLines, stream: Iterator[JsonlRecord]) -> SessionManager:
        """The session in ``stream`` (``scan_jsonl``'s lines of ``path``), each line kept as it was read."""
        first = next(stream, None)
        title_slot = None
        if first is not None and first[0] == 0 and (title_slot := parse_title_slot(first[2])):
            first = next(stream, None)  # omp 17+: the title slot comes before the header
        header_ok = (
            first is not None
            and first[2].get("type") == "session"
            and isinstance(first[2].get("id"), str)
            and not lines.bad_lines  # (so far: the lines before the header)
        )
        blobs = path.is_relative_to(sessions_dir())  # pi and omp cannot read navtui's blob store
        if first is None and not lines.bad_lines and title_slot is None:  # an empty file: start the session in it
            manager = cls(path, SessionHeader(id=id_from_filename(path), cwd=str(Path.cwd())), blobs=blobs)
            manager._writer.adopt_empty_file()
            return manager
        migration = None
        body: Iterable[JsonlRecord] = stream
        if header_ok:
            assert first is not None
            header_raw = first[2]
            version = file_version(header_raw)
            if version < CURRENT_VERSION:  # pi v1/v2: migrated in memory (its continuation is written from it)
                records = [record for _, _, record in stream]
                migrate(header_raw, records)
                migration = writer.Migration(version, records)
                body = ((0, encode_line(record)[:-1], record) for record in records)
            header = _header_from(header_raw) or SessionHeader(id=header_raw["id"])
        else:
            body = itertools.chain([first] if first is not None else [], stream)
            header = SessionHeader(id=id_from_filename(path), cwd="")
        manager = cls(path, header, blobs=blobs)
        manager.title_slot = title_slot
        index = manager._index
        for _, line, record in body:  # each line kept as read; an entry is parsed when it is read
            if header_ok or record.get("type") != "session":
                index.add_line(line, record)
        if warning := lines.warning(path):
            manager.warnings.append(warning)
        if not header_ok:
            manager.read_only_reason = "its first line is not a readable session header"
            manager.warnings.append(f"{path}: {manager.read_only_reason}; opened read-only")
        if index.duplicate_ids:
            manager.warnings.append(f"{path}: {index.duplicate_ids} entries repeat an earlier id; ignored")
        manager._leaf_id = index.last_id()
        manager._writer.adopt_existing(migration)
        return manager

    def pack_lines(self) -> int:
        """Compress the lines of every full block of 32 entries not compressed yet, and the long lines of the block
        not full yet one by one (``EntryIndex.pack``: safe in a worker thread while the session is read and
        appended to); the number of blocks and lone lines packed."""
        return self._index.pack()

    # ------------------------------------------------------------------ state
    @property
    def session_id(self) -> str:
        return self.header.id

    @property
    def cwd(self) -> Path:
        return Path(self.header.cwd) if self.header.cwd else Path.cwd()

    @property
    def name(self) -> str | None:
        """The name the user gave (``/name``, pi's ``session_info``), else omp's title; ``None`` when unnamed."""
        if self._index.name is not None:
            return self._index.name
        if self.title_slot is not None and self.title_slot.title:
            return self.title_slot.title
        title = (self.header.model_extra or {}).get("title")
        return title if isinstance(title, str) and title else None

    @property
    def title(self) -> str:
        """What to call the session, on one line: its name, else the words of its first prompt (attached files
        left out, cut at 80 characters; never written)."""
        if self.name and self.name.strip():
            return " ".join(self.name.split())  # a name read from another tool may hold a newline
        first = self._index.first_of_kind("user")  # (not every entry parsed: a 20,000-entry session took ~0.4 s)
        if isinstance(first, MessageEntry):
            return " ".join(prompt_words(first.message.text).split())[:80]
        return ""

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    @property
    def entries(self) -> list[Entry]:
        return list(self._index)

    @property
    def unsaved_count(self) -> int:
        """Entries kept in memory because writing them failed (retried on the next write)."""
        return self._writer.unsaved_count

    @property
    def write_error(self) -> NavtuiError | None:
        return self._writer.error

    def get_entry(self, entry_id: str) -> Entry | None:
        return self._index.get(entry_id)

    def label_of(self, entry_id: str) -> str | None:
        return self._index.labels.get(entry_id)

    def children(self, entry_id: str | None) -> list[Entry]:
        return self._index.children(entry_id)

    # ------------------------------------------------------------------ appending
    def append_message(self, message: AnyMessage | dict[str, Any]) -> str:
        if isinstance(message, dict):
            message = message_from_json(message)
        message = complete_message(message)  # what pi and omp require of a saved message
        return self._append(MessageEntry(id=self._new_id(), parent_id=self._leaf_id, message=message))

    def append_execution(self, message: dict[str, Any]) -> str:
        """A user's ``!``/``$`` run: pi's ``bashExecution`` or omp's ``pythonExecution`` message, as they write it."""
        record = {"type": "message", "id": self._new_id(), "parentId": self._leaf_id, "timestamp": now_iso()}
        return self._append(RawEntry.of({**record, "message": message}))

    def append_model_change(
        self, provider: str, model: str, role: str = "default", *, base_url: str | None = None
    ) -> str:
        fields = model_change_fields(provider, model)
        entry = ModelChangeEntry(id=self._new_id(), parent_id=self._leaf_id, role=role, base_url=base_url, **fields)
        return self._append(entry)

    def append_thinking_level_change(self, level: str) -> str:
        return self._append(ThinkingLevelChangeEntry(id=self._new_id(), parent_id=self._leaf_id, thinking_level=level))

    def append_compaction(
        self, summary: str, first_kept_entry_id: str | None, tokens_before: int, details: dict[str, Any] | None = None
    ) -> str:
        entry = CompactionEntry(
            id=self._new_id(),
            parent_id=self._leaf_id,
            summary=summary,
            first_kept_entry_id=first_kept_entry_id,
            tokens_before=tokens_before,
            details=details,
        )
        return self._append(entry)

    def append_branch_summary(self, from_id: str | None, summary: str) -> str:
        entry = BranchSummaryEntry(
            id=self._new_id(), parent_id=self._leaf_id, from_id=from_id or "root", summary=summary
        )
        return self._append(entry)

    def append_custom_message(
        self, custom_type: str, content: str | list[UserBlock], *, display: bool = True, details: Any = None
    ) -> str:
        """A note that joins the model's context ("handover" starts it afresh; "advisor", "index_context" ...)."""
        entry = CustomMessageEntry(
            id=self._new_id(),
            parent_id=self._leaf_id,
            custom_type=custom_type,
            content=content,
            display=display,
            details=details,
        )
        return self._append(entry)

    def append_custom(self, custom_type: str, data: Any = None) -> str:
        """Extension state that never reaches the model."""
        return self._append(CustomEntry(id=self._new_id(), parent_id=self._leaf_id, custom_type=custom_type, data=data))

    def append_label(self, target_id: str, label: str | None) -> str:
        self._require(target_id)
        label = (label or "").strip() or None
        return self._append(LabelEntry(id=self._new_id(), parent_id=self._leaf_id, target_id=target_id, label=label))

    def append_session_info(self, name: str | None) -> str:
        return self._append(SessionInfoEntry(id=self._new_id(), parent_id=self._leaf_id, name=name))

    def set_name(self, name: str | None) -> str | None:
        """Name the session (``None`` or blank clears it); returns the new entry id, ``None`` if unchanged.

        pi reads ``session_info``; an omp 17+ file gets its title slot rewritten in place and a ``title_change``
        record, as omp does (omp reads no ``session_info``).
        """
        name = " ".join((name or "").split()) or None  # one line: a newline split the export's title
        if name == self.name:
            return None
        if self.title_slot is None:
            return self.append_session_info(name)
        return self._retitle(name or "")

    def _retitle(self, title: str) -> str:
        previous = self.name
        self._require_writable()
        now = now_iso()
        if self._writer.overwrite_title_slot(title_slot_line(title, "user", now)):
            self.title_slot = TitleSlot(title, "user", now)
        record: dict[str, Any] = {"type": "title_change", "id": self._new_id(), "parentId": self._leaf_id}
        record.update(timestamp=now, title=title, source="user")
        if previous:
            record["previousTitle"] = previous
        return self._append(RawEntry.of(record))

    def sync(self) -> None:
        """Write anything pending and fsync; raises ``NavtuiError`` while entries cannot be saved."""
        self._writer.sync()

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the tree
    def branch(self, entry_id: str) -> None:
        """Move the leaf to ``entry_id``; the next append starts a new branch there. Nothing is written."""
        self._require(entry_id)
        self._leaf_id = entry_id
        self._context = None

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry; the next append is a new root."""
        self._leaf_id = None
        self._context = None

    def branch_with_summary(self, entry_id: str | None, summary: str) -> str:
        """Move the leaf to ``entry_id`` (``None``: the root) and record a summary of the path left behind."""
        if entry_id is None:
            self.reset_leaf()
        else:
            self.branch(entry_id)
        return self.append_branch_summary(entry_id, summary)

    def get_branch(self, entry_id: str | None = None) -> Sequence[Entry]:
        """Root to ``entry_id`` (default: the leaf); empty when the leaf is reset. Entries are parsed as they are
        read (``Branch``): walking back from the leaf to the first entry wanted parses only those."""
        target = entry_id if entry_id is not None else self._leaf_id
        if target is None:
            return []
        self._require(target)
        return self._index.path(target)

    def branch_ids(self, entry_id: str | None = None) -> list[str]:
        """The ids of ``get_branch(entry_id)``, without parsing its entries."""
        target = entry_id if entry_id is not None else self._leaf_id
        if target is None:
            return []
        self._require(target)
        return self._index.path(target).ids

    def get_tree(self) -> list[TreeNode]:
        """The forest of every entry; a node's entry is parsed when read (``TreeNode``)."""
        return self._index.tree()

    def create_branched_session(self, leaf_id: str | None = None, *, cwd: Path | None = None) -> SessionManager:
        """A new session file holding the root-to-``leaf_id`` path (labels re-attached); this one is unchanged.

        Its header's cwd is this session's, or ``cwd`` (else the process's) when this one's header says none: a
        damaged header line is read as an empty cwd, and the copy made to continue it was written with ``""``."""
        path = self.get_branch(leaf_id)
        session_id = new_session_id()
        where = self.header.cwd or str(cwd or Path.cwd())
        header = SessionHeader(id=session_id, cwd=where, parent_session=str(self.path))
        target = self.path.parent / new_session_path(Path(where), session_id).name
        branched = SessionManager(target, header)
        parent: str | None = None
        for entry in path:
            if isinstance(entry, LabelEntry):
                continue  # labels are re-created below, for the entries that were copied
            branched._index.add(_reparented(entry, parent))
            parent = entry.id
        for entry in path:
            label = self.label_of(entry.id) if entry.id else None
            if entry.id is not None and label is not None and not isinstance(entry, LabelEntry):
                label_entry = LabelEntry(id=branched._new_id(), parent_id=parent, target_id=entry.id, label=label)
                branched._index.add(label_entry)
                parent = label_entry.id
        branched._leaf_id = parent
        branched._writer.write_new_file(self._writer.original_lines())  # copied lines stay byte for byte
        return branched

    # ------------------------------------------------------------------ context
    def build_context(
        self, leaf_id: str | None = None, *, read_along: Callable[[Entry], None] | None = None
    ) -> SessionContext:
        """What the model sees at ``leaf_id`` (default: the leaf).

        The last one built is kept until an entry is added (a resume asks for it several times; each reads the
        whole branch); each call gets its own copy of the message list. ``read_along`` is given every entry of the
        branch in order (``context.build_context``): by the pass that builds it, or from the branch when it was
        built already.
        """
        key = (leaf_id if leaf_id is not None else self._leaf_id, len(self._index), self.header)
        if self._context is None or self._context[0] != key:
            self._context = (key, self._build_context(leaf_id, read_along))
        elif read_along is not None:
            for entry in self.get_branch(leaf_id):
                read_along(entry)
        messages = self._context[1].messages
        copy = messages.copy() if isinstance(messages, ContextMessages) else list(messages)
        return dataclasses.replace(self._context[1], messages=copy)

    def _build_context(self, leaf_id: str | None, read_along: Callable[[Entry], None] | None) -> SessionContext:
        header = self.header.model_extra or {}
        provider, model = header.get("provider"), header.get("modelId")  # pi v1 headers carried the model
        default = (provider if isinstance(provider, str) else None, model if isinstance(model, str) else None)
        thinking = header.get("thinkingLevel")
        return build_context(
            self.get_branch(leaf_id),
            default_model=default,
            default_thinking=thinking if isinstance(thinking, str) else None,
            read_along=read_along,
        )

    def display_items(self, leaf_id: str | None = None) -> Sequence[Entry]:
        """Everything on the root-to-leaf path in order, for the transcript (markers included)."""
        return self.get_branch(leaf_id)

    # ------------------------------------------------------------------ helpers
    def _new_id(self) -> str:
        return new_entry_id(self._index)

    def _require(self, entry_id: str) -> None:
        if entry_id not in self._index:
            raise NavtuiError(f"No entry '{entry_id}' in session {self.session_id}")

    def _require_writable(self) -> None:
        if self.read_only_reason is not None:
            raise NavtuiError(
                f"The session {self.path.name} is read-only: {self.read_only_reason}",
                hint="continue in a copy (/branch), which leaves this file untouched",
            )

    def _append(self, entry: Entry) -> str:
        self._require_writable()
        line = self._writer.encode(entry)  # before any state changes: a value that cannot be saved changes nothing
        self._index.add(entry)
        self._context = None  # (what it holds is the agent's to keep or drop)
        self._leaf_id = entry.id
        before = self.path
        self._writer.write(line)
        if self._writer.error is not None and self._writer.error_is_new:
            self.warnings.append(str(self._writer.error))
        if self.path != before:
            self.warnings.append(
                f"{before.name} is a pi session file of an older format; it was left as it was and the session "
                f"continues in {self.path.name} beside it."
            )
        return entry.id  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"SessionManager({str(self.path)!r}, entries={len(self._index)}, leaf={self._leaf_id!r})"


def _header_from(record: dict[str, Any] | None) -> SessionHeader | None:
    if record is None or record.get("type") != "session" or not isinstance(record.get("id"), str):
        return None
    try:
        return SessionHeader.model_validate(record)
    except ValidationError:
        # Kept as it is, but a field of the wrong type (another tool's file may hold anything) is left out: a
        # "cwd": -1 kept here raised TypeError in export, resume and undo.
        wrong = {name for name, kind in _HEADER_TYPES.items() if name in record and not isinstance(record[name], kind)}
        return SessionHeader.model_construct(**{k: v for k, v in record.items() if k not in wrong})


# The header's fields by their names in the file, with the types its readers rely on.
_HEADER_TYPES: dict[str, type | tuple[type, ...]] = {
    "version": int,
    "timestamp": str,
    "cwd": str,
    "parentSession": str,
    "parent_session": str,
}


def _reparented(entry: Entry, parent: str | None) -> Entry:
    if entry.parent_id == parent:
        return entry
    if isinstance(entry, RawEntry):
        return RawEntry.of({**entry.raw, "parentId": parent})
    return entry.model_copy(update={"parent_id": parent})
