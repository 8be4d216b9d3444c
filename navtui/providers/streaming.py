"""What every provider's stream shares: idle timeouts, the retry policy and turning errors into events.

A provider writes one ``_attempt(request)`` async generator that raises ``ProviderError`` for expected
failures; ``with_retries`` retries the retryable ones that happened before any content was yielded and turns
the rest into a single ``ErrorEvent``, so the consumer never sees an exception for an expected failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, TypeVar

from navtui.core.errors import ProviderError
from navtui.core.events import ErrorEvent, ProviderEvent, StopEvent, UsageEvent
from navtui.providers.base import ProviderNotice

T = TypeVar("T")

RETRY_BASE_DELAY = 1.0
RETRY_MAX_DELAY = 30.0
RETRY_AFTER_LIMIT = 120.0  # a server asking for a longer pause gets an error that says so, not a frozen turn


class RetryableError(ProviderError):
    """A failure worth another try (429, 503, 529, overloaded, a dropped connection before any output)."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("retryable", True)
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


def error_event(exc: ProviderError) -> ErrorEvent:
    return ErrorEvent(message=exc.message, kind=exc.kind, hint=exc.hint, status=exc.status, retryable=exc.retryable)


def retry_after_seconds(headers: Any) -> float | None:
    """``retry-after-ms`` or ``retry-after`` (seconds) from response headers, if present and numeric."""
    if headers is None:
        return None
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue
    return None


def backoff_delay(attempt: int, retry_after: float | None) -> float:
    """The wait before retry ``attempt`` (0-based): the server's retry-after, else exponential with jitter."""
    if retry_after is not None:
        return retry_after
    base = min(RETRY_MAX_DELAY, RETRY_BASE_DELAY * 2**attempt)
    return base * random.uniform(0.5, 1.0)  # noqa: S311 - jitter, not security


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
    max_retries: int,
) -> AsyncGenerator[ProviderEvent | ProviderNotice, None]:
    """Run ``attempt`` until it succeeds, fails for good, or yielded content and then failed."""
    tries = 0
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
            retry_after = exc.retry_after if isinstance(exc, RetryableError) else None
            if produced or not exc.retryable or tries >= max_retries:
                yield error_event(exc)
                return
            if retry_after is not None and retry_after > RETRY_AFTER_LIMIT:
                exc.hint = exc.hint or f"the server asks to wait {retry_after:.0f} s; try again later"
                yield error_event(exc)
                return
            delay = backoff_delay(tries, retry_after)
            tries += 1
            yield ProviderNotice(
                text=f"{exc.message}; retrying in {delay:.1f} s (attempt {tries}/{max_retries})",
                level="warning",
            )
            await asyncio.sleep(delay)
