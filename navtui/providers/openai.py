"""OpenAI-compatible Chat Completions (llama.cpp, vLLM, LM Studio, OpenRouter, OpenAI, Ollama /v1).

Built on httpx + httpx-sse rather than the ``openai`` SDK: no key is required for local servers, there are no
hidden retries that re-run a long prompt, and odd chunks are handled by our own tolerant accumulator.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from navtui.config.endpoints import detect_base_url
from navtui.config.settings import ProviderSettings
from navtui.core.errors import ProviderError
from navtui.core.events import ErrorEvent, ProviderEvent, StopEvent, ToolCallEvent, UsageEvent
from navtui.core.messages import ToolCall
from navtui.core.text import for_wire
from navtui.providers.base import ChatRequest, ModelInfo, Provider, ProviderNotice, ProviderStream, request_fields
from navtui.providers.errorbody import error_status, readable
from navtui.providers.openai_convert import (
    NINE_CHAR_ID_ERRORS,
    has_images,
    is_mistral,
    normalise_base_url,
    to_openai_messages,
    to_openai_tools,
    with_nine_char_ids,
)
from navtui.providers.openai_errors import api_key_from_env, error_for, may_not_list, refuses_images, status_error
from navtui.providers.openai_stream import ChunkAccumulator
from navtui.providers.pricing import with_cost
from navtui.providers.retry import RetryPolicy
from navtui.providers.streaming import nested_too_deep, next_within, with_retries
from navtui.providers.textproto import ToolCallScanner
from navtui.providers.textprovider import TextProtocolProvider
from navtui.providers.toolargs import call_ids

if TYPE_CHECKING:
    import httpx

LOADING_POLL = 2.0  # seconds between tries while the server answers 503 "Loading model"
_NO_STREAM_OPTIONS: set[str] = set()  # endpoints that rejected stream_options (remembered for the process)
_NINE_CHAR_IDS: set[tuple[str, str]] = set()  # (endpoint, model) whose template refused other ids, for the process


class OpenAIProvider(Provider):
    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        settings: ProviderSettings | None = None,
        api_key: str | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        """``extra_body`` is merged into every request (``tool_choice``, ``chat_template_kwargs``...)."""
        super().__init__(model, normalise_base_url(base_url or detect_base_url("openai")))
        self.extra_body = dict(extra_body or {})
        self.settings = settings or ProviderSettings()
        self.retry = RetryPolicy.from_settings(self.settings)
        self.new_call_id = call_ids()
        self._key = api_key or api_key_from_env()
        self._client: httpx.AsyncClient | None = None
        self._tools_rejected = False
        self._info: ModelInfo | None = None
        self._reached = False  # the server answered once: a refused connection after that is a restart
        self._images_refused: str | None = None  # why images are left out of requests (told to the model)
        self._official = (urlsplit(self.base_url or "").hostname or "").endswith("openai.com")
        # Mistral's templates (llama.cpp --jinja, vLLM's Mistral tokenizer, Mistral's API) take only 9-character
        # ids: navtui's own (call_0) and another provider's (toolu_..., a resumed session) are sent in that form
        # from the first request to a model named as Mistral's, else from the first refusal (then remembered).
        self._nine_char_ids = is_mistral(model) or (self.base_url or "", model) in _NINE_CHAR_IDS

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            import httpx

            from navtui.providers.tls import client_tls

            headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
            self._client = httpx.AsyncClient(
                base_url=self.base_url or "",
                headers=headers,
                timeout=httpx.Timeout(None, connect=10.0),
                verify=client_tls(),  # certificates loaded on the first TLS connection (a local server makes none)
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # ------------------------------------------------------------------ catalogue
    async def _models(self) -> list[dict[str, Any]]:
        import httpx

        try:
            async with asyncio.timeout(10):
                response = await self._http().get("models")
        except httpx.ConnectError:
            raise self._unreachable() from None
        except (httpx.HTTPError, TimeoutError) as exc:
            raise ProviderError(f"Cannot list models at {self.base_url} ({type(exc).__name__})") from None
        self._reached = True
        if response.status_code >= 400:
            raise status_error(response, self.model, self.base_url or "")
        data = (
            response.json().get("data")
            if response.headers.get("content-type", "").startswith("application/json")
            else None
        )
        return [m for m in data or [] if isinstance(m, dict)]

    async def list_models(self) -> list[str]:
        return sorted(str(m["id"]) for m in await self._models() if m.get("id"))

    @property
    def continues_reply(self) -> bool:
        return self._info is not None and self._info.extra.get("server") == "llama.cpp"

    async def model_info(self) -> ModelInfo:
        if self._official and not self._key:  # OpenAI's own API always needs one: say so now, not at the prompt
            raise ProviderError(
                "No OpenAI API key found",
                kind="auth",
                hint="export OPENAI_API_KEY=... (or NAVTUI_API_KEY), or choose another model",
            )
        listed: list[dict[str, Any]] | None = None
        if self.settings.context_window is None:
            try:
                listed = await self._models()
            except ProviderError as exc:
                # No server, or not for this key: now, not at the prompt. A key that may chat but not list (an
                # OpenAI key restricted to the model capabilities) goes on, as the window's other sources may.
                if exc.kind == "connection" or (exc.kind == "auth" and not may_not_list(exc)):
                    raise
            except ValueError:  # a model list that is not JSON: the other sources may still answer
                pass
        from navtui.providers.openai_info import discover

        info = await discover(
            self._http(),
            self.base_url or "",
            self.model,
            listed,
            self.settings.context_window,
            probe=not self._official,
        )
        self._info = info
        if self._tools_rejected:
            info.extra["tool_protocol"] = "text"
        return info

    @property
    def _tokenize_url(self) -> str | None:
        """The server's tokenizer endpoint (llama.cpp's ``/tokenize``), once ``model_info`` found one."""
        return (self._info.extra.get("tokenize_url") if self._info else None) or None

    @property
    def counts_tokens(self) -> bool:
        return self._tokenize_url is not None

    async def count_tokens(self, text: str) -> int | None:
        url = self._tokenize_url
        if url is None:
            return None
        from navtui.providers.openai_info import count_tokens

        return await count_tokens(self._http(), url, text)

    # ------------------------------------------------------------------ streaming
    async def stream(self, request: ChatRequest) -> ProviderStream:
        if request.tools and self.settings.tool_protocol == "auto" and not self._tools_rejected:
            if self._info is None:
                with contextlib.suppress(ProviderError):
                    await self.model_info()
            if self._info is not None and not self._info.supports_tools:
                self._tools_rejected = True
                yield ProviderNotice(
                    text=f"{self.model}'s chat template at {self.base_url} ignores tools; using the text tool protocol"
                )
        if request.tools and self._tools_rejected:
            async with contextlib.aclosing(TextProtocolProvider(self).stream(request)) as events:
                async for event in events:
                    yield event
            return
        switch = False
        attempt = lambda: self._attempt(request)  # noqa: E731
        async with contextlib.aclosing(with_retries(attempt, policy=self.retry)) as events:
            async for event in events:
                if (
                    isinstance(event, ErrorEvent)
                    and event.kind == "unsupported"
                    and self.settings.tool_protocol == "auto"
                ):
                    switch = True
                    break
                if isinstance(event, UsageEvent):
                    prompt = event.usage.input + event.usage.cache_read  # a prefix read from the cache was seen too
                    if tools_unseen(request, prompt, self.settings):
                        self._tools_rejected = True
                        yield ProviderNotice(
                            text=f"{self.model} at {self.base_url} saw a {prompt}-token prompt: its chat "
                            "template dropped the tools. Switched to the text tool protocol for the next requests.",
                            level="warning",
                        )
                yield event
        if switch:
            self._tools_rejected = True
            yield ProviderNotice(
                text=f"{self.model} at {self.base_url} refused native tools; switched to the text tool protocol",
                level="warning",
            )
            async with contextlib.aclosing(self.stream(request)) as events:
                async for event in events:
                    yield event

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        messages = to_openai_messages(request.system, request.messages, images_refused=self._images_refused)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": with_nine_char_ids(messages) if self._nine_char_ids else messages,
            "stream": True,
        }
        if self.base_url not in _NO_STREAM_OPTIONS:
            body["stream_options"] = {"include_usage": True}
        max_tokens = request.max_tokens or self.settings.max_tokens
        body["max_completion_tokens" if self._official else "max_tokens"] = max_tokens
        temperature = request.temperature if request.temperature is not None else self.settings.temperature
        if temperature is not None:
            body["temperature"] = temperature
        if request.tools:
            body["tools"] = to_openai_tools(request.tools)
        if request.response_schema is not None:  # llama.cpp, vLLM and LM Studio turn it into a grammar
            schema = {"name": "navtui_step", "strict": True, "schema": request.response_schema}
            body["response_format"] = {"type": "json_schema", "json_schema": schema}
        think = request.think if request.think is not None else self.settings.think
        if think not in (None, False):
            body["reasoning_effort"] = "medium" if think is True else think
        body.update(request_fields(self.settings.request_fields, self.model))
        body.update(self.extra_body)
        return for_wire(body)  # a byte that was not UTF-8 (a lone surrogate) becomes U+FFFD

    async def _attempt(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent | ProviderNotice, None]:
        import httpx

        images_sent = self._images_refused is None and has_images(request.messages)
        if images_sent and self._info is not None and self._info.extra.get("vision") is False:
            self._images_refused = "the server cannot see images (llama.cpp without a vision projector)"
            yield self._images_notice("its /props says it has no vision projector (llama-server --mmproj)")
            images_sent = False

        accumulator = ChunkAccumulator(self.new_call_id)
        scanner = ToolCallScanner(request.tools, new_id=self.new_call_id, strict=False)
        leaked: list[ToolCall] = []
        try:
            async with contextlib.AsyncExitStack() as stack:
                refusal: list[str] = []
                response = await self._open(stack, self._body(request), request if images_sent else None, refusal)
                if refusal:
                    yield self._images_notice(refusal[0])
                if "text/event-stream" not in response.headers.get("content-type", ""):
                    await response.aread()
                    chunks = [_whole_response(response, self.model, self.base_url or "")]
                    events: AsyncIterator[dict[str, Any]] = _iterate(chunks)
                else:
                    events = await stack.enter_async_context(contextlib.aclosing(self._chunks(response, accumulator)))
                timeout = self.settings.request_timeout
                while True:
                    try:
                        chunk = await next_within(events, timeout, self._stall_error)
                    except StopAsyncIteration:
                        break
                    timeout = self.settings.stall_timeout
                    for delta in accumulator.feed(chunk):
                        if delta.type == "thinking_delta":
                            yield delta
                            continue
                        for event in scanner.feed(delta.text):
                            if isinstance(event, ToolCallEvent):
                                leaked.append(event.call)
                            else:
                                yield event
        except httpx.ConnectError:
            error = self._unreachable()
            error.retryable = self._reached  # it answered before: a restart, worth waiting for
            raise error from None
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
            if accumulator.finish_reason is None:
                raise ProviderError(
                    f"The connection to {self.base_url} dropped mid-response ({type(exc).__name__})",
                    kind="stream",
                    retryable=True,
                ) from None
            # The answer was complete (finish_reason came); only the usage chunk or [DONE] was lost.
        if not accumulator.complete:
            if accumulator.chunks == 0:
                raise ProviderError(
                    "The server answered with an empty stream",
                    kind="stream",
                    hint="llama.cpp does this when the prompt exceeds its context window (--n_ctx)",
                )
            raise ProviderError("The stream ended before the response was complete", kind="stream", retryable=True)
        for event in scanner.finish():
            if isinstance(event, ToolCallEvent):
                leaked.append(event.call)
            else:
                yield event
        if accumulator.finish_reason == "content_filter":  # OpenAI and Azure: the filter cut the reply
            if accumulator.usage is not None:
                yield UsageEvent(usage=with_cost(self.model, accumulator.usage))
            raise ProviderError(
                f"{self.base_url} stopped the reply with its content filter (finish_reason: content_filter)",
                kind="refusal",
                hint="rephrase the request (Esc twice goes back to before it), or start afresh with /new",
            )
        calls = accumulator.tool_calls() + leaked
        for call in calls:
            yield ToolCallEvent(call=call)
        if accumulator.usage is not None:
            yield UsageEvent(usage=with_cost(self.model, accumulator.usage))
        yield StopEvent(reason=accumulator.stop_reason(bool(calls)))

    async def _chunks(
        self, response: httpx.Response, accumulator: ChunkAccumulator
    ) -> AsyncGenerator[dict[str, Any], None]:
        from httpx_sse import EventSource

        async with contextlib.aclosing(EventSource(response).aiter_sse()) as events:
            async for sse in events:
                data = sse.data.strip()
                if not data:
                    continue
                if data == "[DONE]":
                    accumulator.done = True
                    return
                try:
                    chunk = json.loads(data)
                except ValueError:
                    raise ProviderError(
                        f"The server sent an event that is not JSON: {data[:200]!r}", kind="stream"
                    ) from None
                except RecursionError:
                    raise nested_too_deep("The server") from None
                if isinstance(chunk, dict):
                    yield chunk

    def _images_notice(self, why: str) -> ProviderNotice:
        return ProviderNotice(
            text=f"{self.model} at {self.base_url} does not take images ({why}): they are left out of its requests "
            "from now on, and the model is told where each one was.",
            level="warning",
        )

    async def _open(
        self,
        stack: contextlib.AsyncExitStack,
        body: dict[str, Any],
        images: ChatRequest | None = None,
        refusal: list[str] | None = None,
    ) -> httpx.Response:
        """The streaming response to ``body``. ``images``: the request, which carried images; when the server
        refuses them it is sent again without, and the server's words go into ``refusal``."""
        timeout = self.settings.request_timeout
        try:
            async with asyncio.timeout(timeout):
                while True:
                    request = self._http().stream("POST", "chat/completions", json=body)
                    response = await request.__aenter__()
                    self._reached = True
                    if response.status_code < 400:
                        stack.push_async_exit(request)
                        return response
                    try:
                        await response.aread()
                    finally:
                        await request.__aexit__(None, None, None)
                    if response.status_code == 503 and "loading" in response.text.lower():
                        await asyncio.sleep(LOADING_POLL)  # llama.cpp loads a model for up to minutes on CPU
                        continue
                    if response.status_code == 400 and "stream_options" in body and "stream_options" in response.text:
                        _NO_STREAM_OPTIONS.add(self.base_url or "")  # an older server: ask again without it
                        body = {k: v for k, v in body.items() if k != "stream_options"}
                        continue
                    error = status_error(response, self.model, self.base_url or "", tools="tools" in body)
                    if not self._nine_char_ids and any(words in error.message for words in NINE_CHAR_ID_ERRORS):
                        self._nine_char_ids = True  # the template refused the ids: the same request in its form
                        _NINE_CHAR_IDS.add((self.base_url or "", self.model))
                        body = {**body, "messages": with_nine_char_ids(body["messages"])}
                        continue
                    if images is not None and refusal is not None and refuses_images(response.status_code, error):
                        self._images_refused = "the server does not take images for this model"
                        words = error.message.split(f"HTTP {response.status_code}: ", 1)[-1][:200]
                        refusal.append(f"HTTP {response.status_code}: {words}")
                        body = self._body(images)
                        images = None
                        continue
                    raise error
        except TimeoutError:
            raise ProviderError(
                f"{self.base_url} did not answer within {timeout:.0f} s",
                kind="timeout",
                retryable=True,
                hint="raise providers.request_timeout for slow prompt processing",
            ) from None

    def _unreachable(self) -> ProviderError:
        return ProviderError(
            f"Cannot connect to the OpenAI-compatible server at {self.base_url}",
            kind="connection",
            hint="is the server running? check -b/--base-url",
        )

    def _stall_error(self) -> ProviderError:
        return ProviderError(
            f"The server sent nothing for {self.settings.stall_timeout:g} s mid-response",
            kind="timeout",
            retryable=True,
            hint="raise providers.stall_timeout for slow models",
        )


