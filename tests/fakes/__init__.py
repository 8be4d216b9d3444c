"""Loopback fake LLM provider servers (Ollama NDJSON, OpenAI-compatible SSE, Anthropic SSE) for tests and benchmarks."""

from .script import (
    Done,
    Drop,
    Garbage,
    HttpError,
    RawBytes,
    RawLine,
    RawResponse,
    Reset,
    Stall,
    Step,
    Text,
    Thinking,
    ToolCall,
    Usage,
)
from .server import FakeModel, FakeServer
from .wire_http import RecordedRequest

__all__ = [
    "Done",
    "Drop",
    "FakeModel",
    "FakeServer",
    "Garbage",
    "HttpError",
    "RawBytes",
    "RawLine",
    "RawResponse",
    "RecordedRequest",
    "Reset",
    "Stall",
    "Step",
    "Text",
    "Thinking",
    "ToolCall",
    "Usage",
]
