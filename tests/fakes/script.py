"""Scripted reply steps for the fake provider servers.

A reply is a sequence of steps. Content steps (`Text`, `Thinking`, `ToolCall`, `Garbage`, `RawLine`, `RawBytes`)
become wire frames in order; `Usage` and `Done` only shape the frames each format puts at the start or end;
`HttpError`, `Drop` and `Stall` control the connection. Every sending step accepts `delay=` (seconds slept before it)
and `until=` (a `threading.Event` the test sets when the step may go: what a test does meanwhile happens while
the reply is still open, however slow the machine).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Step:
    """Base of every step; `delay` is slept before the step is sent, and it waits for `until` (30 s at most)."""

    delay: float = 0.0
    until: threading.Event | None = None


@dataclass(frozen=True)
class Text(Step):
    """Assistant text delta."""

    text: str


@dataclass(frozen=True)
class Thinking(Step):
    """Reasoning delta; `signature` overrides the Anthropic signature_delta of the block it ends."""

    text: str
    signature: str | None = None


@dataclass(frozen=True)
class ToolCall(Step):
    """One complete tool call. `raw_arguments` sends that exact (possibly broken) string instead of `arguments`."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None
    raw_arguments: str | None = None
    pieces: int = 3

    def arguments_json(self) -> str:
        return self.raw_arguments if self.raw_arguments is not None else json.dumps(self.arguments)

    def fragments(self) -> list[str]:
        """The arguments string cut into `pieces` consecutive fragments (for OpenAI/Anthropic deltas)."""
        text = self.arguments_json()
        n = max(1, min(self.pieces, len(text)))
        size = -(-len(text) // n) if text else 0
        return [text[i : i + size] for i in range(0, len(text), size)] if text else []


@dataclass(frozen=True)
class Usage(Step):
    """Token counts, placed where each format puts usage."""

    input: int
    output: int
    cache_read: int = 0
    cache_write: int = 0


@dataclass(frozen=True)
class Done(Step):
    """Explicit stop reason: "stop", "length", or a provider-specific value passed through. For Anthropic's
    "refusal", `explanation` and `category` fill the `stop_details` its message_delta carries."""

    reason: str = "stop"
    explanation: str | None = None
    category: str | None = None


@dataclass(frozen=True)
class HttpError(Step):
    """An error. First step: that HTTP status with the provider's error body. Later: an in-stream error frame.

    `retry_after` defaults to 0 for 429/503/529 (plus `retry-after-ms: 1` so the SDKs' own retries are fast);
    `retry_headers=False` sends none, so the client's own backoff schedule applies.
    """

    status: int
    message: str = "error"
    error_type: str | None = None
    retry_after: float | None = None
    retry_headers: bool = True


@dataclass(frozen=True)
class Drop(Step):
    """Close the socket now, without the stream terminator."""


@dataclass(frozen=True)
class Reset(Step):
    """Reset the connection now (RST): what was already sent is delivered first, the rest never comes."""


@dataclass(frozen=True)
class RawResponse(Step):
    """A whole HTTP response exactly as given, instead of the wire format's (garbage pages, odd statuses).

    With `parts`, the body goes out chunked, one HTTP chunk per part, each flushed on its own (and `gap`
    seconds apart); otherwise `body` is sent with a Content-Length. Only as the first step of a reply.
    """

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    parts: tuple[bytes, ...] | None = None
    gap: float = 0.0


@dataclass(frozen=True)
class Stall(Step):
    """Stay silent for `seconds`, then close the socket (or carry on with the next steps if `resume`)."""

    seconds: float
    resume: bool = False


@dataclass(frozen=True)
class Garbage(Step):
    """A line (NDJSON) or SSE `data:` event that is not valid JSON."""

    text: str = "not json at all"


@dataclass(frozen=True)
class RawLine(Step):
    """Exactly this NDJSON line, or this SSE `data:` payload (with an `event:` line if `event` is given)."""

    line: str
    event: str | None = None


@dataclass(frozen=True)
class RawBytes(Step):
    """Exactly these bytes into the body (e.g. an SSE comment `b": ping\\n\\n"`)."""

    data: bytes


CONTENT_STEPS = (Text, Thinking, ToolCall, Garbage, RawLine, RawBytes)
DEFAULT_REPLY: tuple[Step, ...] = (Text("ok"),)


def find_usage(steps: tuple[Step, ...]) -> Usage | None:
    """The last scripted `Usage`, if any."""
    found = [s for s in steps if isinstance(s, Usage)]
    return found[-1] if found else None


def stop_reason(steps: tuple[Step, ...]) -> str:
    """The generic stop reason: an explicit `Done`, else "tool_use" when calls were sent, else "stop"."""
    done = [s for s in steps if isinstance(s, Done)]
    if done:
        return done[-1].reason
    return "tool_use" if any(isinstance(s, ToolCall) for s in steps) else "stop"


def estimate_usage(steps: tuple[Step, ...], request: Any) -> Usage:
    """Scripted usage, else a deterministic estimate (about 4 characters a token)."""
    scripted = find_usage(steps)
    if scripted is not None:
        return scripted
    prompt = request if isinstance(request, dict) else {}
    prompt_chars = len(json.dumps([prompt.get("system"), prompt.get("messages"), prompt.get("tools")]))
    out_chars = 0
    for s in steps:
        if isinstance(s, Text | Thinking):
            out_chars += len(s.text)
        elif isinstance(s, ToolCall):
            out_chars += len(s.name) + len(s.arguments_json())
    return Usage(input=max(1, prompt_chars // 4), output=max(1, out_chars // 4))


def split_text(text: str, chunk_chars: int) -> list[str]:
    size = max(1, chunk_chars)
    return [text[i : i + size] for i in range(0, len(text), size)]