MIN_TOOL_TOKENS = 400  # a real tool set (navtui's compact one is ~560): smaller ones are too close to call


def tools_unseen(request: ChatRequest, prompt_tokens: int, settings: ProviderSettings) -> bool:
    """Whether the server's prompt count shows the tools never reached the model (a template that drops them).

    Judged only while the tool specs are most of the request (the first turns), where the gap is unmistakable:
    SmolLM2's template answered a request carrying ~1,500 tokens of tools with a 297-token prompt.
    """
    if settings.tool_protocol != "auto" or not request.tools or prompt_tokens <= 0:
        return False
    tools = len(json.dumps(to_openai_tools(request.tools))) // 4
    rest = (len(request.system) + len(json.dumps([m.to_json() for m in request.messages]))) // 4
    return tools >= MIN_TOOL_TOKENS and tools >= rest and prompt_tokens < (tools + rest) * 0.55


async def _iterate(items: list[dict[str, Any]]) -> AsyncGenerator[dict[str, Any], None]:
    for item in items:
        yield item


def _whole_response(response: httpx.Response, model: str, base_url: str) -> dict[str, Any]:
    """A non-streaming JSON answer, reshaped into one chunk (some servers ignore ``stream``).

    An error object in place of the answer (a gateway's HTTP 200) is that error, judged by what its type or code
    stands for: a model that does not exist is not a broken stream to ask again."""
    try:
        data = response.json()
    except ValueError:
        words = readable(response.text, response.headers.get("content-type"))
        raise ProviderError(f"{base_url} sent a response that is not JSON: {words}", kind="stream") from None
    if not isinstance(data, dict):
        raise ProviderError("The server sent an unexpected JSON response", kind="stream")
    if data.get("error") and not data.get("choices"):
        status = error_status(data["error"]) or 500
        raise error_for(status, data, response.headers, model, base_url, said="HTTP 200 with an error")
    for choice in data.get("choices") or []:
        if isinstance(choice, dict) and "message" in choice and "delta" not in choice:
            message = dict(choice["message"] or {})
            calls = message.get("tool_calls") or []
            message["tool_calls"] = [{**c, "index": i} for i, c in enumerate(calls) if isinstance(c, dict)]
            choice["delta"] = message
    return data
