"""What the model sees at a leaf: the messages on the root-to-leaf path, after compaction and handover.

- The latest compaction on the path contributes its summary (a user-role message), then the entries from
  its ``firstKeptEntryId`` up to it, then everything after it.
- A ``handover`` custom message starts the context afresh: only what follows it is sent, and its notes are
  returned separately for the system prompt.
- Branch summaries and other custom messages join as user-role text; model, thinking-level, label and
  session-info entries are state, not messages.
- The result is always a valid conversation: it opens with a user message, every tool call is answered
  right after its assistant message (a synthetic "aborted" result when none was recorded), no tool result
  is left without its call, and empty assistant messages are dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from navtui.core.context_messages import ContextMessages, Lazy, result_tokens
from navtui.core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from navtui.core.tokens import estimate_message_tokens
from navtui.session.blobs import resolve_blocks
from navtui.session.entries import (
    AnyMessage,
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    Entry,
    MessageEntry,
    ModelChangeEntry,
    RawEntry,
    ThinkingLevelChangeEntry,
    is_handover,
    share_field_names,
)
from navtui.session.store import gc_paused
from navtui.session.tree import Branch

COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUFFIX = "\n</summary>"
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUFFIX = "\n</summary>"
ABORTED_RESULT = "Aborted: no result was recorded for this tool call (the run was interrupted)."
OPENING_NOTE = "(The earlier part of this conversation is not available.)"
HANDOVER_OPENING = "Continue the task. Your handover notes are at the end of the system prompt."


@dataclass
class SessionContext:
    messages: list[AnyMessage] | ContextMessages = field(default_factory=list)
    handover_notes: str | None = None
    model: str | None = None
    provider: str | None = None
    base_url: str | None = None  # the endpoint recorded with the model (navtui's model_change baseUrl)
    thinking_level: str = "off"
    thinking_level_recorded: bool = False  # a thinking_level_change (or a v1 header) set it
    compaction: CompactionEntry | None = None  # the compaction in effect (None after a later handover)
    leaf_id: str | None = None


def build_context(
    branch: Sequence[Entry],
    *,
    default_model: tuple[str | None, str | None] = (None, None),
    default_thinking: str | None = None,
    read_along: Callable[[Entry], None] | None = None,
) -> SessionContext:
    """The model's context for the root-to-leaf ``branch`` (defaults: what a pi v1 header recorded).

    A session's ``Branch`` parses an entry when it is read: the state entries are found by their type, and only
    the entries the context takes are read, one at a time (a resumed 5,000-entry branch never has all its
    entries parsed at once: each leaves its message and goes).

    ``read_along`` is given every entry of ``branch`` in order as the pass reads it (those the context does not
    take read for it alone): a second reader of the whole path (a resumed session's transcript) then parses none
    of its lines again.
    """
    path = branch
    if isinstance(path, Branch):
        ids: Sequence[str | None] = path.ids
        types: Sequence[str] = path.types
    else:
        ids, types = [entry.id for entry in path], [entry.type for entry in path]
    count = len(ids)
    context = SessionContext(leaf_id=ids[-1] if count else None)
    if default_thinking is not None:
        context.thinking_level, context.thinking_level_recorded = default_thinking, True
    changed: tuple[str | None, str | None] | None = None
    changed_url: str | None = None
    compaction_at = handover_at = -1
    # The state entries, held while the pass runs (a session's index gives an entry held the same object again):
    # the pass reads some again (a custom message is one the context takes), a reader along the path all of them.
    scanned: list[Entry] = []

    with gc_paused():
        for index, kind in enumerate(types):
            if kind not in _STATE_TYPES:
                continue
            entry = path[index]
            scanned.append(entry)
            if isinstance(entry, ThinkingLevelChangeEntry):
                context.thinking_level = entry.thinking_level or "off"
                context.thinking_level_recorded = True
            elif isinstance(entry, ModelChangeEntry):
                if (entry.role or "default") == "default":
                    changed, changed_url = entry.resolved, entry.base_url
            elif isinstance(entry, CompactionEntry):
                compaction_at = index
            elif is_handover(entry):
                handover_at = index

    start = handover_at + 1
    if handover_at >= 0:
        context.handover_notes = path[handover_at].text  # type: ignore[union-attr]
    messages: list[AnyMessage] = []
    selected: Sequence[int] = range(start, count)
    if compaction_at > handover_at:
        compaction = path[compaction_at]
        assert isinstance(compaction, CompactionEntry)
        context.compaction = compaction
        messages.append(_user(COMPACTION_PREFIX + compaction.summary + COMPACTION_SUFFIX, compaction.timestamp))
        kept_from = compaction_at  # a firstKeptEntryId not on the path keeps nothing, as in pi
        for index in range(start, compaction_at):
            if ids[index] == compaction.first_kept_entry_id:
                kept_from = index
                break
        selected = [*range(kept_from, compaction_at), *range(compaction_at + 1, count)]
    answered_by: tuple[str | None, str | None] | None = None  # the path's last answer that names its model
    # id(message) -> (message, the index position it is read from, the entry's id when it is the entry's own
    # message) while it is on its way (held: no id is reused)
    sources: dict[int, tuple[AnyMessage, int, str | None]] = {}

    def read() -> Iterator[AnyMessage]:
        nonlocal answered_by
        given = 0  # the entries read_along was given

        def give_until(end: int) -> None:
            nonlocal given
            if read_along is not None:
                for skipped in range(given, end):
                    read_along(path[skipped])
                given = max(given, end)

        for index in selected:
            give_until(index)
            entry = path[index]
            if read_along is not None and index == given:
                read_along(entry)
                given += 1
            found = context_message(entry)
            if found is not None:
                if positions is not None:
                    own = isinstance(entry, MessageEntry) and found is entry.message
                    sources[id(found)] = (found, positions[index], entry.id if own else None)
                yield found
            if changed is None and (model := _answered_by(entry)) is not None:
                answered_by = model
        give_until(count)
        scanned.clear()

    lazy = path if isinstance(path, Branch) else None  # (a branch of the session: its lines give a message again)
    positions = lazy.positions if lazy is not None else None

    def opening() -> str:
        return HANDOVER_OPENING if context.handover_notes is not None else OPENING_NOTE

    with gc_paused():
        if lazy is None:
            out: list[AnyMessage] | ContextMessages = repair_conversation([*messages, *read()], opening=opening())
            for message in out:  # what the agent keeps: one object of field names for all (entries.py)
                share_field_names(message)
        else:
            out = _held_newest(_repaired(_chain(messages, read()), opening), sources, lazy)
        if changed is None and answered_by is None:  # then it is before what the context takes
            taken = set(selected)
            for index in range(count - 1, -1, -1):
                if types[index] == "message" and index not in taken:
                    answered_by = _answered_by(path[index])
                    if answered_by is not None:
                        break
    context.provider, context.model = changed or answered_by or default_model
    context.base_url = changed_url if changed else None
    context.messages = out
    return context


HELD_TOKENS = 16384  # a context read from a session holds its newest messages of at least this many tokens


def _chain(first: list[AnyMessage], rest: Iterator[AnyMessage]) -> Iterator[AnyMessage]:
    yield from first
    yield from rest


def _held_newest(
    repaired: Iterator[AnyMessage], sources: dict[int, tuple[AnyMessage, int, str | None]], path: Branch
) -> ContextMessages:
    """The repaired context, the messages older than the newest ``HELD_TOKENS`` left in the session's lines
    (``Lazy``) where a line gives them again; what repair made (an opening, an aborted result) stays held."""
    load = _loader(path)
    older: list[AnyMessage | Lazy] = []
    newest: deque[tuple[AnyMessage, tuple[AnyMessage, int, str | None] | None, int]] = deque()
    newest_tokens = 0
    for message in repaired:
        tokens = estimate_message_tokens(message)
        newest.append((message, sources.pop(id(message), None), tokens))
        newest_tokens += tokens
        while newest_tokens - newest[0][2] >= HELD_TOKENS:
            old, source, old_tokens = newest.popleft()
            newest_tokens -= old_tokens
            if source is None:
                share_field_names(old)
                older.append(old)
            else:
                older.append(Lazy(load, source[1], old_tokens, result_tokens(old), source[2]))
    for message, _, _ in newest:
        share_field_names(message)  # what the agent keeps: one object of field names for all (entries.py)
        older.append(message)
    return ContextMessages(older)


def _loader(path: Branch) -> Callable[[int], AnyMessage]:
    index = path.entry_index

    def load(position: int) -> AnyMessage:
        message = context_message(index.entry_at(position))
        assert message is not None  # (it gave this message when the context was built)
        share_field_names(message)
        return message

    return load


_STATE_TYPES = frozenset({"thinking_level_change", "model_change", "compaction", "custom_message"})


def _answered_by(entry: Entry) -> tuple[str | None, str | None] | None:
    """(provider, model) of an answer that names its model."""
    if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage) and entry.message.model:
        return entry.message.provider, entry.message.model
    return None


def context_message(entry: Entry) -> AnyMessage | None:
    """The message one entry contributes to the model's context, if any."""
    if isinstance(entry, MessageEntry):
        message = entry.message
        if not isinstance(message, AssistantMessage) and not isinstance(message.content, str):
            blocks = resolve_blocks(message.content)
            if blocks is not message.content:
                message = message.model_copy(update={"content": blocks})
        return message
    if isinstance(entry, CustomMessageEntry):
        if is_handover(entry):
            return None
        content = entry.content if isinstance(entry.content, str) else resolve_blocks(entry.content)
        return None if not content else UserMessage(content=content, timestamp=_ms(entry.timestamp))
    if isinstance(entry, BranchSummaryEntry):
        return _user(BRANCH_PREFIX + entry.summary + BRANCH_SUFFIX, entry.timestamp) if entry.summary else None
    if isinstance(entry, RawEntry) and entry.type == "message":
        return _pi_message(entry)
    return None


def _pi_message(entry: RawEntry) -> UserMessage | None:
    """pi's extended message roles, converted the way pi sends them."""
    message = entry.raw.get("message")
    if not isinstance(message, dict):
        return None
    role = message.get("role")
    if role in ("custom", "hookMessage"):
        try:
            return UserMessage.model_validate(
                {"content": message.get("content") or "", "timestamp": _ms(entry.timestamp)}
            )
        except ValidationError:
            return None
    if role in ("bashExecution", "pythonExecution") and not message.get("excludeFromContext"):
        return _user(execution_text(message), entry.timestamp)
    if role == "branchSummary" and isinstance(message.get("summary"), str):
        return _user(BRANCH_PREFIX + message["summary"] + BRANCH_SUFFIX, entry.timestamp)
    if role == "compactionSummary" and isinstance(message.get("summary"), str):
        return _user(COMPACTION_PREFIX + message["summary"] + COMPACTION_SUFFIX, entry.timestamp)
    return None


def execution_text(message: dict[str, Any]) -> str:
    """A user's ``!`` (pi's bashExecution) or ``$`` (omp's pythonExecution) run, as the model is told of it."""
    if message.get("role") == "pythonExecution":
        text = f"Ran Python:\n```python\n{message.get('code', '')}\n```\n"
    else:
        text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(exit_code, int) and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    return text


def repair_conversation(messages: list[AnyMessage], *, opening: str = OPENING_NOTE) -> list[AnyMessage]:
    """``messages`` made valid for any provider (see the module docstring); valid input comes back equal."""
    return list(_repaired(iter(messages), lambda: opening))


def _repaired(messages: Iterator[AnyMessage], opening: Callable[[], str]) -> Iterator[AnyMessage]:
    """``repair_conversation`` one message at a time (what it passes on is the message it was given)."""
    out: list[AnyMessage] = []
    first = True
    pending: dict[str, ToolCall] = {}
    orphans: list[ToolResultMessage] = []
    last_time = 0

    def close_tool_run() -> None:
        for call in pending.values():
            out.append(
                ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=[TextBlock(text=ABORTED_RESULT)],
                    is_error=True,
                    timestamp=last_time,
                )
            )
        pending.clear()
        for orphan in orphans:  # its call is not in context (compacted away, or a foreign file): keep it as text
            text = f"[Result of an earlier `{orphan.tool_name}` tool call]\n{orphan.text}"
            out.append(UserMessage(content=text, timestamp=orphan.timestamp))
        orphans.clear()

    for message in messages:
        last_time = message.timestamp
        if isinstance(message, ToolResultMessage):
            if message.tool_call_id in pending:
                del pending[message.tool_call_id]
                out.append(message)
            else:
                orphans.append(message)
            continue
        close_tool_run()
        if isinstance(message, AssistantMessage):
            if _is_empty(message):
                continue
            out.append(message)
            for call in message.tool_calls:
                pending.setdefault(call.id, call)
        else:
            out.append(message)
        if first and out:
            first = False
            if not isinstance(out[0], UserMessage):
                yield UserMessage(content=opening(), timestamp=out[0].timestamp)
        yield from out
        out.clear()
    close_tool_run()
    if first and out and not isinstance(out[0], UserMessage):
        yield UserMessage(content=opening(), timestamp=out[0].timestamp)
    yield from out


def _is_empty(message: AssistantMessage) -> bool:
    return not message.tool_calls and not message.text.strip() and not message.thinking.strip()


def _user(text: str, timestamp: str) -> UserMessage:
    return UserMessage(content=text, timestamp=_ms(timestamp))


def _ms(timestamp: str) -> int:
    try:
        return int(datetime.fromisoformat(timestamp).timestamp() * 1000)
    except (ValueError, TypeError):
        return 0
