"""`FakeServer`: one loopback HTTP server speaking Ollama, OpenAI-compatible and Anthropic wire formats.

It runs its own asyncio loop in a daemon thread, so sync tests, async tests, Textual pilots, subprocesses
and benchmarks can all talk to it. Replies are scripted per request; every request is recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import traceback
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from . import wire_anthropic, wire_llamacpp, wire_ollama, wire_openai
from .script import DEFAULT_REPLY, Step, Text, Usage, split_text
from .stream import Reply, presented_key
from .validate import request_problems
from .wire_http import BadRequest, ClientGone, Connection, RecordedRequest, read_request

Handler = Callable[["FakeServer", RecordedRequest, Connection], Awaitable[bool]]
CHAT_PATHS = frozenset({"/api/chat", "/v1/chat/completions", "/v1/messages"})
_ROUTES: dict[tuple[str, str], Handler] = {
    ("POST", "/api/chat"): wire_ollama.chat,
    ("GET", "/api/tags"): wire_ollama.tags,
    ("GET", "/api/ps"): wire_ollama.ps,
    ("POST", "/api/pull"): wire_ollama.pull,
    ("POST", "/api/show"): wire_ollama.show,
    ("GET", "/api/version"): wire_ollama.version,
    ("POST", "/api/embed"): wire_ollama.embed,
    ("POST", "/v1/chat/completions"): wire_openai.chat,
    ("POST", "/v1/messages"): wire_anthropic.messages,
    ("POST", "/v1/messages/count_tokens"): wire_anthropic.count_tokens,
    ("GET", "/props"): wire_llamacpp.props,
    ("POST", "/tokenize"): wire_llamacpp.tokenize,
}


@dataclass(frozen=True)
class FakeModel:
    """A model as `/api/show`, `/api/tags` and `/v1/models` describe it."""

    name: str
    context_length: int = 32768
    capabilities: tuple[str, ...] = ("completion", "tools")
    family: str = "llama"
    parameters: str = ""
    parameter_size: str = "7.6B"
    quantization_level: str = "Q4_K_M"
    fits_num_ctx: int | None = None  # the largest num_ctx this machine's memory holds it with (None: any)


@dataclass(frozen=True)
class FakePull:
    """What `/api/pull` streams for one model: a manifest, one big layer in `steps` progress lines, then done."""

    size: int = 4_683_087_332
    steps: int = 5
    delay: float = 0.0  # seconds before each progress line


@dataclass(frozen=True)
class LlamaCppFacts:
    """What `/props` says: the server's context size and whether the chat template takes tools."""

    n_ctx: int = 4096
    supports_tools: bool = True
    alias: str = "model"
    vision: bool = False  # a vision projector (--mmproj) is loaded


