"""One retry policy for every provider: what is worth another try, how many, and how long to wait.

- Overload and rate limits (408, 409, 425, 429, the 5xx of a server or gateway that failed for now, including
  529, ``overloaded_error``) and connections that drop or end early: up to ``max_retries`` more tries, exponential backoff with jitter, or the server's
  ``retry-after`` when it gives one (a wait longer than ``longest_wait`` is an error that says so instead).
- A server that never answers (the first byte or the next one does not come within the timeout): one more try.
  A local model reading a long prompt on a CPU can be slow and still alive; the timeout is generous
  (``providers.request_timeout``) and the app shows how long it has waited, so the user decides.
- A model whose tool call the server could not parse (Ollama and llama.cpp answer HTTP 500 "error parsing
  tool call"): one more try, then the error goes back to the model as a malformed call it can fix.
- Never: spend limits and exhausted quotas, bad keys, unknown models, a context that overflows (compaction
  handles that), any other 4xx, and the 5xx that say the server will never do it (``NOT_TRANSIENT``: 501 Not
  Implemented, a gateway's 511 asking for a sign-in...).

Before any output reached the user the provider retries by itself (``with_retries``). A response that broke
off after some text is kept as it is (marked as failed, never sent back to the model) and the agent asks again,
within the same budget.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

QUOTA_WORDS = (
    "credit balance",
    "spend limit",
    "spending limit",
    "enforced_spend_limit",
    "insufficient_quota",
    "billing",
    "exceeded your current quota",
)
MODEL_OUTPUT_ERRORS = ("error parsing tool call", "failed to parse tool call", "failed to parse input")


# Server-side statuses that do not pass: asking again gets the same answer (a proxy's 501 for a method or path
# it does not implement, a version it does not speak, a loop, a captive portal's sign-in, a certificate).
NOT_TRANSIENT = frozenset({501, 505, 506, 508, 510, 511, 526})


def retryable_status(status: int | None) -> bool:
    """Statuses worth another try: timeouts, conflicts, "too early", rate limits, and server-side failures
    that pass (500, 502-504, Cloudflare's 52x, 529...), not those in ``NOT_TRANSIENT``."""
    if status is None:
        return False
    return status in (408, 409, 425, 429) or (status >= 500 and status not in NOT_TRANSIENT)


def is_quota_error(text: str) -> bool:
    """A refusal that lasts (spend limit, no credit, quota): retrying only burns the user's time."""
    lowered = text.lower()
    return any(word in lowered for word in QUOTA_WORDS)


def is_context_overflow(text: str) -> bool:
    """The prompt (with room for the answer) does not fit the model's window, in the words OpenAI-compatible
    servers use: OpenAI's and vLLM's "maximum context length", llama.cpp's "exceeds the available context size"
    and, mid-stream, "Context size has been exceeded." (``exceed_context_size_error``). Not Go's timeout, "context
    deadline exceeded" (a gateway's or a proxy's 504): asked again, not compacted."""
    lowered = text.lower().replace("context deadline exceeded", "")
    return "context" in lowered and ("exceed" in lowered or "maximum" in lowered or "length" in lowered)


def is_model_output_error(text: str) -> bool:
    """The server failed to parse what the model wrote (a malformed tool call), not a server failure."""
    lowered = text.lower()
    return any(word in lowered for word in MODEL_OUTPUT_ERRORS)


@dataclass
class RetryPolicy:
    """How many tries and how long between them. ``sleep`` is injectable so tests check schedules, not clocks."""

    max_retries: int = 3
    base_delay: float = 1.0
    max_delay: float = 30.0
    longest_wait: float = 120.0  # a server asking for a longer pause gets an error that says so, not a frozen turn
    timeout_retries: int = 1
    model_output_retries: int = 1
    sleep: Callable[[float], Awaitable[Any]] = field(default=asyncio.sleep, repr=False)

    @classmethod
    def from_settings(cls, settings: Any) -> RetryPolicy:
        return cls(max_retries=int(getattr(settings, "max_retries", cls.max_retries)))

    def retries_for(self, kind: str | None) -> int:
        """How many retries a failure of this kind gets in all."""
        if kind == "timeout":
            return min(self.timeout_retries, self.max_retries)
        if kind == "model_output":
            return min(self.model_output_retries, self.max_retries)
        return self.max_retries

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """The wait before retry ``attempt`` (0-based): ``retry_after`` if given, else base * 2^attempt, jittered.

        The jitter spreads the delay over [0.5, 1.5) of the exponential step, capped at ``max_delay``.
        """
        if retry_after is not None:
            return retry_after
        step = self.base_delay * 2**attempt
        return min(self.max_delay, step * random.uniform(0.5, 1.5))  # noqa: S311 - jitter, not security
