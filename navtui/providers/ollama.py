"""Native Ollama provider: ``/api/chat`` NDJSON over httpx.

navtui speaks Ollama's HTTP API itself rather than through the ``ollama`` package: the package's public
``chat(stream=True)`` validates requests and replies with pydantic models that drop what navtui needs
(``anyOf``/``default`` in tool parameters, tool-call ids, ``tool_call_id`` on tool results; a missing
``model_info`` fails validation) and costs more CPU per chunk than reading the JSON (``bench/bench_ollama_client.py``,
docs/providers.md). The connection is set up the way the package does it: ``OLLAMA_HOST`` rules for the host,
``OLLAMA_API_KEY`` as a bearer token. ``options.num_ctx`` is always sent: without it Ollama silently truncates
history at its default window. Models without the ``tools`` capability go through the text tool protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any

from navtui.config.endpoints import detect_base_url, normalise_ollama_host
from navtui.config.settings import ProviderSettings
from navtui.core.errors import ProviderError
from navtui.core.events import (
    ErrorEvent,
    ModelLoading,
    ProviderEvent,
    StopEvent,
    ThinkingDelta,
    ToolCallEvent,
    UsageEvent,
)
from navtui.core.messages import StopReason, ToolCall, Usage
from navtui.core.text import for_wire
from navtui.providers.base import (
    ChatRequest,
    ListedModel,
    ModelInfo,
    Provider,
    ProviderNotice,
    ProviderStream,
    PullProgress,
    request_fields,
)
from navtui.providers.errorbody import is_html, readable
from navtui.providers.ollama_convert import to_ollama_messages, to_ollama_tools
from navtui.providers.ollama_info import (
    ModelFacts,
    clear_model_cache,
    connection_error,
    fetch_facts,
    openai_path_error,
    pull_hint,
)
from navtui.providers.ollama_models import all_models, loaded_models, pull, same_model
from navtui.providers.retry import RetryPolicy, is_model_output_error, retryable_status
from navtui.providers.streaming import (
    RetryableError,
    error_event,
    ndjson_lines,
    nested_too_deep,
    next_within,
    retry_after_seconds,
    with_retries,
)
from navtui.providers.textproto import ToolCallScanner
from navtui.providers.toolargs import call_ids, decode_arguments

if TYPE_CHECKING:
    import httpx

NO_TOOLS = "does not support tools"
# Per-model request fields that Ollama reads from "options" rather than from the request's top level.
OLLAMA_OPTIONS = frozenset(
    {"temperature", "top_p", "top_k", "min_p", "typical_p", "stop", "seed", "num_predict", "repeat_penalty",
     "repeat_last_n", "presence_penalty", "frequency_penalty", "mirostat", "num_ctx"}
)  # fmt: skip
NO_THINKING = "does not support thinking"
NO_MEMORY = "requires more system memory"  # HTTP 500 from Ollama's scheduler: the model does not fit


class OllamaProvider(Provider):
    name = "ollama"

    def __init__(self, model: str, base_url: str | None = None, settings: ProviderSettings | None = None) -> None:
        super().__init__(model, (base_url or detect_base_url("ollama")).rstrip("/"))
        self.settings = settings or ProviderSettings()
        self.retry = RetryPolicy.from_settings(self.settings)
        self.new_call_id = call_ids()
        self._client: httpx.AsyncClient | None = None
        self._tools_rejected = False  # a 400 "does not support tools" switched this model to the text protocol
        self._think_rejected = False
        self._announced_text = False

    # ------------------------------------------------------------------ connection
    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            from navtui import __version__
            from navtui.providers.tls import client_tls

            headers = {"Accept": "application/json", "User-Agent": f"navtui/{__version__}"}
            api_key = os.environ.get("OLLAMA_API_KEY")
            if api_key:  # Ollama's hosted API and authenticating proxies
                headers["Authorization"] = f"Bearer {api_key}"
            self._client = httpx.AsyncClient(
                base_url=normalise_ollama_host(self.base_url or ""),
                headers=headers,
                follow_redirects=True,
                timeout=httpx.Timeout(None, connect=10.0),  # read pacing is ours: request/stall timeouts
                verify=client_tls(),  # certificates loaded on the first TLS connection (a local server makes none)
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # ------------------------------------------------------------------ model facts
    async def _facts(self) -> ModelFacts:
        return await fetch_facts(self._http(), self.base_url or "", self.model, self.settings)

    async def model_info(self) -> ModelInfo:
        facts = await self._facts()
        info = facts.info
        if self._tools_rejected:
            info.extra["tool_protocol"] = "text"
        return info

    async def list_models(self) -> list[str]:
        import httpx

        try:
            response = await self._http().get("/api/tags")
        except httpx.HTTPError as exc:
            raise connection_error(self.base_url or "", exc) from None
        if response.status_code >= 400:
            wrong_path = openai_path_error(self.base_url or "") if response.status_code == 404 else None
            raise wrong_path or ProviderError(
                f"Ollama returned HTTP {response.status_code} for /api/tags", status=response.status_code
            )
        models = response.json().get("models") or []
        return sorted(str(m.get("name") or m.get("model")) for m in models if m.get("name") or m.get("model"))

    can_pull = True

    @property
    def continues_reply(self) -> bool:
        return True

    async def describe_models(self) -> list[ListedModel]:
        """Installed models with what is loaded in memory (``/models``)."""
        import httpx

        try:
            return await all_models(self._http())
        except httpx.HTTPError as exc:
            raise connection_error(self.base_url or "", exc) from None

    async def pull(self, name: str) -> AsyncIterator[PullProgress]:
        """Download ``name`` (``/models pull``), with Ollama's progress."""
        import httpx

        try:
            async for progress in pull(self._http(), name):
                yield progress
        except httpx.HTTPError as exc:
            raise connection_error(self.base_url or "", exc) from None
        clear_model_cache()  # a model that was missing is there now

    async def _load_if_cold(self, facts: ModelFacts) -> AsyncIterator[ModelLoading]:
        """When Ollama does not hold the model in memory, load it first (an empty chat), and say so: loading
        takes seconds to minutes with nothing on the wire, which would look like a hung request."""
        import httpx

        try:
            running = await loaded_models(self._http())
        except (ProviderError, httpx.HTTPError):
            return  # an older or unusual server: the chat request loads the model anyway
        if any(same_model(model.name, self.model) for model in running):
            return
        yield ModelLoading(model=self.model)
        started = time.monotonic()
        body: dict[str, Any] = {"model": self.model, "messages": [], "stream": False}
        body["options"] = {"num_ctx": facts.num_ctx}  # loaded as the chat will use it, or Ollama loads it twice
        if self.settings.keep_alive not in (None, 0):  # 0 would unload it again before the chat
            body["keep_alive"] = self.settings.keep_alive
        timeout = self.settings.request_timeout
        try:
            async with asyncio.timeout(timeout):
                response = await self._http().post("/api/chat", json=body)
        except TimeoutError:
            raise ProviderError(
                f"Ollama did not finish loading {self.model} within {timeout:.0f} s",
                kind="timeout",
                hint="a large model on a slow disk takes a while the first time; raise providers.request_timeout",
            ) from None
        except httpx.HTTPError as exc:
            raise connection_error(self.base_url or "", exc) from None
        if response.status_code >= 400:
            raise self._status_error(response, facts.num_ctx)
        yield ModelLoading(model=self.model, done=True, seconds=round(time.monotonic() - started, 1))

    # ------------------------------------------------------------------ streaming
    async def stream(self, request: ChatRequest) -> ProviderStream:
        try:
            facts = await self._facts()
        except ProviderError as exc:
            yield error_event(exc)
            return
        try:
            async for loading in self._load_if_cold(facts):
                yield loading
        except ProviderError as exc:
            yield error_event(exc)
            return
        if request.tools and self._use_text_protocol(facts):
            if not self._announced_text and not self._tools_rejected and self.settings.tool_protocol == "auto":
                self._announced_text = True
                yield ProviderNotice(text=f"{self.model} has no native tool calling; using the text tool protocol")
            from navtui.providers.textprovider import TextProtocolProvider  # a model without native tool calls

            async with contextlib.aclosing(TextProtocolProvider(self).stream(request)) as events:
                async for event in events:
                    yield event
            return
        rejected: str | None = None
        attempt = lambda: self._attempt(request, facts)  # noqa: E731
        async with contextlib.aclosing(with_retries(attempt, policy=self.retry)) as events:
            async for event in events:
                if isinstance(event, ErrorEvent) and event.kind == "unsupported":
                    rejected = event.message
                    if NO_TOOLS in rejected and self.settings.tool_protocol != "native":
                        break
                    if NO_THINKING in rejected and not self._think_rejected:
                        break
                yield event
                rejected = None
        if rejected and NO_TOOLS in rejected:
            self._tools_rejected = True
            self._announced_text = True
            yield ProviderNotice(
                text=f"{self.model} does not support native tool calls; switched to the text tool protocol",
                level="warning",
            )
        elif rejected and NO_THINKING in rejected:
            self._think_rejected = True
        else:
            return
        async with contextlib.aclosing(self.stream(request)) as again:
            async for retried in again:
                yield retried

    def _use_text_protocol(self, facts: ModelFacts) -> bool:
        mode = self.settings.tool_protocol
        if mode == "text":
            return True
        if mode == "native":
            return False
        return self._tools_rejected or (facts.capabilities is not None and "tools" not in facts.capabilities)

    def _body(self, request: ChatRequest, facts: ModelFacts) -> dict[str, Any]:
        options: dict[str, Any] = {"num_ctx": facts.num_ctx}
        max_tokens = request.max_tokens or self.settings.max_tokens
        if max_tokens:
            options["num_predict"] = max_tokens
        temperature = request.temperature if request.temperature is not None else self.settings.temperature
        if temperature is not None:
            options["temperature"] = temperature
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_ollama_messages(
                request.system, request.messages, tool_images="vision" in (facts.capabilities or ())
            ),
            "stream": True,
            "options": options,
        }
        if request.tools:
            body["tools"] = to_ollama_tools(request.tools)
        if request.response_schema is not None:
            body["format"] = request.response_schema  # Ollama compiles the schema into a grammar
        if self.settings.keep_alive is not None:  # 0 too: unload after this request
            body["keep_alive"] = self.settings.keep_alive
        for key, value in request_fields(self.settings.request_fields, self.model).items():
            (options if key in OLLAMA_OPTIONS else body)[key] = value
        think = request.think if request.think is not None else self.settings.think
        can_think = facts.capabilities is None or "thinking" in facts.capabilities
        if think is not None and can_think and not self._think_rejected:
            body["think"] = think
        return for_wire(body)  # a byte that was not UTF-8 (a lone surrogate) becomes U+FFFD

    async def _attempt(self, request: ChatRequest, facts: ModelFacts) -> AsyncGenerator[ProviderEvent, None]:
        import httpx

        body = self._body(request, facts)
        scanner = ToolCallScanner(request.tools, new_id=self.new_call_id, strict=False)
        calls: list[ToolCall] = []
        done: dict[str, Any] | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                response = await self._open(stack, body)
                line_stream = ndjson_lines(response.aiter_bytes())  # on \n only: U+0085 may be in the text
                lines = await stack.enter_async_context(contextlib.aclosing(line_stream))
                timeout = self.settings.request_timeout
                while done is None:
                    try:
                        line = await next_within(lines, timeout, self._stall_error)
                    except StopAsyncIteration:
                        break
                    timeout = self.settings.stall_timeout
                    chunk = _parse_line(line)
                    if chunk is None:
                        continue
                    message = chunk.get("message") or {}
                    if message.get("thinking"):
                        yield ThinkingDelta(text=message["thinking"])
                    if message.get("content"):
                        for event in scanner.feed(message["content"]):
                            if isinstance(event, ToolCallEvent):
                                calls.append(event.call)
                            else:
                                yield event
                    for raw in message.get("tool_calls") or []:
                        calls.append(self._tool_call(raw))
                    if chunk.get("done"):
                        done = chunk
        except httpx.ConnectError as exc:
            # The server answered /api/show before (the facts above): it went away, a restart most likely.
            raise ProviderError(
                f"Ollama at {self.base_url} stopped answering ({type(exc).__name__})",
                kind="connection",
                retryable=True,
                hint="start it with `ollama serve`, or point -b/--base-url or OLLAMA_HOST at it",
            ) from None
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            raise ProviderError(
                f"The connection to Ollama dropped mid-response ({type(exc).__name__})", kind="stream", retryable=True
            ) from None
        if done is None:
            raise ProviderError("Ollama's stream ended before the response was complete", kind="stream", retryable=True)
        for event in scanner.finish():
            if isinstance(event, ToolCallEvent):
                calls.append(event.call)
            else:
                yield event
        for call in calls:
            yield ToolCallEvent(call=call)
        usage = Usage(input=int(done.get("prompt_eval_count") or 0), output=int(done.get("eval_count") or 0))
        yield UsageEvent(usage=usage)
        reason: StopReason = "tool_use" if calls else ("length" if done.get("done_reason") == "length" else "stop")
        yield StopEvent(reason=reason)

    async def _open(self, stack: contextlib.AsyncExitStack, body: dict[str, Any]) -> httpx.Response:
        timeout = self.settings.request_timeout
        try:
            async with asyncio.timeout(timeout):
                response = await stack.enter_async_context(self._http().stream("POST", "/api/chat", json=body))
                if response.status_code >= 400:
                    await response.aread()
        except TimeoutError:
            raise ProviderError(
                f"Ollama at {self.base_url} did not answer within {timeout:.0f} s",
                kind="timeout",
                retryable=True,
                hint="the model may still be loading; raise providers.request_timeout if it is large",
            ) from None
        if response.status_code >= 400:
            raise self._status_error(response, body["options"].get("num_ctx"))
        if is_html("", response.headers.get("content-type")):  # a proxy's page with a 200: no stream at all
            await response.aread()
            words = readable(response.text, response.headers.get("content-type"))
            raise ProviderError(f"{self.base_url} answered /api/chat with a page, not Ollama's stream: {words}",
                                kind="stream")  # fmt: skip
        return response

    def _status_error(self, response: httpx.Response, num_ctx: int | None = None) -> ProviderError:
        status = response.status_code
        try:
            body = response.json()
        except ValueError:
            body = None
        error = _error_text(body.get("error")) if isinstance(body, dict) else None
        message = error or readable(response.text, response.headers.get("content-type")) or f"HTTP {status}"
        if status in (401, 403):
            return ProviderError(
                f"Ollama at {self.base_url} refused the request (HTTP {status}: {message})",
                kind="auth",
                status=status,
                hint="set OLLAMA_API_KEY for a server that needs a key",
            )
        if status == 404:
            return openai_path_error(self.base_url or "") or ProviderError(
                f"Model '{self.model}' is not available on Ollama at {self.base_url} ({message})",
                kind="not_found",
                status=404,
                hint=pull_hint(self.model),
            )
        if status == 400 and (NO_TOOLS in message or NO_THINKING in message):
            hint = "set providers.tool_protocol to auto or text" if NO_TOOLS in message else None
            return ProviderError(message, kind="unsupported", status=400, hint=hint)
        if NO_MEMORY in message:  # asking again loads nothing more; the KV cache grows with num_ctx
            window = f" with num_ctx {num_ctx}" if num_ctx else ""
            return ProviderError(
                f"Ollama cannot load {self.model}: {message}",
                status=status,
                hint=f"it does not fit in memory{window}: lower providers.num_ctx_cap, close what else uses the "
                "memory, or choose a smaller model (/models)",
            )
        if is_model_output_error(message):
            return ProviderError(
                f"The model wrote a tool call Ollama could not parse (HTTP {status}: {message})",
                kind="model_output",
                status=status,
                retryable=True,
            )
        if retryable_status(status):
            return RetryableError(
                f"Ollama is busy or failed (HTTP {status}: {message})",
                status=status,
                retry_after=retry_after_seconds(response.headers),
            )
        return ProviderError(f"Ollama returned HTTP {status}: {message}", status=status)

    def _stall_error(self) -> ProviderError:
        seconds = self.settings.stall_timeout
        return ProviderError(
            f"Ollama sent nothing for {seconds:g} s mid-response",
            kind="timeout",
            retryable=True,
            hint="raise providers.stall_timeout for slow models",
        )

    def _tool_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall(
            id=str(raw.get("id") or self.new_call_id()),
            name=str(function.get("name") or "unknown"),
            arguments=decode_arguments(function.get("arguments")),
        )


def _parse_line(line: str) -> dict[str, Any] | None:
    if not line.strip():
        return None
    try:
        chunk = json.loads(line)
    except ValueError:
        raise ProviderError(f"Ollama sent a line that is not JSON: {line[:200]!r}", kind="stream") from None
    except RecursionError:
        raise nested_too_deep("Ollama") from None
    if not isinstance(chunk, dict):
        raise ProviderError(f"Ollama sent an unexpected line: {line[:200]!r}", kind="stream")
    if chunk.get("error"):
        error = _error_text(chunk["error"])
        kind = "model_output" if is_model_output_error(error) else "stream"
        raise ProviderError(f"Ollama reported an error mid-response: {error}", kind=kind, retryable=True)
    return chunk


def _error_text(error: Any) -> str:
    """Ollama's error is a string; a proxy in front of it may send the OpenAI-style object instead."""
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error) if error else ""
