"""What every provider's stream shares: idle timeouts, the retry policy and turning errors into events.

A provider writes one ``_attempt(request)`` async generator that raises ``ProviderError`` for expected
failures; ``with_retries`` retries the retryable ones that happened before any content was yielded and turns
the rest into a single ``ErrorEvent``, so the consumer never sees an exception for an expected failure.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, TypeVar

from navtui.core.errors import ProviderError
from navtui.core.events import ErrorEvent, ProviderEvent, StopEvent, ToolCallEvent, UsageEvent
from navtui.core.messages import ToolCall
from navtui.providers.base import PARSE_ERROR_KEY, ProviderNotice
from navtui.providers.retry import RetryPolicy

INVALID_CALL_NAME = "invalid_tool_call"  # the name a call the server could not parse is recorded under

T = TypeVar("T")


class RetryableError(ProviderError):
    """A failure worth another try (429, 503, 529, overloaded, a dropped connection before any output)."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("retryable", True)
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


def nested_too_deep(who: str) -> ProviderError:
    """What a stream line nested deeper than Python's stack raises (``json.loads`` hits ``RecursionError``): no
    model writes that, a broken or hostile server does, and it ended the whole run (``navtui: RecursionError``)."""
    return ProviderError(
        f"{who} sent a line nested too deeply to read (thousands of brackets); the reply was stopped",
        kind="stream",
        hint="the server's output is broken: check it, or try again",
    )


def error_event(exc: ProviderError) -> ErrorEvent:
    return ErrorEvent(message=exc.message, kind=exc.kind, hint=exc.hint, status=exc.status, retryable=exc.retryable)


def retry_after_seconds(headers: Any) -> float | None:
    """``retry-after-ms`` or ``retry-after`` from response headers: seconds, or an HTTP date (RFC 9110) taken as
    the time left until it (none, for a date already past)."""
    if headers is None:
        return None
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            pass
        if key == "retry-after":
            return _seconds_until(value)
    return None


def _seconds_until(date: str) -> float | None:
    import time
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(date).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when - time.time())


async def next_within(iterator: AsyncIterator[T], seconds: float, on_timeout: Callable[[], ProviderError]) -> T:
    """The next item, or ``on_timeout()`` raised after ``seconds`` of silence. StopAsyncIteration passes."""
    try:
        async with asyncio.timeout(seconds):
            return await anext(iterator)
    except TimeoutError:
        raise on_timeout() from None


async def with_retries(
    attempt: Callable[[], AsyncGenerator[ProviderEvent | ProviderNotice, None]],
    *,
    policy: RetryPolicy,
) -> AsyncGenerator[ProviderEvent | ProviderNotice, None]:
    """Run ``attempt`` until it succeeds, fails for good, or yielded content and then failed.

    The final error is marked not retryable when the tries ran out, so the agent does not ask again; an error
    after content keeps its flag (the agent may ask again, the partial answer kept aside).
    """
    tries: dict[str, int] = {}
    while True:
        produced = False
        try:
            async with contextlib.aclosing(attempt()) as events:
                async for event in events:
                    if not isinstance(event, ProviderNotice | UsageEvent | StopEvent):
                        produced = True
                    yield event
            return
        except ProviderError as exc:
            if produced or not exc.retryable:
                yield error_event(exc)
                return
            used = tries.get(exc.kind, 0)
            if used >= policy.retries_for(exc.kind):
                if exc.kind == "model_output":
                    for event in model_output_call(exc):  # the model gets its mistake back, as a malformed call
                        yield event
                    return
                exc.retryable = False
                yield error_event(exc)
                return
            retry_after = exc.retry_after if isinstance(exc, RetryableError) else None
            if retry_after is not None and retry_after > policy.longest_wait:
                exc.hint = exc.hint or f"the server asks to wait {retry_after:.0f} s; try again later"
                exc.retryable = False
                yield error_event(exc)
                return
            delay = policy.delay(used, retry_after)
            tries[exc.kind] = used + 1
            yield ProviderNotice(
                text=f"{exc.message}; retrying in {delay:.1f} s (attempt {used + 1}/{policy.retries_for(exc.kind)})",
                level="warning",
            )
            await policy.sleep(delay)


def model_output_call(exc: ProviderError) -> list[ProviderEvent]:
    """A tool call the server could not parse, as a malformed call: the agent answers it with the error."""
    reason = (
        f"The server could not parse your tool call ({exc.message}). Call the tool again with a valid JSON "
        "object of arguments, or answer without a tool."
    )
    call = ToolCall(id="", name=INVALID_CALL_NAME, arguments={PARSE_ERROR_KEY: reason})
    return [ToolCallEvent(call=call), StopEvent(reason="tool_use")]


async def ndjson_lines(chunks: AsyncIterator[bytes]) -> AsyncGenerator[str, None]:
    """The lines of a newline-delimited JSON stream, split on ``\\n`` only.

    httpx's ``aiter_lines`` splits like ``str.splitlines``, also on U+0085, U+2028, U+2029 and the other
    separators JSON allows raw inside a string, so a model's text holding one broke a line in two. A byte that is
    not UTF-8 is kept as navtui keeps such bytes (``surrogateescape``, ``core/text.py``).
    """
    pending = b""
    async for chunk in chunks:
        pending += chunk
        if b"\n" not in pending:
            continue
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line.rstrip(b"\r").decode("utf-8", "surrogateescape")
    if pending.strip():
        yield pending.rstrip(b"\r").decode("utf-8", "surrogateescape")
