"""The text tool-call protocol (codali's "XML trick") for models without native tool calling.

Tools are described in the system prompt; the model writes
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, or, for long text such as file contents,
``<tool_call name="write"><parameter name="path">a.py</parameter><parameter name="content">...</parameter></tool_call>``
so code never has to be JSON-escaped. ``ToolCallScanner`` reads the streamed text, holds back anything that
could be the start of a call (partial tags never reach the screen), decodes leniently and turns what it cannot
decode into a call carrying ``PARSE_ERROR_KEY`` so the model gets a precise correction. Small models write
calls in other shapes too (``callshapes``): those are taken as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from navtui.core.events import TextDelta, ThinkingDelta, ToolCallEvent
from navtui.core.messages import ToolCall, ToolSpec
from navtui.providers.base import PARSE_ERROR_KEY
from navtui.providers.callshapes import (
    CALL_FENCES,
    MAX_FENCE_LINE,
    TOOL_CALL,
    BlockKind,
    JsonEnd,
    correction,
    could_become_tag,
    fence_info,
    known_name,
    misnamed_call,
    named_tool,
    tag_kind,
)
from navtui.providers.textdecode import Decoded, decode_call_body, xml_params_closed
from navtui.providers.textrender import render_call, render_result, render_tool_instructions
from navtui.providers.toolargs import call_ids, error_arguments

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
INVENTED_RESULT = ("<tool_result", "<tool_response")
MAX_PARSE_FAILURES = 3
_LONGEST_TAG = len("<function name")
_MAX_OPENER = 300  # an opening tag longer than this is prose that happens to start with "<tool_call"
_JSON_PEEK = 300  # a bare JSON object naming no tool in its first characters is prose: released as text
_ATTR_NAME = re.compile(r"""\bname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_FUNCTION_NAME = re.compile(r"""<function\s*(?:=|\s+name\s*=)\s*["']?([\w.-]+)""")
# Where a candidate may start: any "<", or a backtick or "{" that opens a line (after indentation).
_CANDIDATE = re.compile(r"<|^[ \t]*([`{])", re.MULTILINE)
_FENCE_CLOSE = re.compile(r"\n[ \t]*```[ \t]*(?=\n|$)")

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

    Calls are taken in every shape small models write (``callshapes``): tagged blocks, fenced JSON and bare
    JSON objects opening a line. ``strict=False`` is the leak mode for native-tools models: a block becomes a
    call only when it decodes to known tools, or a correction when it plainly tried to call one; everything
    else stays text. ``feed`` returns the events each chunk completes; ``finish`` flushes.
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
        self._state = "text"  # text | call | fence | json | think | done
        self._kind: BlockKind = TOOL_CALL
        self._opener = ""
        self._name_hint: str | None = None
        self._search_from = 0
        self._rejected_end = -1  # first close tag that looked like it sat inside a value
        self._json = JsonEnd()
        self._line_start = True  # the text emitted so far ends at the start of a line
        self._in_code = False  # inside a fenced code sample: JSON there is an example, not a call
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
            elif self._state == "call":
                self._scan_call(out, final)
            elif self._state == "fence":
                self._scan_fence(out)
            else:
                self._scan_json(out)
            if (self._state, len(self._buf)) == before:
                break  # waiting for more input
        if final and self._buf:
            if self._state == "call":
                self._end_call(out, len(self._buf), len(self._buf), unclosed=True)
            elif self._state in ("fence", "json"):
                raw, self._buf = self._buf, ""
                body = raw[len(self._opener) :] if self._state == "fence" else raw
                self._end_candidate(out, raw, body, closed=False)
        return _coalesce(out)

    def _scan_text(self, out: list[ScanEvent], final: bool) -> None:
        buf = self._buf
        match = _CANDIDATE.search(buf)
        while match is not None:
            pos = match.start(1) if match.group(1) else match.start()
            char = buf[pos]
            if char == "<":
                if self._at_tag(out, pos, final):
                    return
            elif not self._at_line_start(buf, pos):
                pass
            elif char == "`":
                if self._at_fence(out, pos, final):
                    return
            elif not self._in_code and self._tools:  # "{" opening a line: perhaps a bare JSON call
                self._emit_text(out, buf[:pos])
                self._buf = buf[pos:]
                self._state = "json"
                self._json = JsonEnd()
                return
            match = _CANDIDATE.search(buf, pos + 1)
        self._emit_text(out, buf)
        self._buf = ""

    def _at_line_start(self, buf: str, pos: int) -> bool:
        return buf.rfind("\n", 0, pos) != -1 or self._line_start

    def _hold(self, out: list[ScanEvent], pos: int) -> bool:
        """Emit the text before ``pos`` and keep the rest: it may still become a call."""
        self._emit_text(out, self._buf[:pos])
        self._buf = self._buf[pos:]
        return True

    def _at_tag(self, out: list[ScanEvent], pos: int, final: bool) -> bool:
        """Handle a ``<`` at ``pos``; True when scanning of this buffer stops (held back or state changed)."""
        buf = self._buf
        kind = self._tag_at(pos, final)
        if kind == "partial":
            return self._hold(out, pos)
        if isinstance(kind, BlockKind):
            end = buf.find(">", pos)
            if end == -1:
                if final:
                    self._hold(out, pos)
                    self._start_call(kind, self._buf, len(self._buf))
                    return True
                return False if len(buf) - pos > _MAX_OPENER else self._hold(out, pos)
            self._hold(out, pos)
            self._start_call(kind, self._buf[: end + 1 - pos], end + 1 - pos)
            return True
        if kind == "think":
            self._emit_text(out, buf[:pos])
            self._buf = buf[pos + len(THINK_OPEN) :]
            self._state = "think"
            return True
        if kind == "invented":
            self._emit_text(out, buf[:pos])
            self._buf = ""
            self._state = "done"
            self.dropped_invented_output = True
            return True
        return False

    def _at_fence(self, out: list[ScanEvent], pos: int, final: bool) -> bool:
        """A backtick opening a line: a code sample passes as text, a fenced JSON block may be a call."""
        buf = self._buf
        head = buf[pos : pos + 3]
        if head != "```":
            at_end = pos + len(head) == len(buf)
            return not final and at_end and "```".startswith(head) and self._hold(out, pos)
        newline = buf.find("\n", pos)
        if newline == -1:
            if final or len(buf) - pos > MAX_FENCE_LINE:
                return False
            return self._hold(out, pos)
        info = fence_info(buf[pos:newline]) or ""
        if self._in_code:
            self._in_code = bool(info)  # a bare fence closes the code sample
            return False
        rest = buf[newline + 1 :].lstrip()
        maybe_call = info in CALL_FENCES and bool(self._tools)
        if maybe_call and not rest and not final:
            return self._hold(out, pos)  # wait for the first character of the block
        if not maybe_call or rest[:1] not in ("{", "["):
            self._in_code = True
            return False
        self._hold(out, pos)
        self._opener = buf[pos : newline + 1]
        self._search_from = len(self._opener) - 1
        self._state = "fence"
        return True

    def _tag_at(self, pos: int, final: bool) -> BlockKind | str | None:
        """What starts at ``pos``: a block kind, think, invented, partial (could still become a tag) or None."""
        tail = self._buf[pos : pos + _LONGEST_TAG + 1]
        kind = tag_kind(tail)
        if kind is not None:
            return kind
        partial = could_become_tag(tail)
        if self._think_tags and not self._seen_text and not self.calls and not self._buf[:pos].strip():
            if tail.startswith(THINK_OPEN):
                return "think"
            partial = partial or THINK_OPEN.startswith(tail)
        if self.calls:
            if tail.startswith(INVENTED_RESULT):
                return "invented"
            partial = partial or any(tag.startswith(tail) for tag in INVENTED_RESULT)
        if not final and len(tail) <= _LONGEST_TAG and partial:
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
            lines = text.rsplit("\n", 1)
            self._line_start = not lines[-1].strip() and (len(lines) > 1 or self._line_start)

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

    # ------------------------------------------------------------------ tagged blocks
    def _start_call(self, kind: BlockKind, opener: str, length: int) -> None:
        self._kind = kind
        self._opener = opener
        match = _ATTR_NAME.search(opener) if kind is TOOL_CALL else None
        self._name_hint = next((g for g in match.groups() if g), None) if match else None
        self._buf = self._buf[length:]
        self._state = "call"
        self._search_from = 0
        self._rejected_end = -1

    def _scan_call(self, out: list[ScanEvent], final: bool) -> None:
        buf = self._buf
        close = self._kind.close
        pos = buf.find(close, self._search_from)
        while pos != -1:
            if self._is_call_end(buf[:pos]):
                self._end_call(out, pos, pos + len(close))
                return
            if self._rejected_end < 0:
                self._rejected_end = pos
            pos = buf.find(close, pos + 1)
        self._search_from = max(0, len(buf) - len(close))
        if final and self._rejected_end >= 0:
            # Never closed outside a value: the first close tag was the real end after all.
            self._end_call(out, self._rejected_end, self._rejected_end + len(close))

    def _is_call_end(self, body: str) -> bool:
        """False when this close tag sits inside a JSON string or an unclosed ``<parameter>`` value."""
        stripped = body.lstrip()
        if stripped.startswith("<") or (self._kind.keep_opener and not stripped.startswith("{")):
            return xml_params_closed(stripped)
        return not _inside_json_string(stripped)

    def _end_call(self, out: list[ScanEvent], body_end: int, consumed: int, *, unclosed: bool = False) -> None:
        close = self._kind.close
        body = self._buf[:body_end]
        raw = self._opener + body + (close if not unclosed else "")
        self._buf = self._buf[consumed:]
        self._state = "text"
        self._line_start = False
        source = self._opener + body if self._kind.keep_opener else body
        decoded = decode_call_body(source, self._name_hint, self._tools, closed=not unclosed)
        known = decoded.ok and all(name in self._tools for name, _ in decoded.calls)
        if decoded.ok and (self._strict or known):
            for name, args in decoded.calls:
                self._add_call(out, name, args)
            return
        tried = self._tried_tool(decoded, raw)
        if decoded.ok and self._tools:  # leak mode, a well-formed call to a tool that does not exist
            self._add_error(out, "the tool does not exist", decoded.calls[0][0], raw)
            return
        if not self._strict and tried is None:
            self._emit_text(out, raw)  # leak mode: not an attempt at one of our tools
            return
        reason = decoded.error or "the call names a tool that does not exist"
        if unclosed:
            reason += f" (the call was not closed with {close})"
        self._add_error(out, reason, tried or (decoded.calls[0][0] if decoded.calls else "unknown"), raw)

    # ------------------------------------------------------------------ fenced and bare JSON
    def _scan_fence(self, out: list[ScanEvent]) -> None:
        match = _FENCE_CLOSE.search(self._buf, self._search_from)
        if match is None:
            self._search_from = max(len(self._opener) - 1, len(self._buf) - 8)
            return
        raw = self._buf[: match.end()]
        body = self._buf[len(self._opener) : match.start() + 1]
        self._buf = self._buf[match.end() :]
        self._end_candidate(out, raw, body, closed=True)

    def _scan_json(self, out: list[ScanEvent]) -> None:
        end = self._json.scan(self._buf)
        if end == -1:
            head = self._buf[:_JSON_PEEK]
            if len(self._buf) > _JSON_PEEK and named_tool(head, self._tools) is None and not misnamed_call(head):
                self._state = "text"  # a long object that names none of our tools: not a call, release it
                self._emit_text(out, self._buf[: self._json.pos])
                self._buf = self._buf[self._json.pos :]
                self._line_start = False
            return
        raw = self._buf[:end]
        self._buf = self._buf[end:]
        self._end_candidate(out, raw, raw, closed=True)

    def _end_candidate(self, out: list[ScanEvent], raw: str, body: str, *, closed: bool) -> None:
        """A fenced or bare JSON block: a call if it names a known tool, a correction if broken, else text."""
        self._state = "text"
        tried = named_tool(body, self._tools)
        if tried is None:
            wrong = misnamed_call(body)
            if wrong is None:
                self._emit_text(out, raw)
            else:  # {"name": "create hello.py", "arguments": {...}}: a call, to a tool that does not exist
                self._line_start = False
                self._add_error(out, "the tool does not exist", wrong, raw)
            return
        self._line_start = False
        decoded = decode_call_body(body, None, self._tools, closed=closed)
        if decoded.ok and all(name in self._tools for name, _ in decoded.calls):
            for name, args in decoded.calls:
                self._add_call(out, name, args)
            return
        reason = decoded.error or "the call could not be read"
        if not closed:
            reason += " (the reply ended inside it)"
        self._add_error(out, reason, tried, raw)

    # ------------------------------------------------------------------ calls
    def _tried_tool(self, decoded: Decoded, raw: str) -> str | None:
        """The known tool a block that failed to decode was meant to call, if it says."""
        function = _FUNCTION_NAME.search(raw)
        for name in (*(n for n, _ in decoded.calls), self._name_hint, function.group(1) if function else None):
            if name and known_name(name, self._tools) in self._tools:
                return known_name(name, self._tools)
        return named_tool(raw, self._tools)

    def _add_error(self, out: list[ScanEvent], reason: str, name: str, raw: str) -> None:
        message = correction(reason, name, self._tools, raw, native=not self._strict)
        self._add_call(out, name, error_arguments(message, raw))

    def _add_call(self, out: list[ScanEvent], name: str, arguments: dict[str, Any]) -> None:
        call = ToolCall(id=self._new_id(), name=name, arguments=arguments)
        self.calls.append(call)
        out.append(ToolCallEvent(call=call))


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
