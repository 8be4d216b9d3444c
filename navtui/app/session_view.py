"""Session entries (a resumed session's root-to-leaf path) as transcript items."""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableSequence, Sequence
from typing import Any

from navtui.agent.advice import ADVISOR_PREFIX
from navtui.core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from navtui.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    Entry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
)
from navtui.session.tree import Branch
from navtui.widgets.items import (
    AdvisorItem,
    AssistantItem,
    ContextItem,
    DividerItem,
    ErrorItem,
    Maker,
    NoticeItem,
    ThinkingItem,
    ToolItem,
    TranscriptItem,
    TranscriptItems,
    UserItem,
)

Describe = Callable[[ToolCall], str]


def tool_item(call: ToolCall, describe: Describe | None = None) -> ToolItem:
    """A card's record; ``describe`` now (a live call), or later when the card is first shown (a long session)."""
    title = describe(call) if describe is not None else None
    return ToolItem(call_id=call.id, name=call.name, title=title, arguments=dict(call.arguments))


def apply_result(item: ToolItem, result: ToolResultMessage) -> None:
    item.status = "error" if result.is_error else "success"
    item.result = result.text
    item.details = result.details
    diff = (result.details or {}).get("diff")
    item.diff = diff if isinstance(diff, str) and diff.strip() else None


def transcript_items(entries: Iterable[Entry]) -> list[TranscriptItem]:
    """The transcript items for session entries (``Runtime.path_entries()``: messages and markers).

    Tool titles are left to the transcript (``Transcript.describe``): describing thousands of calls of a long
    session up front would cost more than showing its tail.
    """
    out: list[TranscriptItem] = []
    tools: dict[str, ToolItem] = {}
    model: str | None = None
    for entry in entries:
        model = _entry(entry, out, tools, model)
    return out


CHUNK_ENTRIES = 64  # the least entries of a chunk of items made again when scrolled to
KEEP_ITEMS = 120  # the newest items made at load (the default window of 30, a batch of 40 scrolled back, slack)


def session_transcript(
    entries: Sequence[Entry],
    *,
    chunk_entries: int = CHUNK_ENTRIES,
    keep_items: int = KEEP_ITEMS,
    read: PathTranscript | None = None,
) -> MutableSequence[TranscriptItem]:
    """The items of a session's path (``Runtime.path_entries()``), as ``transcript_items`` gives them, with only
    the newest (``keep_items`` at least) held: the older ones are made again from ``entries`` (the session's
    lines) when the transcript reads them, a chunk at a time (``TranscriptItems``). A 5,000-entry session's items
    held ~4 MB of its text for scrolling back.

    ``read``: a ``PathTranscript`` the path was already read into (alongside the context's pass, which parses each
    line: ``Runtime.create(read_path=...)``); used when it read these very entries, else the path is read here.
    """
    if read is None or not read.read_all(entries):
        read = PathTranscript(chunk_entries=chunk_entries, keep_items=keep_items)
        for entry in entries:
            read.add(entry)
    return read.items(entries)


class PathTranscript:
    """The items of a session's path made as its entries are given in order (``add``), then handed out by
    ``items``: a reader that parses each entry already (the context's pass) makes them on the way, and no line is
    parsed twice.

    A chunk starts at a user's message (whose item never merges with the one before) and carries the model the
    path was on there; a tool result whose call lies in an earlier chunk completes that chunk's card, so a path
    with one is made whole, as before (none in a session navtui wrote: a result follows its call).
    """

    def __init__(self, *, chunk_entries: int = CHUNK_ENTRIES, keep_items: int = KEEP_ITEMS) -> None:
        self._chunk_entries, self._keep_items = chunk_entries, keep_items
        self._chunks: list[tuple[int, int, int, str | None]] = []  # start, end, items, the model at its start
        self._held: list[list[TranscriptItem] | None] = []  # the items of the chunks above while among the newest
        self._out: list[TranscriptItem] = []
        self._tools: dict[str, ToolItem] = {}
        self._closed: set[str] = set()  # the calls of the chunks closed
        self._model: str | None = None
        self._start = 0
        self._start_model: str | None = None  # the model the path was on where the open chunk starts
        self._count = 0
        self._last_id: str | None = None
        self._whole = False  # a result's call is chunks back: every item is made at once (``items``)

    def read_all(self, entries: Sequence[Entry]) -> bool:
        """Whether ``entries`` are what was added: as many, ending with the same entry."""
        if self._count != len(entries):
            return False
        if not entries:
            return True
        ids = entries.ids if isinstance(entries, Branch) else None  # (without parsing the last entry again)
        return (ids[-1] if ids is not None else entries[-1].id) == self._last_id

    def add(self, entry: Entry) -> None:
        position = self._count
        self._count += 1
        self._last_id = entry.id
        if self._whole:
            return
        message = entry.message if isinstance(entry, MessageEntry) else None
        if position - self._start >= self._chunk_entries and isinstance(message, UserMessage):
            self._close_chunk(position)
        elif (
            isinstance(message, ToolResultMessage)
            and message.tool_call_id not in self._tools
            and message.tool_call_id in self._closed
        ):
            self._whole = True  # a card in an earlier chunk: make it whole, as before
            self._held.clear()
            self._out.clear()
            return
        self._model = _entry(entry, self._out, self._tools, self._model)

    def _close_chunk(self, position: int) -> None:
        chunks, held = self._chunks, self._held
        chunks.append((self._start, position, len(self._out), self._start_model))
        held.append(self._out)
        self._closed.update(self._tools)
        self._out, self._tools, self._start, self._start_model = [], {}, position, self._model
        # Only the newest items stay made: a chunk goes once the chunks after it hold enough.
        newer = 0
        for number in range(len(held) - 1, -1, -1):
            if newer >= self._keep_items:
                if held[number] is None:
                    break  # (and those before it: already let go of)
                held[number] = None
            newer += chunks[number][2]

    def items(self, entries: Sequence[Entry]) -> MutableSequence[TranscriptItem]:
        """The items of ``entries``, the path that was added (the older chunks are made again from it)."""
        if self._whole:
            return transcript_items(entries)
        if not self._chunks:
            return self._out
        pieces: list[tuple[int, Maker | list[TranscriptItem]]] = []
        for (first, end, count, first_model), items in zip(self._chunks, self._held, strict=True):
            pieces.append((count, items if items is not None else _maker(entries, first, end, first_model)))
        return TranscriptItems(pieces, self._out)


