"""The text tool-call protocol (codali's "XML trick") for models without native tool calling.

Tools are described in the system prompt; the model writes
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, or, for long text such as file contents,
``<tool_call name="write"><parameter name="path">a.py</parameter><parameter name="content">...</parameter></tool_call>``
so code never has to be JSON-escaped. ``ToolCallScanner`` reads the streamed text, holds back anything that
could be the start of a tag (partial tags never reach the screen), decodes leniently and turns what it cannot
decode into a call carrying ``PARSE_ERROR_KEY`` so the model gets a precise error to fix.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from navtui.core.events import TextDelta, ThinkingDelta, ToolCallEvent
from navtui.core.messages import ToolCall, ToolSpec
from navtui.providers.base import PARSE_ERROR_KEY
from navtui.providers.textdecode import decode_call_body, xml_params_closed
from navtui.providers.textrender import CLOSE, OPEN, render_call, render_result, render_tool_instructions
from navtui.providers.toolargs import call_ids, error_arguments

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
INVENTED_RESULT = ("<tool_result", "<tool_response")
MAX_PARSE_FAILURES = 3
_LONGEST_TAG = max(len(t) for t in (OPEN, THINK_OPEN, *INVENTED_RESULT))
_MAX_OPENER = 300  # an opening tag longer than this is prose that happens to start with "<tool_call"
_ATTR_NAME = re.compile(r"""\bname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")

ScanEvent = TextDelta | ThinkingDelta | ToolCallEvent
__all__ = [
    "MAX_PARSE_FAILURES",
    "ParseFailureCounter",
    "ToolCallScanner",
    "render_call",
    "render_result",
    "render_tool_instructions",
]


class ToolCallScanner:
    """Split streamed model text into text, thinking and tool calls.

    ``strict=False`` is the leak mode for native-tools models: only well-formed calls to known tools are
    taken, everything else stays text. ``feed`` returns the events each chunk completes; ``finish`` flushes.
    """

    def __init__(
        self,
        tools: Sequence[ToolSpec] = (),
        *,
        new_id: Callable[[], str] | None = None,
        strict: bool = True,
        think_tags: bool = True,
    ) -> None:
        self._tools = {t.name: t for t in tools}
        self._new_id = new_id or call_ids()
        self._strict = strict
        self._think_tags = think_tags
        self._buf = ""
        self._state = "text"  # text | call | think | done
        self._opener = ""
        self._name_hint: str | None = None
        self._search_from = 0
        self._rejected_end = -1  # first "</tool_call>" that looked like it sat inside a value
        self._seen_text = False
        self._after_think = False
        self.calls: list[ToolCall] = []
        self.dropped_invented_output = False

    # ------------------------------------------------------------------ public
    def feed(self, text: str) -> list[ScanEvent]:
        if self._state == "done" or not text:
            return []
        self._buf += text
        return self._drain(final=False)

    def finish(self) -> list[ScanEvent]:
        """Flush at end of stream: a held-back partial tag is text, an unclosed call is decoded as it is."""
        if self._state == "done":
            return []
        return self._drain(final=True)

    @property
    def stopped(self) -> bool:
        """True once the model started inventing tool output: the rest of the stream is ignored."""
        return self._state == "done"

    # ------------------------------------------------------------------ machinery
    def _drain(self, final: bool) -> list[ScanEvent]:
        out: list[ScanEvent] = []
        while self._buf and self._state != "done":
            before = (self._state, len(self._buf))
            if self._state == "text":
                self._scan_text(out, final)
            elif self._state == "think":
                self._scan_think(out, final)
            else:
                self._scan_call(out, final)
            if (self._state, len(self._buf)) == before:
                break  # waiting for more input
        if final and self._state == "call":
            self._end_call(out, len(self._buf), len(self._buf), unclosed=True)
        return _coalesce(out)

    def _scan_text(self, out: list[ScanEvent], final: bool) -> None:
        buf = self._buf
        pos = buf.find("<")
        while pos != -1:
            kind = self._tag_at(pos, final)
            if kind == "partial":
                self._emit_text(out, buf[:pos])
                self._buf = buf[pos:]
                return
            if kind == "call":
                end = buf.find(">", pos)
                if end == -1:
                    if final:
                        self._emit_text(out, buf[:pos])
                        self._buf = buf[pos:]
                        self._start_call(buf[pos:], len(buf) - pos)
                        return
                    if len(buf) - pos > _MAX_OPENER:
                        pos = buf.find("<", pos + 1)
                        continue
                    self._emit_text(out, buf[:pos])
                    self._buf = buf[pos:]
                    return
                self._emit_text(out, buf[:pos])
                self._buf = buf[pos:]
                self._start_call(buf[pos : end + 1], end + 1 - pos)
                return
            if kind == "think":
                self._emit_text(out, buf[:pos])
                self._buf = buf[pos + len(THINK_OPEN) :]
                self._state = "think"
                return
            if kind == "invented":
                self._emit_text(out, buf[:pos])
                self._buf = ""
                self._state = "done"
                self.dropped_invented_output = True
                return
            pos = buf.find("<", pos + 1)
        self._emit_text(out, buf)
        self._buf = ""

    def _tag_at(self, pos: int, final: bool) -> str | None:
        """What starts at ``pos``: call, think, invented, partial (could still become a tag) or None."""
        tail = self._buf[pos : pos + _LONGEST_TAG + 1]
        if tail.startswith(OPEN) and len(tail) > len(OPEN):
            after = tail[len(OPEN)]
            return "call" if after == ">" or after.isspace() else None
        candidates = [OPEN]
        if self._think_tags and not self._seen_text and not self.calls and not self._buf[:pos].strip():
            if tail.startswith(THINK_OPEN):
                return "think"
            candidates.append(THINK_OPEN)
        if self.calls:
            if tail.startswith(INVENTED_RESULT):
                return "invented"
            candidates.extend(INVENTED_RESULT)
        if not final and len(tail) <= _LONGEST_TAG and any(tag.startswith(tail) for tag in candidates):
            return "partial"
        return None

    def _emit_text(self, out: list[ScanEvent], text: str) -> None:
        if self._after_think:  # the newline that follows </think> is layout, not answer
            text = text.lstrip("\n")
            self._after_think = not text
        if text:
            out.append(TextDelta(text=text))
            if text.strip():
                self._seen_text = True

    def _scan_think(self, out: list[ScanEvent], final: bool) -> None:
        end = self._buf.find(THINK_CLOSE)
        if end != -1:
            if end:
                out.append(ThinkingDelta(text=self._buf[:end]))
            self._buf = self._buf[end + len(THINK_CLOSE) :]
            self._state = "text"
            self._after_think = True
            return
        keep = 0 if final else _partial_suffix(self._buf, THINK_CLOSE)
        text = self._buf[: len(self._buf) - keep]
        if text:
            out.append(ThinkingDelta(text=text))
        self._buf = self._buf[len(text) :]

    def _start_call(self, opener: str, length: int) -> None:
        self._opener = opener
        match = _ATTR_NAME.search(opener)
        self._name_hint = next((g for g in match.groups() if g), None) if match else None
        self._buf = self._buf[length:]
        self._state = "call"
        self._search_from = 0
        self._rejected_end = -1

    def _scan_call(self, out: list[ScanEvent], final: bool) -> None:
        buf = self._buf
        pos = buf.find(CLOSE, self._search_from)
        while pos != -1:
            if self._is_call_end(buf[:pos]):
                self._end_call(out, pos, pos + len(CLOSE))
                return
            if self._rejected_end < 0:
                self._rejected_end = pos
            pos = buf.find(CLOSE, pos + 1)
        self._search_from = max(0, len(buf) - len(CLOSE))
        if final and self._rejected_end >= 0:
            # Never closed outside a value: the first close tag was the real end after all.
            self._end_call(out, self._rejected_end, self._rejected_end + len(CLOSE))

    def _is_call_end(self, body: str) -> bool:
        """False when this close tag sits inside a JSON string or an unclosed ``<parameter>`` value."""
        stripped = body.lstrip()
        if stripped.startswith("<"):
            return xml_params_closed(stripped)
        return not _inside_json_string(stripped)

    def _end_call(self, out: list[ScanEvent], body_end: int, consumed: int, *, unclosed: bool = False) -> None:
        body = self._buf[:body_end]
        raw = self._opener + body + (CLOSE if not unclosed else "")
        self._buf = self._buf[consumed:]
        self._state = "text"
        decoded = decode_call_body(body, self._name_hint, self._tools, closed=not unclosed)
        if not self._strict:
            if decoded.ok and decoded.calls and all(name in self._tools for name, _ in decoded.calls):
                for name, args in decoded.calls:
                    self._add_call(out, name, args)
            else:
                self._emit_text(out, raw)
            return
        if not decoded.ok:
            reason = decoded.error or "the call could not be read"
            if unclosed:
                reason += " (the call was not closed with </tool_call>)"
            name = decoded.calls[0][0] if decoded.calls else (self._name_hint or "unknown")
            self._add_call(out, name, error_arguments(_fix_hint(reason, self._tools), raw))
            return
        for name, args in decoded.calls:
            self._add_call(out, name, args)

    def _add_call(self, out: list[ScanEvent], name: str, arguments: dict[str, Any]) -> None:
        call = ToolCall(id=self._new_id(), name=name, arguments=arguments)
        self.calls.append(call)
        out.append(ToolCallEvent(call=call))


