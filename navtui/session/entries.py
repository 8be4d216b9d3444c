"""Session file lines (pi/omp session format v3) as pydantic models.

Line 1 of a session file is a ``SessionHeader``; every later line is an entry with ``id`` (8 hex),
``parentId`` and an ISO ``timestamp``. Entry types navtui does not know (omp's ``mode_change``,
``ttsr_injection`` ...) load as ``RawEntry`` and are written back byte-for-byte equivalent, never dropped.
"""

from __future__ import annotations

import json
import math
import secrets
import sys
from collections.abc import Container
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from navtui.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolResultMessage,
    UserBlock,
    UserMessage,
)

CURRENT_VERSION = 3
CORE_ROLES = frozenset({"user", "assistant", "toolResult"})
AnyMessage = UserMessage | AssistantMessage | ToolResultMessage


def new_entry_id(taken: Container[str] = ()) -> str:
    """A random 8-hex id not in ``taken``."""
    while True:
        entry_id = secrets.token_hex(4)
        if entry_id not in taken:
            return entry_id


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def content_text(content: str | list[Any]) -> str:
    """The text of a user-style content value (a string or text/image blocks)."""
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextBlock))


class _Line(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow", protected_namespaces=())


class SessionHeader(_Line):
    type: Literal["session"] = "session"
    version: int = CURRENT_VERSION
    id: str
    timestamp: str = Field(default_factory=now_iso)
    cwd: str = ""
    parent_session: str | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


_BASE_FIELDS = {"type", "id", "parent_id", "timestamp"}


class _Entry(_Line):
    type: str
    id: str
    parent_id: str | None = None
    timestamp: str = Field(default_factory=now_iso)

    def to_json(self) -> dict[str, Any]:
        # parentId is written even when null (a root), and the tree fields come first so a
        # reader can find them without parsing the whole line.
        body = self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude=_BASE_FIELDS)
        return {"type": self.type, "id": self.id, "parentId": self.parent_id, "timestamp": self.timestamp, **body}


class MessageEntry(_Entry):
    type: Literal["message"] = "message"
    message: Message


class ModelChangeEntry(_Entry):
    """pi writes ``provider`` + ``modelId``; omp writes ``model: "provider/id"`` and a ``role``."""

    type: Literal["model_change"] = "model_change"
    provider: str | None = None
    model_id: str | None = None
    model: str | None = None
    role: str | None = None
    base_url: str | None = None  # navtui's: the endpoint that served the model (pi and omp keep the field)

    @property
    def resolved(self) -> tuple[str | None, str | None]:
        """(provider, model id), whichever spelling the file used."""
        if self.model_id is not None:
            return self.provider, self.model_id
        if self.model and "/" in self.model and self.provider is None:
            provider, _, model = self.model.partition("/")
            return provider, model
        return self.provider, self.model


class ThinkingLevelChangeEntry(_Entry):
    type: Literal["thinking_level_change"] = "thinking_level_change"
    thinking_level: str | None = "off"  # omp may write null (= off)


class CompactionEntry(_Entry):
    type: Literal["compaction"] = "compaction"
    summary: str
    first_kept_entry_id: str | None = None
    tokens_before: int = 0
    details: dict[str, Any] | None = None


class BranchSummaryEntry(_Entry):
    type: Literal["branch_summary"] = "branch_summary"
    from_id: str = "root"
    summary: str
    details: Any = None


class CustomMessageEntry(_Entry):
    """A note that joins the model's context as user-role text (handover, advisor, index context)."""

    type: Literal["custom_message"] = "custom_message"
    custom_type: str
    content: str | list[UserBlock]
    display: bool = True
    details: Any = None

    @property
    def text(self) -> str:
        return content_text(self.content)


class CustomEntry(_Entry):
    """Extension state; never part of the model's context."""

    type: Literal["custom"] = "custom"
    custom_type: str
    data: Any = None


class LabelEntry(_Entry):
    type: Literal["label"] = "label"
    target_id: str
    label: str | None = None  # None clears the target's label


class SessionInfoEntry(_Entry):
    type: Literal["session_info"] = "session_info"
    name: str | None = None


class RawEntry(_Line):
    """A line navtui does not model (an unknown type, or a known one it could not read): kept verbatim."""

    type: str = ""
    id: str | None = None
    parent_id: str | None = None
    timestamp: str = ""
    raw: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, raw: dict[str, Any]) -> RawEntry:
        def text(key: str) -> str | None:
            value = raw.get(key)
            return value if isinstance(value, str) else None

        return cls.model_construct(
            type=text("type") or "",
            id=text("id"),
            parent_id=text("parentId"),
            timestamp=text("timestamp") or "",
            raw=raw,
        )

    def to_json(self) -> dict[str, Any]:
        return self.raw


Entry = (
    MessageEntry
    | ModelChangeEntry
    | ThinkingLevelChangeEntry
    | CompactionEntry
    | BranchSummaryEntry
    | CustomMessageEntry
    | CustomEntry
    | LabelEntry
    | SessionInfoEntry
    | RawEntry
)

_MODELS: dict[str, type[_Entry]] = {
    "model_change": ModelChangeEntry,
    "thinking_level_change": ThinkingLevelChangeEntry,
    "compaction": CompactionEntry,
    "branch_summary": BranchSummaryEntry,
    "custom_message": CustomMessageEntry,
    "custom": CustomEntry,
    "label": LabelEntry,
    "session_info": SessionInfoEntry,
}


