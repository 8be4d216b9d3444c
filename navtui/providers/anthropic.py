"""Anthropic Messages API through ``anthropic.AsyncAnthropic`` (raw stream events, our own retry policy).

The SDK's retries are off (``max_retries=0``): navtui retries 429/529/overloaded itself, honouring
``retry-after``, never a spend-limit or credit 429, and only before any output reached the user.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import warnings
from collections.abc import AsyncGenerator
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

from navtui.config.endpoints import detect_base_url
from navtui.config.settings import ProviderSettings
from navtui.core.errors import ProviderError
from navtui.core.events import ProviderEvent, StopEvent, TextDelta, ThinkingDelta, ToolCallEvent, UsageEvent
from navtui.core.messages import StopReason, ToolCall, Usage
from navtui.core.text import for_wire
from navtui.providers.anthropic_convert import build_params
from navtui.providers.base import ChatRequest, ModelInfo, Provider, ProviderNotice
from navtui.providers.errorbody import error_status, readable
from navtui.providers.pricing import with_cost
from navtui.providers.retry import NOT_TRANSIENT, RetryPolicy, is_quota_error, retryable_status
from navtui.providers.streaming import RetryableError, next_within, retry_after_seconds, with_retries
from navtui.providers.toolargs import decode_arguments

DEFAULT_CONTEXT = 200_000
_STOP: dict[str, StopReason] = {
    "tool_use": "tool_use",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}
_RETRY_TYPES = ("overloaded_error", "rate_limit_error", "api_error", "timeout_error")
_INFO_CACHE: dict[tuple[str, str], ModelInfo] = {}


def api_root(url: str) -> str:
    """The URL the SDK adds ``/v1/messages`` to: a trailing ``/v1`` (or ``/v1/messages``) given with it is dropped."""
    return url.strip().rstrip("/").removesuffix("/v1/messages").removesuffix("/v1")


def api_key_from_env() -> str | None:
    return os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("NAVTUI_API_KEY") or None


class AnthropicProvider(Provider):
    name = "anthropic"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        settings: ProviderSettings | None = None,
        api_key: str | None = None,
    ) -> None:
        super().__init__(model, api_root(base_url or detect_base_url("anthropic")))
        self.settings = settings or ProviderSettings()
        self.retry = RetryPolicy.from_settings(self.settings)
        # A missing key is reported when the provider is used, so the app can still open and say what to do.
        self._key = api_key or api_key_from_env()
        self._client: Any = None
        self._warned = False

    def _sdk(self) -> Any:
        # ANTHROPIC_AUTH_TOKEN (a gateway's bearer token) the SDK reads and sends by itself.
        if not self._key and not os.environ.get("ANTHROPIC_AUTH_TOKEN"):
            raise ProviderError(
                "No Anthropic API key found",
                kind="auth",
                hint="export ANTHROPIC_API_KEY=... (or NAVTUI_API_KEY; ANTHROPIC_AUTH_TOKEN for a gateway), "
                "or choose another model",
            )
        if self._client is None:
            import anthropic

            # The SDK warns on stderr, which would scribble over the TUI; the notice below says it instead.
            warnings.filterwarnings("ignore", message=r"The model '.*' is deprecated", category=DeprecationWarning)
            warnings.filterwarnings("ignore", message=r"Using Claude with .*thinking", category=DeprecationWarning)

            self._client = anthropic.AsyncAnthropic(
                api_key=self._key, base_url=self.base_url, max_retries=0, timeout=self.settings.request_timeout
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    # ------------------------------------------------------------------ catalogue
    async def model_info(self) -> ModelInfo:
        self._sdk()  # no key: say so now rather than when the first prompt is sent
        key = (self.base_url or "", self.model)
        if key not in _INFO_CACHE:
            window = await self._listed_window()
            extra: dict[str, Any] = {"window_source": "/v1/models" if window else None}
            if window is None and self.settings.context_window is not None:
                window, extra["window_source"] = self.settings.context_window, "providers.context_window"
            if window is None and not self._official:
                window, extra = await self._local_window()
            _INFO_CACHE[key] = ModelInfo(
                name=self.model,
                provider=self.name,
                context_window=window or DEFAULT_CONTEXT,
                supports_tools=True,
                supports_thinking=not self.model.startswith(("claude-3-5", "claude-3-haiku", "claude-3-opus")),
                supports_vision=True,
                extra=extra,
            )
        return _INFO_CACHE[key]

    @property
    def _official(self) -> bool:
        return (urlsplit(self.base_url or "").hostname or "").endswith("anthropic.com")

    async def _local_window(self) -> tuple[int, dict[str, Any]]:
        """The window of a model an Anthropic-compatible server does not list (llama.cpp's, Ollama's and LM Studio's
        ``/v1/messages``): what the server's own endpoints say, else Claude's 200,000, said as assumed."""
        import httpx

        from navtui.providers.openai_info import probe_window
        from navtui.providers.tls import client_tls

        async with httpx.AsyncClient(verify=client_tls(), timeout=httpx.Timeout(None, connect=5.0)) as http:
            found = await probe_window(http, self.base_url or "", self.model)
        extra: dict[str, Any] = {"window_source": found.source, "server": found.server}
        if found.note:
            extra["window_note"] = found.note.replace("OpenAI-compatible", "Anthropic-compatible")
        if found.window is not None:
            return found.window, extra
        extra["window_note"] = (
            f"{self.base_url} does not say the context window of {self.model} (no /v1/models entry for it): "
            f"assuming {DEFAULT_CONTEXT:,} tokens, Claude's. Set providers.context_window if the model's is smaller."
        )
        return DEFAULT_CONTEXT, extra

    async def _listed_window(self) -> int | None:
        """``max_input_tokens`` from ``/v1/models`` when the API reports it; None when it cannot be had. A refused
        key raises, so the start-up check says so."""
        import anthropic

        try:
            async with asyncio.timeout(10):
                async for model in self._sdk().models.list(limit=100):
                    if model.id == self.model:
                        value = getattr(model, "max_input_tokens", None)
                        return int(value) if value else None
        except (anthropic.AuthenticationError, anthropic.PermissionDeniedError) as exc:
            raise _status_error(exc, self.model) from None  # a key refused: said now, not at the first prompt
        except (anthropic.APIError, TimeoutError):
            return None
        return None

    async def list_models(self) -> list[str]:
        import anthropic

        try:
            return [model.id async for model in self._sdk().models.list(limit=100)]
        except anthropic.APIStatusError as exc:
            raise _status_error(exc, self.model) from None
        except anthropic.APIConnectionError as exc:
            raise _connection_error(self.base_url, exc) from None

    # ------------------------------------------------------------------ streaming
    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent | ProviderNotice, None]:
        if not self._warned:
            self._warned = True
            notice = _deprecation_notice(self.model)
            if notice:
                yield ProviderNotice(text=notice, level="warning")
        attempt = lambda: self._attempt(request)  # noqa: E731
        async with contextlib.aclosing(with_retries(attempt, policy=self.retry)) as events:
            async for event in events:
                yield event

    async def _attempt(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        import anthropic
        import httpx2

        params = for_wire(build_params(request, self.model, self.settings))  # no lone surrogate goes out
        try:
            async with asyncio.timeout(self.settings.request_timeout):
                stream = await self._sdk().messages.create(**params)
        except TimeoutError:
            raise ProviderError(
                f"Anthropic did not answer within {self.settings.request_timeout:.0f} s", kind="timeout", retryable=True
            ) from None
        except anthropic.APIStatusError as exc:
            raise _status_error(exc, self.model) from None
        except anthropic.APIConnectionError as exc:
            raise _connection_error(self.base_url, exc) from None
        await _check_is_stream(stream, self.model)
        state = _StreamState()
        try:
            events = stream.__aiter__()
            timeout = self.settings.request_timeout
            while not state.finished:
                try:
                    event = await next_within(events, timeout, self._stall_error)
                except StopAsyncIteration:
                    break
                timeout = self.settings.stall_timeout
                for out in state.handle(event):
                    yield out
        except anthropic.APIStatusError as exc:  # an `event: error` inside a 200 stream
            raise _status_error(exc, self.model) from None
        except (anthropic.APIConnectionError, httpx2.TransportError) as exc:
            if state.stop_reason is None:
                raise ProviderError(
                    f"The connection to Anthropic dropped mid-response ({type(exc).__name__})",
                    kind="stream",
                    retryable=True,
                ) from None
            # The answer was complete (message_delta gave its stop reason); only message_stop was lost.
        except ValueError as exc:  # a data line that is not JSON
            raise ProviderError(f"Anthropic sent an unreadable event: {exc}", kind="stream") from None
        finally:
            with contextlib.suppress(Exception):
                await stream.close()
        if not state.finished and state.stop_reason is None:  # a stop reason alone ends the answer, as in OpenAI's
            raise ProviderError("Anthropic's stream ended before message_stop", kind="stream", retryable=True)
        if state.stop_reason == "refusal":  # billed up to here; the calls of a refused reply never run
            yield UsageEvent(usage=with_cost(self.model, state.usage))
            raise _refusal(state.refusal)
        for call in state.calls:
            yield ToolCallEvent(call=call)
        yield UsageEvent(usage=with_cost(self.model, state.usage))
        reason = _STOP.get(state.stop_reason or "", "stop")
        yield StopEvent(reason="tool_use" if state.calls else reason)

    def _stall_error(self) -> ProviderError:
        return ProviderError(
            f"Anthropic sent nothing for {self.settings.stall_timeout:g} s mid-response",
            kind="timeout",
            retryable=True,
            hint="raise providers.stall_timeout if this keeps happening",
        )


class _StreamState:
    """Raw stream events in, provider events out; tool calls and usage kept for the end."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.stop_reason: str | None = None
        self.refusal: str | None = None  # stop_details.explanation of a refusal
        self.finished = False
        self.calls: list[ToolCall] = []
        self._tools: dict[int, dict[str, str]] = {}

    def handle(self, event: Any) -> list[ProviderEvent]:
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._take_usage(getattr(event.message, "usage", None))
        elif kind == "content_block_start":
            return self._block_start(event.index, event.content_block)
        elif kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        elif kind == "content_block_stop":
            tool = self._tools.pop(event.index, None)
            if tool is not None:
                arguments = decode_arguments(tool["json"])
                self.calls.append(ToolCall(id=tool["id"], name=tool["name"], arguments=arguments))
        elif kind == "message_delta":
            self.stop_reason = getattr(event.delta, "stop_reason", None) or self.stop_reason
            details = getattr(event.delta, "stop_details", None)
            self.refusal = getattr(details, "explanation", None) or self.refusal
            self._take_usage(getattr(event, "usage", None))
        elif kind == "message_stop":
            self.finished = True
        return []

    def _block_start(self, index: int, block: Any) -> list[ProviderEvent]:
        kind = getattr(block, "type", None)
        if kind == "text" and block.text:
            return [TextDelta(text=block.text)]
        if kind == "thinking" and block.thinking:
            return [ThinkingDelta(text=block.thinking)]
        if kind == "redacted_thinking":
            # The opaque data travels as the signature; it closes a block of its own.
            return [ThinkingDelta(text="", signature=block.data, redacted=True)]
        if kind == "tool_use":
            self._tools[index] = {"id": block.id, "name": block.name, "json": ""}
        return []

    def _delta(self, index: int, delta: Any) -> list[ProviderEvent]:
        kind = getattr(delta, "type", None)
        if kind == "text_delta":
            return [TextDelta(text=delta.text)] if delta.text else []
        if kind == "thinking_delta":
            return [ThinkingDelta(text=delta.thinking)] if delta.thinking else []
        if kind == "signature_delta":
            return [ThinkingDelta(text="", signature=delta.signature)]
        if kind == "input_json_delta" and index in self._tools:
            self._tools[index]["json"] += delta.partial_json
        return []

    def _take_usage(self, usage: Any) -> None:
        """Counts on message_delta are cumulative totals: they replace, never add."""
        if usage is None:
            return
        fields = {
            "input": getattr(usage, "input_tokens", None),
            "output": getattr(usage, "output_tokens", None),
            "cache_read": getattr(usage, "cache_read_input_tokens", None),
            "cache_write": getattr(usage, "cache_creation_input_tokens", None),
        }
        self.usage = self.usage.model_copy(update={k: int(v) for k, v in fields.items() if v is not None})