async def _unauthorized(req: RecordedRequest, conn: Connection) -> None:
    """A wrong or missing key, in the words of the API the request is for."""
    if "anthropic-version" in req.headers:
        error = {"type": "authentication_error", "message": "invalid x-api-key"}
        body: dict[str, object] = {"type": "error", "error": error}
    elif req.path.startswith("/v1/"):
        body = {"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}}
    else:
        body = {"error": "unauthorized"}
    await conn.send_json(401, body, keep_alive=req.keep_alive)


def _norm(name: str) -> str:
    """Ollama treats `x` and `x:latest` as one model."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


class FakeServer:
    """A scripted fake LLM provider server on 127.0.0.1."""

    ollama_version = "0.12.6"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host, self._port = host, port
        self._cond = threading.Condition(threading.RLock())
        self._default: deque[tuple[Step, ...]] = deque()
        self._by_model: dict[str, deque[tuple[Step, ...]]] = {}
        self._requests: list[RecordedRequest] = []
        self._models: dict[str, FakeModel] = {}
        self._disconnects = 0
        self._connections = 0
        self._errors: list[str] = []
        self._seq = 0
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.llamacpp: LlamaCppFacts | None = None  # set: /props and /tokenize answer as llama.cpp's do
        self.lmstudio: dict[str, int] = {}  # model -> loaded context length, for /api/v0/models/<model>
        # Ollama's memory: a model asked about (show, chat) is loaded unless unloaded; the next chat to an
        # unloaded model waits `load_delay` seconds (loading it), as Ollama's first request to a cold model does.
        self._seen: set[str] = set()
        self._cold: set[str] = set()
        self.load_delay = 0.0
        self._pullable: dict[str, FakePull] = {}
        # Set: every request without this key (Authorization: Bearer or x-api-key) gets the format's 401, as
        # llama-server --api-key, a gateway or a hosted API answers, the model list included.
        self.require_key: str | None = None
        # Set (status, message): `/v1/models` answers that OpenAI error, the chat as usual: a key allowed to chat
        # but not to list models (OpenAI's restricted key without the Models read scope).
        self.refuse_model_list: tuple[int, str] | None = None
        # Set: `GET /` answers "Ollama is running", as Ollama's root always does; off by default so that the
        # OpenAI-compatible and Anthropic tests meet a server that is not Ollama behind its `/v1` API.
        self.ollama_root = False
        # Set: `/v1/chat/completions` applies a Mistral template's rule (Mistral Small, Devstral under llama.cpp
        # --jinja): a tool-call id that is not 9 letters or digits fails the template, a 500 naming the rule.
        self.mistral_ids = False
        # Set: `/v1/chat/completions` refuses two user messages in a row, as templates that want the roles to
        # alternate do (Mistral's, Gemma's under llama.cpp --jinja): a 500 with the template's words.
        self.alternating_roles = False

    # lifecycle -------------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeServer is not started")
        return f"http://{self._host}:{self._port}"

    def start(self) -> Self:
        if self._thread is not None:
            raise RuntimeError("FakeServer already started")
        ready = threading.Event()
        failure: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, args=(ready, failure), name="FakeServer", daemon=True)
        self._thread.start()
        ready.wait(10)
        if failure or self._server is None:
            self._thread.join(5)
            self._thread = None
            raise RuntimeError("FakeServer failed to start") from (failure[0] if failure else None)
        return self

    def _run(self, ready: threading.Event, failure: list[BaseException]) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        try:
            server = loop.run_until_complete(asyncio.start_server(self._on_connect, self._host, self._port))
            self._port = server.sockets[0].getsockname()[1]
            self._server = server
        except BaseException as exc:  # noqa: BLE001 - handed to the starting thread
            failure.append(exc)
            ready.set()
            loop.close()
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def stop(self) -> None:
        """Close every connection and the listening socket, then join the thread. Idempotent."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        if loop.is_running():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=5)
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        self._thread, self._loop, self._server = None, None, None

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.sleep(0)  # let the transports' connection_lost callbacks run before the loop stops

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # scripting -------------------------------------------------------------------------------------------------

    def script(self, *steps: Step, model: str | None = None) -> None:
        """Queue one reply (for `model` only, if given). No steps at all means an empty, well-terminated reply."""
        for step in steps:
            if not isinstance(step, Step):
                raise TypeError(f"not a script step: {step!r}")
        with self._cond:
            if model is None:
                self._default.append(tuple(steps))
            else:
                self._by_model.setdefault(_norm(model), deque()).append(tuple(steps))

    def script_stream(
        self,
        text: str,
        tokens_per_second: float = 1000,
        chunk_chars: int = 4,
        model: str | None = None,
        usage: Usage | None = None,
    ) -> int:
        """Queue a long text reply paced at `tokens_per_second`, one chunk counting as one token.

        Returns the number of chunks.
        """
        delay = 1.0 / tokens_per_second if tokens_per_second > 0 else 0.0
        chunks = split_text(text, chunk_chars)
        steps: list[Step] = [Text(c, delay=delay) for c in chunks]
        steps.append(usage or Usage(input=100, output=len(chunks)))
        self.script(*steps, model=model)
        return len(chunks)

    def pending(self, model: str | None = None) -> int:
        """How many scripted replies are still queued (default queue, or one model's)."""
        with self._cond:
            queue = self._default if model is None else self._by_model.get(_norm(model), deque())
            return len(queue)

    def next_reply(self, req: RecordedRequest) -> Reply:
        """Pop the reply for this request (its model's queue first, then the default one, else `Text("ok")`)."""
        with self._cond:
            queue = self._by_model.get(_norm(req.model)) if req.model else None
            if queue:
                steps = queue.popleft()
            elif self._default:
                steps = self._default.popleft()
            else:
                steps = DEFAULT_REPLY
            self._seq += 1
            req.reply = steps
            return Reply(req, steps, self._seq)

    # models ----------------------------------------------------------------------------------------------------

    def set_model(
        self,
        name: str,
        context_length: int = 32768,
        capabilities: Iterable[str] = ("completion", "tools"),
        family: str = "llama",
        parameters: str = "",
        parameter_size: str = "7.6B",
        quantization_level: str = "Q4_K_M",
        loaded: bool = True,
        fits_num_ctx: int | None = None,
    ) -> None:
        """Register a model. Once any is registered, unknown models get Ollama's 404 on `/api/show`.
        ``loaded=False``: installed but not in memory (see `unload`). ``fits_num_ctx``: a chat asking for a larger
        ``options.num_ctx`` gets Ollama's HTTP 500 "model requires more system memory" (its KV cache does not fit)."""
        model = FakeModel(
            name,
            context_length,
            tuple(capabilities),
            family,
            parameters,
            parameter_size,
            quantization_level,
            fits_num_ctx,
        )
        with self._cond:
            self._models[_norm(name)] = model
            if not loaded:
                self._cold.add(_norm(name))

    def unload(self, name: str) -> None:
        """Take a model out of memory: `/api/ps` stops listing it and its next chat waits `load_delay`."""
        with self._cond:
            self._cold.add(_norm(name))

    def note_model(self, name: str) -> None:
        """A request named this model (Ollama loads what it is asked to run)."""
        with self._cond:
            self._seen.add(_norm(name))

    def load(self, name: str) -> bool:
        """Mark ``name`` loaded; True when it was cold (the caller then waits `load_delay`)."""
        with self._cond:
            key = _norm(name)
            self._seen.add(key)
            if key in self._cold:
                self._cold.discard(key)
                return True
            return False

    @property
    def loaded(self) -> list[FakeModel]:
        """What `/api/ps` lists: registered or used models that were not unloaded."""
        with self._cond:
            names = (set(self._models) | self._seen) - self._cold
            return [self._models.get(name) or FakeModel(name) for name in sorted(names)]

    def set_pullable(self, name: str, size: int = 4_683_087_332, steps: int = 5, delay: float = 0.0) -> None:
        """`/api/pull` of ``name`` succeeds (progress in `steps` lines), then the model is installed."""
        with self._cond:
            self._pullable[_norm(name)] = FakePull(size, steps, delay)

    def pullable(self, name: str) -> FakePull | None:
        with self._cond:
            return self._pullable.get(_norm(name))

    def set_llamacpp(
        self, n_ctx: int = 4096, supports_tools: bool = True, alias: str = "model", vision: bool = False
    ) -> None:
        """Answer `/props` and `/tokenize` as a llama.cpp server with this context size and template."""
        self.llamacpp = LlamaCppFacts(n_ctx, supports_tools, alias, vision)

    def sees_images(self, name: str) -> bool:
        """Whether a chat with images for ``name`` is taken: llama.cpp with a projector, a registered model with
        the ``vision`` capability, any model of a server that registered none."""
        if self.llamacpp is not None:
            return self.llamacpp.vision
        with self._cond:
            model = self._models.get(_norm(name)) if self._models else None
        return model is None or "vision" in model.capabilities

    def set_lmstudio(self, model: str, loaded_context_length: int) -> None:
        """Answer `/api/v0/models/<model>` as LM Studio does, with this loaded context length."""
        self.lmstudio[model] = loaded_context_length

    @property
    def models(self) -> list[FakeModel]:
        with self._cond:
            return list(self._models.values())

    @property
    def has_models(self) -> bool:
        with self._cond:
            return bool(self._models)

    def model_for(self, name: str) -> FakeModel | None:
        """The registered model, a default one if none are registered, or None if unknown."""
        with self._cond:
            if not self._models:
                return FakeModel(name)
            return self._models.get(_norm(name))

    # recording -------------------------------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._cond:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._cond:
            return [r for r in self._requests if r.path in CHAT_PATHS]

    def invalid_requests(self) -> list[str]:
        """Invariant I2: every chat request whose history a real provider would reject, with the reasons."""
        found: list[str] = []
        for number, request in enumerate(self.chat_requests, 1):
            problems = request_problems(request)
            if problems:
                found.append(f"chat request {number} ({request.path}): " + "; ".join(problems))
        return found

    @property
    def disconnects(self) -> int:
        with self._cond:
            return self._disconnects

    @property
    def connections(self) -> int:
        """TCP connections accepted so far (keep-alive reuse keeps this low)."""
        with self._cond:
            return self._connections

    @property
    def errors(self) -> list[str]:
        """Tracebacks of bugs inside the fake itself (should stay empty)."""
        with self._cond:
            return list(self._errors)

    def wait_for_disconnect(self, timeout: float = 2.0, count: int = 1) -> bool:
        """Block until at least `count` client disconnects were seen."""
        with self._cond:
            return self._cond.wait_for(lambda: self._disconnects >= count, timeout)

    async def wait_for_disconnect_async(self, timeout: float = 2.0, count: int = 1) -> bool:  # noqa: ASYNC109
        """`wait_for_disconnect` without blocking the caller's event loop."""
        end = time.monotonic() + timeout
        while self.disconnects < count:
            if time.monotonic() >= end:
                return False
            await asyncio.sleep(0.01)
        return True

    def wait_for_requests(self, count: int, timeout: float = 2.0) -> bool:
        """Block until at least `count` requests arrived."""
        with self._cond:
            return self._cond.wait_for(lambda: len(self._requests) >= count, timeout)

    def wait_for_chat_requests(self, count: int, timeout: float = 2.0) -> bool:
        """Block until at least `count` chat requests arrived (the model list, `/api/show` ... not counted)."""
        with self._cond:
            return self._cond.wait_for(lambda: len(self.chat_requests) >= count, timeout)

    def reset(self) -> None:
        """Forget scripted replies, recorded requests, disconnects and errors (registered models stay)."""
        with self._cond:
            self._default.clear()
            self._by_model.clear()
            self._requests.clear()
            self._disconnects = 0
            self._connections = 0
            self._errors.clear()

    # serving ---------------------------------------------------------------------------------------------------

    def _route(self, req: RecordedRequest) -> Handler | None:
        if req.method == "GET" and req.path == "/v1/models":
            anthropic = "anthropic-version" in req.headers and not self.ollama_root  # Ollama has one list
            return wire_anthropic.models if anthropic else wire_openai.models
        if req.method == "GET" and req.path.startswith("/api/v0/models/"):
            return wire_llamacpp.lmstudio_model
        if req.method == "GET" and req.path == "/" and self.ollama_root:
            return wire_ollama.root
        return _ROUTES.get((req.method, req.path))

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        with self._cond:
            self._connections += 1
        conn = Connection(reader, writer)
        stopping = False
        try:
            await self._serve(conn)
        except asyncio.CancelledError:
            stopping = True
        finally:
            self._tasks.discard(task)
            conn.abort(force=stopping)

    async def _serve(self, conn: Connection) -> None:
        while not conn.closed:
            try:
                req = await read_request(conn.reader)
            except (BadRequest, asyncio.IncompleteReadError, ConnectionError, ValueError):
                return
            if req is None:
                return
            with self._cond:
                self._requests.append(req)
                self._cond.notify_all()
            keep = await self._answer(req, conn)
            if not (keep and req.keep_alive):
                return

    async def _answer(self, req: RecordedRequest, conn: Connection) -> bool:
        handler = self._route(req)
        try:
            if self.require_key is not None and presented_key(req) != self.require_key:
                await _unauthorized(req, conn)
                return req.keep_alive
            if self.refuse_model_list is not None and req.path == "/v1/models":
                status, message = self.refuse_model_list
                error = {"message": message, "type": "invalid_request_error", "code": None}
                await conn.send_json(status, {"error": error}, keep_alive=req.keep_alive)
                return req.keep_alive
            if handler is None:
                await conn.send(404, b"404 page not found", "text/plain", keep_alive=req.keep_alive)
                return True
            return await handler(self, req, conn)
        except ClientGone:
            if req.path in CHAT_PATHS:
                with self._cond:
                    self._disconnects += 1
                    self._cond.notify_all()
            return False
        except Exception:
            with self._cond:
                self._errors.append(traceback.format_exc())
            if not conn.streaming and not conn.gone():
                with contextlib.suppress(ClientGone):
                    await conn.send(500, b"fake server error", "text/plain", keep_alive=False)
            return False