def _maker(entries: Sequence[Entry], start: int, end: int, model: str | None) -> Maker:
    def make() -> list[TranscriptItem]:
        out: list[TranscriptItem] = []
        tools: dict[str, ToolItem] = {}
        current = model
        for entry in entries[start:end]:
            current = _entry(entry, out, tools, current)
        return out

    return make


def _entry(entry: Entry, out: list[TranscriptItem], tools: dict[str, ToolItem], model: str | None) -> str | None:
    """Append ``entry``'s items to ``out``; return the model the path is on after it."""
    match entry:
        case MessageEntry(message=message):
            _message(message, out, tools)
        case RawEntry(type="message", raw=raw):
            _pi_message(raw.get("message"), out)  # pi's extended roles, kept raw
        case CompactionEntry(summary=summary, tokens_before=before):
            label = f"context compacted ({before} tokens before)" if before else "context compacted"
            out.append(DividerItem(label, detail=summary))
        case BranchSummaryEntry(summary=summary):
            out.append(DividerItem("summary of the branch left behind", detail=summary))
        case CustomMessageEntry(display=True, custom_type="handover"):
            out.append(DividerItem("handover · context restarted from notes", detail=entry.text))
        case CustomMessageEntry(display=True, custom_type="index_context", details=details):
            files = list((details or {}).get("files", []))
            out.append(ContextItem("index", entry.text, files, len(entry.text) // 4))
        case CustomMessageEntry(display=False, custom_type="navtui-files-restored", details=details):
            # checkpoints/notes.py's NOTE_TYPE (test_checkpoints_pilot.py's resumed transcript holds them equal),
            # imported here: this module is loaded before the first frame, a session with such a note is not
            from navtui.checkpoints.notes import put_back_of

            out.append(NoticeItem(put_back_of(details) or "Files were put back here (/undo or the tree)."))
        case CustomMessageEntry(display=True, custom_type=custom):
            out.append(NoticeItem(entry.text, title=custom))
        case ModelChangeEntry(model_id=model_id, model=spelled) if model_id or spelled:
            changed = model_id or spelled
            if model is not None and changed != model:  # the model a session starts on is no news
                out.append(DividerItem(f"model: {changed}"))
            model = changed
    return model


def _pi_message(message: Any, out: list[TranscriptItem]) -> None:
    """pi's bashExecution (a ``!`` command), custom and summary messages."""
    if not isinstance(message, dict):
        return
    role = message.get("role")
    if role == "bashExecution":
        exit_code = message.get("exitCode")
        failed = message.get("cancelled") or (isinstance(exit_code, int) and exit_code != 0)
        item = ToolItem(call_id="", name="bash", title=str(message.get("command", "")))
        item.status = "error" if failed else "success"
        item.result = str(message.get("output") or "")
        out.append(item)
    elif role in ("custom", "hookMessage") and message.get("display", True):
        out.append(NoticeItem(_text(message.get("content")), title=str(message.get("customType") or role)))
    elif role in ("branchSummary", "compactionSummary") and isinstance(message.get("summary"), str):
        label = "summary of the branch left behind" if role == "branchSummary" else "context compacted"
        out.append(DividerItem(label, detail=message["summary"]))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str))


def _advice(text: str) -> tuple[str, str]:
    """(note, severity) of a stored advisor message: ``- [concern] note`` lines after the prefix."""
    body = text[len(ADVISOR_PREFIX) :].strip()
    for severity in ("blocker", "concern"):
        if f"[{severity}]" in body:
            return body.replace(f"[{severity}] ", ""), severity
    return body, "nit"


def _message(message: Message, out: list[TranscriptItem], tools: dict[str, ToolItem]) -> None:
    if isinstance(message, UserMessage):
        if message.text.startswith(ADVISOR_PREFIX):
            out.append(AdvisorItem(*_advice(message.text)))
        else:
            out.append(UserItem(message.text))
    elif isinstance(message, AssistantMessage):
        for block in message.content:
            if isinstance(block, ThinkingBlock):
                if block.thinking.strip():
                    out.append(ThinkingItem(block.thinking))
            elif isinstance(block, TextBlock):
                if out and isinstance(out[-1], AssistantItem):
                    out[-1].text += block.text
                elif block.text.strip():
                    out.append(AssistantItem(block.text))
            elif isinstance(block, ToolCall):
                item = tool_item(block)
                tools[block.id] = item
                out.append(item)
        if message.stop_reason == "error" and message.error_message:
            out.append(ErrorItem(message.error_message))
        elif message.stop_reason == "aborted":
            out.append(NoticeItem("Interrupted; the partial answer was kept."))
    elif isinstance(message, ToolResultMessage):
        found = tools.get(message.tool_call_id)
        if found is None:
            found = ToolItem(call_id=message.tool_call_id, name=message.tool_name, title="")
            out.append(found)
        apply_result(found, message)