def _status_error(exc: Any, model: str) -> ProviderError:
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else {}
    error_type = error.get("type") if isinstance(error, dict) else None
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    message = (error.get("message") if isinstance(error, dict) else None) or (
        readable(body, headers.get("content-type") if headers is not None else None)  # a proxy's page: its title
        if isinstance(body, str)
        else getattr(exc, "message", str(exc))
    )
    message = str(message).strip()[:500]  # megabytes of junk are not a message
    lowered = f"{message} {str(body)[:2000]}".lower()
    if is_quota_error(lowered):
        return ProviderError(
            f"Anthropic refused the request: {message}",
            kind="quota",
            status=status,
            hint="add credits or raise the spend limit in the Anthropic console",
        )
    if status in (401, 403):  # 403 permission_error: a valid key without access to this model or workspace
        names = ("ANTHROPIC_API_KEY", "NAVTUI_API_KEY", "ANTHROPIC_AUTH_TOKEN")
        variable = next((name for name in names if os.environ.get(name)), names[0])
        what = "rejected the API key" if status == 401 else "refused the API key (HTTP 403)"
        return ProviderError(f"Anthropic {what}: {message}", kind="auth", status=status,
                             hint=f"check {variable}")  # fmt: skip
    if status == 404:
        return ProviderError(f"Anthropic does not know model '{model}': {message}", kind="not_found", status=404,
                             hint="check the model name, or choose another model")  # fmt: skip
    if status == 413 or "prompt is too long" in lowered or "exceed context limit" in lowered:
        return ProviderError(f"The conversation is too long for {model}: {message}", kind="overflow", status=status)
    if retryable_status(status) or (error_type in _RETRY_TYPES and status not in NOT_TRANSIENT):
        label = "overloaded" if status == 529 or error_type == "overloaded_error" else f"HTTP {status}"
        return RetryableError(
            f"Anthropic is {label}: {message}" if label == "overloaded" else f"Anthropic {label}: {message}",
            status=status,
            retry_after=retry_after_seconds(headers),
        )
    if status == 200:
        return ProviderError(f"Anthropic reported an error mid-response: {message}", kind="stream", status=status)
    return ProviderError(f"Anthropic returned HTTP {status}: {message}", status=status)


