"""Cheap context relief before any summary: blank old tool outputs, and as a last resort trim big texts.

A tool result the model has not seen yet (after the last assistant message) is never blanked: it is what the
model asked for. When even it does not fit, the trim cuts it to what fits and says so (a ``read`` at a line,
with the offset to go on from). Measured before: a 300-line read (6,600 tokens) was pruned to a placeholder
before the 1.5B ever saw it, and the model, told the file was read, overwrote it with one line.

Pruned messages are replaced by copies (the session keeps the originals, so the transcript and a later resume
still show everything); the caller gets the (original, copy) pairs to keep its bookkeeping right.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from navtui.agent.budget import estimate_message_tokens, estimate_text_tokens
from navtui.core.context_messages import PRUNED_PREFIX, ContextMessages, result_tokens
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage

MIN_PRUNE_TOKENS = 50  # the placeholder costs ~10 tokens: blanking less saves nothing and churns the cache
TRIM_STEPS = (2000, 500, 120)  # per-part token caps tried in turn by the emergency trim


def placeholder(tokens: int) -> str:
    return f"{PRUNED_PREFIX} {tokens} tokens]"


@dataclass
class Pruned:
    messages: list[Any] | ContextMessages
    results: int = 0
    tokens_saved: int = 0
    replaced: list[tuple[Any, Any]] = field(default_factory=list)  # (original, copy)


def is_pruned(message: ToolResultMessage) -> bool:
    return message.text.startswith(PRUNED_PREFIX)


def unseen_from(messages: Sequence[Any]) -> int:
    """The index of the first message the model has not answered yet (after the last assistant message)."""
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], AssistantMessage):
            return index + 1
    return 0


def prune_tool_outputs(
    messages: Sequence[Any], *, protect_tokens: int, min_savings: int, min_tokens: int = MIN_PRUNE_TOKENS
) -> Pruned:
    """Blank every tool result older than the newest ``protect_tokens`` of tool output, never an unseen one.

    Nothing changes unless that saves at least ``min_savings`` tokens (each prune rewrites the prompt prefix,
    so small gains are not worth a cold cache). Call ids and error flags stay: the history remains valid.
    """
    seen = 0
    candidates: list[tuple[int, int]] = []
    unseen = unseen_from(messages)
    lazy = messages if isinstance(messages, ContextMessages) else None  # (its older messages weighed unread)
    for index in range(len(messages) - 1, -1, -1):
        found = lazy.lazy_at(index) if lazy is not None else None
        tokens = found.result_tokens if found is not None else result_tokens(messages[index])
        if tokens is None:
            continue
        if seen >= protect_tokens and tokens >= min_tokens and index < unseen:
            candidates.append((index, tokens))
        seen += tokens
    saving = sum(tokens - estimate_text_tokens(placeholder(tokens)) for _, tokens in candidates)
    out = Pruned(lazy.copy() if lazy is not None else list(messages))
    if not candidates or saving < max(min_savings, 1):
        return out
    for index, tokens in candidates:
        original = out.messages[index]
        copy = original.model_copy(update={"content": [TextBlock(text=placeholder(tokens))]})
        out.messages[index] = copy
        out.replaced.append((original, copy))
    out.results = len(candidates)
    out.tokens_saved = saving
    return out


def trim_to_fit(messages: Sequence[Any], excess_tokens: int) -> Pruned:
    """Shrink the biggest text parts, oldest messages first, until ``excess_tokens`` are saved.

    The emergency brake when pruning and compaction could not make a request fit: tool outputs, long texts and
    long tool-call arguments keep their head and tail around a marker. The newest message is touched last.
    """
    out = Pruned(list(messages))
    if excess_tokens <= 0 or not messages:
        return out
    order = list(range(len(messages) - 1)) + [len(messages) - 1]
    for cap in TRIM_STEPS:
        for index in order:
            if out.tokens_saved >= excess_tokens:
                return out
            current = out.messages[index]
            before = estimate_message_tokens(current)
            shrunk = _shrink(current, cap)
            if shrunk is None:
                continue
            saved = before - estimate_message_tokens(shrunk)
            if saved <= 0:
                continue
            out.messages[index] = shrunk
            original = next((orig for orig, copy in out.replaced if copy is current), current)
            out.replaced = [(o, c) for o, c in out.replaced if c is not current] + [(original, shrunk)]
            out.tokens_saved += saved
            out.results += 1
    return out


def _shrink(message: Any, cap_tokens: int) -> Any | None:
    """A copy of ``message`` with every text part over ``cap_tokens`` cut down, or None if none is."""
    if isinstance(message, ToolResultMessage) and message.tool_name == "read" and not message.is_error:
        text = _cut_read(message.text, cap_tokens)
        return None if text is None else message.model_copy(update={"content": [TextBlock(text=text)]})
    if isinstance(message, ToolResultMessage | UserMessage):
        if isinstance(message.content, str):
            text = _cut(message.content, cap_tokens)
            return None if text is None else message.model_copy(update={"content": text})
        blocks, changed = _shrink_blocks(message.content, cap_tokens)
        return message.model_copy(update={"content": blocks}) if changed else None
    if isinstance(message, AssistantMessage):
        kept: list[Any] = []
        changed = False
        for block in message.content:
            if isinstance(block, TextBlock) and (text := _cut(block.text, cap_tokens)) is not None:
                kept.append(TextBlock(text=text))
                changed = True
            elif isinstance(block, ToolCall) and (args := _cut_arguments(block.arguments, cap_tokens)) is not None:
                kept.append(block.model_copy(update={"arguments": args}))
                changed = True
            else:
                kept.append(block)
        return message.model_copy(update={"content": kept}) if changed else None
    return None


def _shrink_blocks(blocks: list[Any], cap_tokens: int) -> tuple[list[Any], bool]:
    out: list[Any] = []
    changed = False
    for block in blocks:
        if isinstance(block, TextBlock) and (text := _cut(block.text, cap_tokens)) is not None:
            out.append(TextBlock(text=text))
            changed = True
        else:
            out.append(block)
    return out, changed


def _cut_arguments(arguments: dict[str, Any], cap_tokens: int) -> dict[str, Any] | None:
    changed = False
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        if isinstance(value, str) and (text := _cut(value, cap_tokens)) is not None:
            out[key] = text
            changed = True
        else:
            out[key] = value
    return out if changed else None


_NUMBERED = re.compile(r"^\s*(\d+)\t")


def _cut_read(text: str, cap_tokens: int) -> str | None:
    """A read's numbered lines cut at a line within ``cap_tokens``, saying where to go on; None when it fits."""
    if estimate_text_tokens(text) <= cap_tokens:
        return None
    budget = max(cap_tokens * 4 - 200, 80)
    kept: list[str] = []
    last = 0
    for line in text.split("\n"):
        match = _NUMBERED.match(line)
        if match is None or sum(len(k) + 1 for k in kept) + len(line) + 1 > budget:
            break
        kept.append(line)
        last = int(match.group(1))
    if not kept:
        return _cut(text, cap_tokens)
    return "\n".join(kept) + (
        f"\n[cut to fit the model's context window after line {last}: the rest of the file is not shown. Read it "
        f"with offset={last + 1} when you need it; do not write the whole file, you have not seen all of it]"
    )


def _cut(text: str, cap_tokens: int) -> str | None:
    """Head and tail of ``text`` within ``cap_tokens``, or None when it already fits."""
    tokens = estimate_text_tokens(text)
    if tokens <= cap_tokens:
        return None
    keep = max(cap_tokens * 4 - 80, 40)  # characters, leaving room for the marker
    head, tail = text[: keep * 2 // 3], text[-(keep // 3) :]
    return f"{head}\n[... {tokens - cap_tokens} tokens trimmed to fit the context window ...]\n{tail}"