def parse_entry(raw: dict[str, Any]) -> Entry:
    """One decoded line -> its entry model; anything unexpected becomes a ``RawEntry`` (never an error)."""
    kind = raw.get("type")
    if kind == "message":
        return _parse_message_entry(raw)
    model = _MODELS.get(kind) if type(kind) is str else None  # a list or dict there is not a kind (nor hashable)
    if model is None:
        return RawEntry.of(raw)
    try:
        return model.model_validate(raw)  # type: ignore[return-value]
    except ValidationError:
        return RawEntry.of(raw)


def parse_line(kind: str, line: bytes) -> Entry:
    """``parse_entry(json.loads(line))`` for a line whose ``type`` is ``kind``: the same entry, in half the time
    when the line is a valid typed entry (pydantic then reads the JSON itself, with no dicts in between)."""
    model = MessageEntry if kind == "message" else _MODELS.get(kind)
    if model is not None:
        try:
            entry = model.model_validate_json(line)
        except ValidationError:  # not valid as that type (a pi role, a bad field, a lone surrogate): as parse_entry
            pass
        else:
            return entry  # type: ignore[return-value]
    return parse_entry(json.loads(line))


def _parse_message_entry(raw: dict[str, Any]) -> Entry:
    # The hot path of loading a large session: one validation call for the envelope and its message
    # (measured faster than model_construct around a separately parsed message).
    message = raw.get("message")
    if type(message) is not dict or type(message.get("role")) is not str or message["role"] not in CORE_ROLES:
        # pi's extended roles (custom, bashExecution, branchSummary ...) stay raw; context.py reads them.
        return RawEntry.of(raw)
    try:
        return MessageEntry.model_validate(raw)
    except ValidationError:
        return RawEntry.of(raw)


class _SharedFieldNames(frozenset[str]):
    """The names of the fields a model was given, one object for all models given the same names.

    pydantic keeps a set of them per model (``model_fields_set``, read only by ``exclude_unset`` dumps, which navtui
    never makes): 728 bytes for five fields or more, four per assistant message (the message, its usage, the
    usage's cost, a text block). A resumed 5,000-entry session's context held 7.7 MB of them; the context's
    messages share them now (``build_context``). Adding a name (pydantic does on assignment) does nothing here; a
    copy (``model_copy``) gets a set of its own again.
    """

    __slots__ = ()

    def add(self, name: str) -> None:
        pass

    def update(self, *names: Any) -> None:
        pass

    def __copy__(self) -> set[str]:
        return set(self)


_FIELD_NAMES: dict[frozenset[str], _SharedFieldNames] = {}
_NESTED: dict[type[BaseModel], tuple[str, ...]] = {}
_PLAIN: dict[type[BaseModel], tuple[tuple[str, ...], tuple[str, ...]]] = {}
# The text fields whose values repeat from message to message (the model's and the provider's names, a tool's
# name): each message read from a session line has its own copy, made by the JSON parse, unless interned.
_REPEATED_TEXT = frozenset({"api", "provider", "model", "tool_name", "name", "mime_type"})
_ZERO = 0.0


def share_field_names(model: BaseModel) -> None:
    """Give ``model`` and the models inside it (blocks, usage, cost) the shared ``_SharedFieldNames``.

    And what a model read from a line holds for itself but need not: the empty dict pydantic keeps for the fields
    beyond the model's own (``None`` is the same to pydantic: equal, dumped and copied alike; 64 bytes for each of
    the 15,000 models of a 5,000-entry context), a copy of a repeated name (``_REPEATED_TEXT``, interned) and of
    0.0 (a usage's cost, all zero for a local model). All immutable, so no two models share anything an assignment
    could change.
    """
    stack = [model]
    shared, nested, plain = _FIELD_NAMES, _NESTED, _PLAIN
    setattr_ = object.__setattr__
    intern, zero = sys.intern, _ZERO
    while stack:
        item = stack.pop()
        names = item.__pydantic_fields_set__
        key = names if type(names) is _SharedFieldNames else frozenset(names)
        canonical = shared.get(key)
        if canonical is None:
            canonical = shared[key] = _SharedFieldNames(key)
        setattr_(item, "__pydantic_fields_set__", canonical)
        extra = item.__pydantic_extra__
        if extra is not None and not extra and type(extra) is dict:
            setattr_(item, "__pydantic_extra__", None)
        kind = type(item)
        fields = nested.get(kind)
        if fields is None:
            fields = nested[kind] = tuple(
                name for name, info in kind.model_fields.items() if _holds_models(info.annotation)
            )
            plain[kind] = (
                tuple(name for name in kind.model_fields if name in _REPEATED_TEXT),
                tuple(name for name, info in kind.model_fields.items() if info.annotation is float),
            )
        values = item.__dict__
        texts, floats = plain[kind]
        for name in texts:
            value = values[name]
            if type(value) is str:
                values[name] = intern(value)
        for name in floats:
            value = values[name]
            if type(value) is float and value == zero and math.copysign(1.0, value) > 0:
                values[name] = zero
        for name in fields:
            value = values[name]
            if type(value) is list:
                stack.extend(element for element in value if isinstance(element, BaseModel))
            elif isinstance(value, BaseModel):
                stack.append(value)


def _holds_models(annotation: Any) -> bool:
    """Whether a field of this type can hold a model (``Any`` cannot, when the value comes from JSON)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_holds_models(argument) for argument in get_args(annotation))


def is_handover(entry: object) -> bool:
    return isinstance(entry, CustomMessageEntry) and entry.custom_type == "handover"