async def _check_is_stream(stream: Any, model: str) -> None:
    """A 200 that is no event stream (a gateway's JSON error object, a proxy's page) is what it says, not a stream
    that ended early to be asked again."""
    response = getattr(stream, "response", None)
    if response is None or "text/event-stream" in (content_type := response.headers.get("content-type", "")):
        return
    try:
        text = (await response.aread()).decode("utf-8", "replace")
    finally:
        with contextlib.suppress(Exception):
            await stream.close()
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        status = error_status(error) or 500
        said = SimpleNamespace(status_code=status, body=body, response=response, message=str(error))
        failure = _status_error(said, model)
        failure.message = failure.message.replace(f"HTTP {status}", "HTTP 200 with an error", 1)
        raise failure
    raise ProviderError(f"Anthropic answered with no event stream: {readable(text, content_type)}", kind="stream")


def _refusal(explanation: str | None) -> ProviderError:
    """stop_reason "refusal": Claude's classifiers ended the reply. The API says nothing more (``stop_details`` may
    explain), and Claude goes on refusing while the turn that was refused stays in the conversation."""
    because = f": {explanation}" if explanation else ""
    return ProviderError(
        f"Claude declined to go on with this request{because}",
        kind="refusal",
        hint="Claude refuses again while this request is in the conversation: press Esc twice to go back to "
        "before it and rephrase, or start afresh with /new",
    )


def _deprecation_notice(model: str) -> str | None:
    try:
        from anthropic.resources.messages.messages import DEPRECATED_MODELS
    except ImportError:  # the table moved in another SDK version: no notice rather than a crash
        return None
    date = DEPRECATED_MODELS.get(model)
    return f"{model} is deprecated and reaches end-of-life on {date}; consider a newer model" if date else None


def _connection_error(url: str | None, exc: Exception) -> ProviderError:
    return RetryableError(f"Cannot reach Anthropic at {url} ({type(exc).__name__})", kind="connection")
