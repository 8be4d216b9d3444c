"""The provider contract: turn (system, messages, tools) into a stream of ``ProviderEvent``s.

A provider never raises for an expected failure while streaming: it yields one ``ErrorEvent`` and stops,
so text already streamed is kept. ``model_info`` and ``list_models`` raise ``ProviderError``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from navtui.core.errors import ProviderError
from navtui.core.events import ModelLoading, Notice, ProviderEvent
from navtui.core.messages import AssistantMessage, ToolCall, ToolResultMessage, ToolSpec, UserMessage
from navtui.providers.retry import RetryPolicy

AnyMessage = UserMessage | AssistantMessage | ToolResultMessage

# A tool call whose arguments could not be decoded carries this key (and the raw text under
# ``RAW_CALL_KEY``) instead of arguments; the agent answers it with an error result the model can fix.
PARSE_ERROR_KEY = "__parse_error__"
RAW_CALL_KEY = "__raw__"


def parse_error(call: ToolCall) -> str | None:
    """The decode error of a malformed tool call, or None for a well-formed one."""
    error = call.arguments.get(PARSE_ERROR_KEY)
    return str(error) if error is not None else None


# Request keys a provider owns: a per-model setting never replaces them.
RESERVED_FIELDS = frozenset({"model", "messages", "stream", "tools", "system"})


def request_fields(table: dict[str, dict[str, Any]], model: str) -> dict[str, Any]:
    """The extra request fields for ``model``: every matching glob in ``table``, later entries winning."""
    from fnmatch import fnmatchcase

    fields: dict[str, Any] = {}
    for pattern, values in table.items():
        if fnmatchcase(model.lower(), pattern.lower()):
            fields.update({k: v for k, v in values.items() if k not in RESERVED_FIELDS})
    return fields


class ProviderNotice(Notice):
    """Something the user should know that is not an error (a protocol switch, a retry); the agent passes it on."""


ProviderStream = AsyncGenerator[ProviderEvent | ProviderNotice | ModelLoading, None]
"""What ``Provider.stream`` returns: an async generator (so ``contextlib.aclosing`` closes its connection)."""


@dataclass(frozen=True)
class ListedModel:
    """One model as ``/models`` shows it: what the provider can say of it (Ollama says the most)."""

    name: str
    size: int | None = None  # bytes on disk
    parameter_size: str | None = None  # "7.6B"
    quantization: str | None = None  # "Q4_K_M"
    loaded: bool = False  # in memory now
    memory: int | None = None  # bytes in memory, when loaded
    vram: int | None = None  # of which on the GPU
    context: int | None = None  # the context length it was loaded with


@dataclass(frozen=True)
class PullProgress:
    """One step of a model download (a line of Ollama's ``/api/pull``): a phase ("pulling manifest",
    "verifying sha256 digest" …) and, while a layer downloads, its byte counts."""

    status: str
    digest: str | None = None
    completed: int | None = None
    total: int | None = None

    @property
    def fraction(self) -> float | None:
        if self.total and self.completed is not None:
            return min(1.0, self.completed / self.total)
        return None

    @property
    def done(self) -> bool:
        return self.status == "success"


@dataclass
class ModelInfo:
    name: str
    provider: str
    context_window: int | None = None
    supports_tools: bool = True
    supports_thinking: bool = False
    supports_vision: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FileInPlay:
    """A file shown whole to a protocol that edits files in the prompt (``edits``): its path and current text."""

    path: str  # as the model should write it: relative to the workspace
    text: str | None  # None: not shown (``note`` says why)
    note: str = ""
    hide: bool = False  # its text is kept from the model everywhere (an attachment of it too): the request deletes it


@dataclass
class ChatRequest:
    system: str
    messages: Sequence[AnyMessage]
    tools: Sequence[ToolSpec] = ()
    max_tokens: int | None = None
    temperature: float | None = None
    think: bool | str | None = None
    compact: bool = False  # a small window: protocol instructions without prose
    response_schema: dict[str, Any] | None = None  # constrained decoding: the reply must match this JSON schema
    files: Sequence[FileInPlay] = ()  # the files in play, for a provider that ``wants_files`` (the edits protocol)


class Provider:
    """Base class; subclasses implement ``stream`` (an async generator) and usually ``model_info``."""

    name: str = "provider"
    wants_files: bool = False  # the request should carry the files in play, whole (the edits protocol)
    offers_tools: bool = True  # tool specs go to the model (natively or as prompt text); False: they never do

    def __init__(self, model: str, base_url: str | None = None) -> None:
        self.model = model
        self.base_url = base_url
        self.protocol_reason: str | None = None  # why auto chose this model's tool protocol (families.py)
        # What is retried and how (providers/retry.py); the agent follows it too for answers that broke off.
        self.retry = RetryPolicy()

    def stream(self, request: ChatRequest) -> ProviderStream:
        raise NotImplementedError

    async def model_info(self) -> ModelInfo:
        return ModelInfo(name=self.model, provider=self.name)

    async def list_models(self) -> list[str]:
        return [self.model]

    async def describe_models(self) -> list[ListedModel]:
        """The models to pick from, with whatever the server says about each."""
        return [ListedModel(name) for name in await self.list_models()]

    can_pull = False  # the server downloads models on request (Ollama)

    @property
    def continues_reply(self) -> bool:
        """A trailing assistant message is continued, not answered (Ollama, llama.cpp's server): a reply's start
        can be given (``providers/edits.py``)."""
        return False

    def pull(self, name: str) -> AsyncIterator[PullProgress]:
        """Download ``name`` with progress (``PullProgress``); only where ``can_pull``."""
        raise ProviderError(
            f"{self.name} serves only the models it has; navtui can download models from Ollama",
            kind="unsupported",
        )

    @property
    def counts_tokens(self) -> bool:
        """Whether ``count_tokens`` can answer (the server has a tokenizer endpoint): else the text need not be
        built."""
        return False

    async def count_tokens(self, text: str) -> int | None:
        """``text``'s length in the model's own tokens when the server can count them, else None."""
        return None

    async def aclose(self) -> None:
        """Release connections."""

    @property
    def label(self) -> str:
        return f"{self.name}:{self.model}"