def _fix_hint(reason: str, tools: dict[str, ToolSpec]) -> str:
    example = next(iter(tools), "read")
    return (
        f"Your tool call could not be read: {reason}. Write exactly one JSON object per call, "
        f'<tool_call>{{"name": "{example}", "arguments": {{...}}}}</tool_call>, with double-quoted keys and '
        'strings, or use the <tool_call name="..."><parameter name="...">raw text</parameter></tool_call> form '
        "for long text."
    )


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


def _inside_json_string(text: str) -> bool:
    """Whether JSON ``text`` ends inside a double-quoted string (escapes honoured)."""
    inside = False
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = inside
        elif char == '"':
            inside = not inside
    return inside


def _coalesce(events: list[ScanEvent]) -> list[ScanEvent]:
    merged: list[ScanEvent] = []
    for event in events:
        last = merged[-1] if merged else None
        if isinstance(event, TextDelta) and isinstance(last, TextDelta):
            merged[-1] = TextDelta(text=last.text + event.text)
        elif isinstance(event, ThinkingDelta) and isinstance(last, ThinkingDelta) and last.signature is None:
            merged[-1] = ThinkingDelta(text=last.text + event.text)
        else:
            merged.append(event)
    return merged


class ParseFailureCounter:
    """Counts responses in a row whose tool calls could not be decoded; a good response resets it."""

    def __init__(self, limit: int = MAX_PARSE_FAILURES) -> None:
        self.limit = limit
        self.count = 0

    def record(self, calls: Iterable[ToolCall]) -> bool:
        """Record one response's calls; True when the limit is reached (end the turn with an error)."""
        calls = list(calls)
        if any(PARSE_ERROR_KEY in c.arguments for c in calls):
            self.count += 1
        elif calls:
            self.count = 0
        return self.count >= self.limit
