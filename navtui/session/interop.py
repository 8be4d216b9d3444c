"""What pi and omp need from the lines navtui writes, and what navtui needs to read theirs.

pi's and omp's TypeScript types make some fields of an assistant message required and read them unguarded:
``api`` (compared when thinking is replayed), ``usage.totalTokens`` and ``usage.cost.total`` (summed by both
footers). ``complete_message`` fills what a navtui message lacks before it is saved. A ``model_change`` is
written in both spellings: pi reads ``provider`` + ``modelId``, omp reads ``model: "provider/id"``.

omp 17+ files start with a fixed-width title slot, ``{"type":"title","v":1,...}`` padded to 256 bytes, before
the header; it carries the session's title (``source`` "user" when the user chose it, "auto" when generated).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, TypedDict

from navtui.core.messages import AssistantMessage, Cost, Message, Usage

# navtui provider -> the wire API in pi's/omp's names (omp's KnownApi has "ollama-chat" for Ollama's /api/chat).
API_BY_PROVIDER = {"ollama": "ollama-chat", "anthropic": "anthropic-messages", "openai": "openai-completions"}
UNKNOWN = "unknown"
TITLE_SLOT_TYPE = "title"
TITLE_SLOT_BYTES = 256  # newline included


def complete_message(message: Message) -> Message:
    """Fill, in place, what pi and omp require of a saved assistant message and it lacks; returns ``message``.

    In place, so the live conversation and the file agree (and an equal message stays equal).
    """
    if not isinstance(message, AssistantMessage):
        return message
    provider = message.provider = message.provider or UNKNOWN
    message.model = message.model or UNKNOWN
    message.api = message.api or API_BY_PROVIDER.get(provider, provider)
    usage = message.usage = message.usage or Usage()
    if usage.total_tokens is None:
        usage.total_tokens = usage.total
    if usage.cost is None:
        usage.cost = Cost()
    return message


class ModelChangeFields(TypedDict):
    provider: str
    model_id: str
    model: str


def model_change_fields(provider: str, model: str) -> ModelChangeFields:
    """A model change as pi (``provider``, ``modelId``) and omp (``model``) both read it."""
    return {"provider": provider, "model_id": model, "model": f"{provider}/{model}"}


@dataclass(frozen=True)
class TitleSlot:
    title: str
    source: str | None  # "user", "auto" or absent
    updated_at: str


def parse_title_slot(record: dict[str, Any] | None) -> TitleSlot | None:
    """omp's title slot (strictly as omp parses it), else ``None``: a header is never mistaken for one."""
    if not record or record.get("type") != TITLE_SLOT_TYPE or record.get("v") != 1:
        return None
    title, updated, pad = record.get("title"), record.get("updatedAt"), record.get("pad")
    if not (isinstance(title, str) and isinstance(updated, str) and isinstance(pad, str)):
        return None
    source = record.get("source")
    if source is not None and source not in ("user", "auto"):
        return None
    return TitleSlot(title, source, updated)


def title_slot_line(title: str, source: str | None, updated_at: str) -> bytes:
    """The slot as omp writes it: exactly 256 bytes, the title cut (by code point) to fit, spaces as padding."""
    title = title.encode("utf-8", "ignore").decode("utf-8")  # no lone surrogates

    def line(text: str, pad: str) -> bytes:
        slot: dict[str, Any] = {"type": TITLE_SLOT_TYPE, "v": 1, "title": text}
        if source:
            slot["source"] = source
        slot.update(updatedAt=updated_at, pad=pad)
        return (json.dumps(slot, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")

    low, high = 0, len(title)
    while low < high:  # the longest prefix that fits
        middle = (low + high + 1) // 2
        if len(line(title[:middle], "")) <= TITLE_SLOT_BYTES:
            low = middle
        else:
            high = middle - 1
    title = title[:low]
    return line(title, " " * (TITLE_SLOT_BYTES - len(line(title, ""))))


def is_title_slot(head: bytes) -> bool:
    """``head`` (a file's first 256 bytes) is a whole title slot line."""
    if len(head) != TITLE_SLOT_BYTES or not head.endswith(b"\n"):
        return False
    try:
        return parse_title_slot(json.loads(head)) is not None
    except (ValueError, RecursionError):
        return False


_ATTACHED = ("<attached_file ", "<stdin>\n")  # what navtui adds after a prompt's words (agent/attachments.py, --print)


def prompt_words(text: str) -> str:
    """A prompt's own words, without the files attached to it or the input piped in (for titles)."""
    cut = min((at for at in (text.find(marker) for marker in _ATTACHED) if at >= 0), default=len(text))
    return text[:cut]
