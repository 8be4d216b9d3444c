"""The network thread: every provider's connections live on one event loop of their own, off the UI's loop.

A streamed reply costs CPU on whatever loop reads it (the HTTP reads, the NDJSON/SSE decoding, the events made
of it); on the UI's loop that is time a key waits for. ``NetworkThread`` runs one asyncio loop in a daemon
thread; ``NetworkProvider`` wraps a provider so that every coroutine of it (the stream, ``model_info``, model
lists, downloads, token counts, ``aclose``) runs there: an httpx/anthropic client and its connection pool belong
to the loop they first connected on, so a provider must never be used on two loops.

A stream's events cross back in batches: the network thread appends to a list and wakes the consumer's loop
once per batch (``call_soon_threadsafe``), not once per event; the consumer joins adjacent text deltas
(``join_deltas``). Nothing on the network thread touches the consumer's state: the ``ChatRequest`` is read there
(the agent's history only grows while a reply streams; pruning replaces messages with copies) and events are
handed over, never applied. Closing a stream early (Esc, ``aclose``) cancels its task on the network loop,
which closes the connection, and waits until it has.

``Runtime`` owns one ``NetworkThread`` and ``ModelControl.build`` wraps every provider it builds; tests and
benchmarks that use a provider directly keep it on their own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Coroutine
from typing import Any, TypeVar

from navtui.core.errors import ProviderError
from navtui.core.events import TextDelta, ThinkingDelta, join_deltas
from navtui.providers.base import ChatRequest, ListedModel, ModelInfo, Provider, ProviderStream, PullProgress

T = TypeVar("T")

THREAD_NAME = "navtui-network"
JOIN_TIMEOUT = 5.0  # seconds; a loop that ended its tasks stops in microseconds
READ_PACE = 0.008  # seconds between reads of a stream that keeps up with the server (see _produce)


class NetworkThread:
    """One daemon thread running one asyncio loop, started on first use and stopped by ``aclose``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The network loop (the thread starts here on first use)."""
        with self._lock:
            if self._closed:
                raise ProviderError("navtui is closing its connections", kind="connection")
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=_serve, args=(loop,), name=THREAD_NAME, daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    @property
    def alive(self) -> bool:
        """The thread runs (it was started and not stopped)."""
        return self._thread is not None and self._thread.is_alive()

    async def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on the network loop (cancelling the caller cancels it there)."""
        try:
            loop = self.loop
        except ProviderError:
            coro.close()
            raise
        if asyncio.get_running_loop() is loop:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))

    async def aclose(self) -> None:
        """Cancel what still runs there (closing its connections), finalise its generators, stop the thread."""
        with self._lock:
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if thread.is_alive():
            with contextlib.suppress(RuntimeError):  # the loop stopped already (an interpreter on its way out)
                await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(_wind_down(), loop))
                loop.call_soon_threadsafe(loop.stop)
        thread.join(JOIN_TIMEOUT)  # at once: the loop was told to stop after everything on it ended


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        loop.close()


