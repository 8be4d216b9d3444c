"""The provider-neutral conversation model that every layer shares.

Messages serialise in the pi/omp session v3 shape (camelCase keys, ``toolResult`` role, ``toolCall``
blocks) so a session line is simply ``{"type": "message", ..., "message": msg.to_json()}``. Fields navtui does
not use (pi's ``textSignature``, Google's ``thoughtSignature``, omp's extras ...) are kept and written back:
a message read from another tool's session loses nothing when navtui copies it.
"""

from __future__ import annotations

import re
import time
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_serializer, field_validator
from pydantic.alias_generators import to_camel

StopReason = Literal["stop", "length", "tool_use", "error", "aborted"]
_STOP_ALIASES = {"toolUse": "tool_use", "end_turn": "stop", "max_tokens": "length", "tool_calls": "tool_use"}


# How deep a value inside a message may nest. pydantic writes 255 levels at most ("Maximum serialization depth
# exceeded"), json reads about 1,000: tool-call arguments nested 300 deep decoded, then could not be saved.
MAX_NESTING = 100


def now_ms() -> int:
    return int(time.time() * 1000)


def nests_deeper(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether decoded JSON (dicts, lists, scalars) nests more than ``limit`` containers deep; looked at level by
    level, never by recursion, so any depth is safe to ask about."""
    level = [value]
    for _ in range(limit):
        level = [
            child
            for item in level
            if isinstance(item, dict | list)
            for child in (item.values() if isinstance(item, dict) else item)
        ]
        if not level:
            return False
    return any(isinstance(item, dict | list) for item in level)


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class TextBlock(_Model):
    type: Literal["text"] = "text"
    text: str


class ThinkingBlock(_Model):
    type: Literal["thinking"] = "thinking"
    thinking: str
    # Anthropic's signature; the block must go back unchanged for the thinking round-trip.
    thinking_signature: str | None = None
    redacted: bool = False


class ImageBlock(_Model):
    type: Literal["image"] = "image"
    data: str  # base64
    mime_type: str = "image/png"


class ToolCall(_Model):
    """A model's request to run a tool; ``arguments`` are already decoded."""

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


AssistantBlock = Annotated[TextBlock | ThinkingBlock | ToolCall, Field(discriminator="type")]
UserBlock = Annotated[TextBlock | ImageBlock, Field(discriminator="type")]


class Cost(_Model):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(_Model):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int | None = None  # pi and omp write it (input + output + cache); navtui fills it when saving
    cost: Cost | None = None

    def __add__(self, other: Usage) -> Usage:
        cost = None
        if self.cost or other.cost:
            a, b = self.cost or Cost(), other.cost or Cost()
            cost = Cost(
                input=a.input + b.input,
                output=a.output + b.output,
                cache_read=a.cache_read + b.cache_read,
                cache_write=a.cache_write + b.cache_write,
                total=a.total + b.total,
            )
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
            total_tokens=self.total + other.total,
            cost=cost,
        )

    @property
    def total(self) -> int:
        """All tokens of the call, as pi's ``totalTokens`` counts them."""
        if self.total_tokens is not None:
            return self.total_tokens
        return self.input + self.output + self.cache_read + self.cache_write

    @property
    def context_tokens(self) -> int:
        """Tokens the prompt occupied (what counts against the window)."""
        return self.input + self.cache_read + self.cache_write


class UserMessage(_Model):
    role: Literal["user"] = "user"
    content: str | list[UserBlock]
    timestamp: int = Field(default_factory=now_ms)

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


# How the user-role messages navtui writes itself begin (a nudge: the check loop's failure, a questioned claim,
# a stop the stop watch asks past, a file asked for and missing). A protocol may treat them as navtui's, not the
# user's: agent/check.py, claims.py, asked_files.py, renames.py and unexpected_stop.py each write one
# (tests/agent/test_nudges.py holds them to this list).
NUDGE_OPENINGS = (
    "I ran the check `",
    "You did not change any file, and the check `",
    "Your answer says a file was changed, but nothing changed",
    "Your answer was cut off by the output limit.",
    "You stopped without completing the task.",
    "You said you would continue with a tool call or action but stopped.",
    "A file the request asks for does not exist yet",
    "The rename is not finished",
    "The move is not finished",
    "The request asks for a change to",
)


def ask_to_write(path: str, content: str = "the whole new content of the file") -> str:
    """How navtui asks for one file by name; ``asked_to_write`` reads it back (the edits protocol then takes a
    block without a path as that file, and may start the model's reply with the file's block)."""
    return f"Write the new {path} now: the line {path} on its own, then a fenced block with {content}"


_ASKED_TO_WRITE = re.compile(r"Write the new (\S+) now: the line ")


def asked_to_write(text: str) -> str | None:
    """The file the last ``ask_to_write`` in ``text`` asks for."""
    found = _ASKED_TO_WRITE.findall(text)
    return found[-1] if found else None


def is_nudge(text: str) -> bool:
    """Whether a user-role text is one navtui wrote to make the model go on."""
    return text.startswith(NUDGE_OPENINGS)


class AssistantMessage(_Model):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantBlock] = Field(default_factory=list)
    api: str | None = None  # the wire API, in pi's names ("anthropic-messages", "ollama-chat" ...)
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)

    @field_validator("stop_reason", mode="before")
    @classmethod
    def _normalise_stop(cls, value: Any) -> Any:
        return _STOP_ALIASES.get(value, value) if isinstance(value, str) else value  # (a list: not valid, no crash)

    @field_serializer("stop_reason")
    def _pi_stop(self, value: str) -> str:
        return "toolUse" if value == "tool_use" else value

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def thinking(self) -> str:
        return "".join(b.thinking for b in self.content if isinstance(b, ThinkingBlock))

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(_Model):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserBlock] = Field(default_factory=list)
    is_error: bool = False
    # Extra data for the UI (a diff, an exit code, a job id); never sent to the model.
    details: dict[str, Any] | None = None
    timestamp: int = Field(default_factory=now_ms)

    @classmethod
    def of(cls, call: ToolCall, text: str, *, is_error: bool = False) -> ToolResultMessage:
        return cls(tool_call_id=call.id, tool_name=call.name, content=[TextBlock(text=text)], is_error=is_error)

    @property
    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


Message = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


class ToolSpec(BaseModel):
    """What a provider needs to advertise one tool: its name, description and JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


_MESSAGE_ADAPTER: TypeAdapter[UserMessage | AssistantMessage | ToolResultMessage] = TypeAdapter(Message)


def message_from_json(data: dict[str, Any]) -> UserMessage | AssistantMessage | ToolResultMessage:
    """Parse one stored message (pi/omp shape)."""
    return _MESSAGE_ADAPTER.validate_python(data)