async def _wind_down() -> None:
    loop = asyncio.get_running_loop()
    tasks = [task for task in asyncio.all_tasks(loop) if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await loop.shutdown_asyncgens()
    await loop.shutdown_default_executor()  # getaddrinfo's threads


class _Handoff:
    """Items crossing from a producer on the network loop to one consumer's loop, woken once per batch: the
    items one step of the producer put (a read's worth), or all that came while the consumer was busy."""

    def __init__(self, consumer: asyncio.AbstractEventLoop) -> None:
        self._consumer = consumer
        self._lock = threading.Lock()
        self._items: list[Any] = []
        self._waking = False  # a wake-up is on its way, or the consumer has not taken the batch yet
        self._ended = False
        self._failure: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None  # the consumer's; touched on its loop only
        self.producer: asyncio.Task[None] | None = None  # the network loop's; touched there only
        self._sending = False  # a _send is queued on the network loop (touched there only)

    # ---------------------------------------------------------------- on the network loop
    def start(self, source: AsyncIterator[Any], pace: Callable[[Any], bool] = lambda _item: True) -> None:
        self.producer = asyncio.get_running_loop().create_task(_produce(source, self, pace))
        # A task cancelled before its first step never runs its body: the end is said from here, whatever happens.
        self.producer.add_done_callback(lambda _task: self.end())

    def stop(self) -> None:
        if self.producer is not None:
            self.producer.cancel()

    def put(self, item: Any) -> None:
        with self._lock:
            self._items.append(item)
        if not self._sending:  # once this read's items are all in: the consumer hears of them when the task yields
            self._sending = True
            asyncio.get_running_loop().call_soon(self._send)

    def _send(self) -> None:
        self._sending = False
        with self._lock:
            if self._waking or not self._items:
                return
            self._waking = True
        self._wake_consumer()

    def end(self, failure: BaseException | None = None) -> None:
        with self._lock:
            if self._ended:
                return
            self._ended = True
            self._failure = failure
            self._waking = True
        self._wake_consumer()

    def _wake_consumer(self) -> None:
        with contextlib.suppress(RuntimeError):  # the consumer's loop is closed: nobody is left to tell
            self._consumer.call_soon_threadsafe(self._wake)

    # ---------------------------------------------------------------- on the consumer's loop
    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def take(self) -> tuple[list[Any], bool]:
        """The items put since the last take (waiting for one), and whether the producer has ended.

        A failure on the network thread is raised here, after the items put before it."""
        while True:
            with self._lock:
                items, self._items = self._items, []
                ended, failure = self._ended, self._failure
                self._waking = False
            if ended and failure is not None and not items:
                raise failure
            if items or ended:
                return items, ended and failure is None
            await self._wait()

    async def ended(self) -> None:
        """Wait until the producer has ended (its source closed); what it put meanwhile is dropped."""
        while True:
            with self._lock:
                self._items.clear()
                self._waking = False
                if self._ended:
                    return
            await self._wait()

    async def _wait(self) -> None:
        self._waiter = self._consumer.create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None


async def _produce(source: AsyncIterator[Any], handoff: _Handoff, pace: Callable[[Any], bool]) -> None:
    """On the network loop: read ``source`` into ``handoff``; close it however the reading ends.

    An item that had to wait for the network (the loop turned while it came) and that ``pace`` says more of its
    kind follow (a text delta) is followed by a pause of ``READ_PACE``: the next read then takes what arrived
    meanwhile in one go. Each read of an HTTP stream costs the same whether it brings one token or twenty. After
    any other item (a reply's usage, its stop) the next read follows at once: the end of a reply is not held."""
    loop = asyncio.get_running_loop()
    failure: BaseException | None = None
    try:
        while True:
            turned: list[bool] = []
            loop.call_soon(turned.append, True)
            try:
                item = await anext(source)
            except StopAsyncIteration:
                break
            handoff.put(item)
            if turned and pace(item):
                await asyncio.sleep(READ_PACE)
    except asyncio.CancelledError:  # the consumer stopped reading (it no longer listens), or navtui is closing
        failure = ProviderError("navtui closed the connection before the reply ended", kind="connection")
        raise
    except Exception as exc:  # raised on the consumer's side, after the items that came before it
        failure = exc
    finally:
        try:
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                await aclose()  # closes the response, and with it the connection
        finally:
            handoff.end(failure)


async def relay(
    network: NetworkThread,
    source: AsyncIterator[T],
    *,
    join: Callable[[list[Any]], list[Any]] | None = None,
    pace: Callable[[Any], bool] = lambda _item: True,
) -> AsyncGenerator[T, None]:
    """Iterate ``source`` on the network loop; yield its items here, a batch at a time (``join`` shapes a batch;
    ``pace``: which items are followed by a pause when they had to wait for the network, see ``_produce``).

    Closing this generator early (or cancelling its consumer) cancels the reading over there and returns once
    ``source`` is closed."""
    handoff = _Handoff(asyncio.get_running_loop())
    loop = network.loop
    loop.call_soon_threadsafe(handoff.start, source, pace)
    finished = False
    try:
        while not finished:
            items, finished = await handoff.take()
            for item in join(items) if join is not None else items:
                yield item
    finally:
        if not finished:
            with contextlib.suppress(RuntimeError):  # the network loop has stopped, and its tasks with it
                loop.call_soon_threadsafe(handoff.stop)
                await asyncio.shield(handoff.ended())


def _is_delta(item: Any) -> bool:
    """Text and thinking come in many small pieces, worth reading in batches; nothing else does."""
    return type(item) is TextDelta or type(item) is ThinkingDelta


class NetworkProvider(Provider):
    """``inner`` with every coroutine run on the network thread; what it is (name, model, policy) stays its own."""

    def __init__(self, inner: Provider, network: NetworkThread) -> None:
        super().__init__(inner.model, inner.base_url)
        self.inner = inner
        self.network = network
        self.name = inner.name
        self.wants_files = inner.wants_files
        self.offers_tools = inner.offers_tools
        self.can_pull = inner.can_pull
        self.protocol_reason = inner.protocol_reason
        self.retry = inner.retry  # the same object: the agent asks again by the policy the provider retries by

    @property
    def continues_reply(self) -> bool:
        return self.inner.continues_reply

    def stream(self, request: ChatRequest) -> ProviderStream:
        return relay(self.network, self.inner.stream(request), join=join_deltas, pace=_is_delta)

    async def model_info(self) -> ModelInfo:
        return await self.network.call(self.inner.model_info())

    async def list_models(self) -> list[str]:
        return await self.network.call(self.inner.list_models())

    async def describe_models(self) -> list[ListedModel]:
        return await self.network.call(self.inner.describe_models())

    def pull(self, name: str) -> AsyncIterator[PullProgress]:
        return relay(self.network, self.inner.pull(name))

    @property
    def counts_tokens(self) -> bool:
        return self.inner.counts_tokens

    async def count_tokens(self, text: str) -> int | None:
        return await self.network.call(self.inner.count_tokens(text))

    async def aclose(self) -> None:
        with contextlib.suppress(ProviderError):  # the thread has stopped: its connections went with it
            await self.network.call(self.inner.aclose())
