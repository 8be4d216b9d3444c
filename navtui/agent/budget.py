"""Token estimates for the context: bytes/4, calibrated by what the provider reports; the window's limits."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from navtui.core.context_messages import messages_tokens
from navtui.core.messages import Usage
from navtui.core.tokens import estimate_message_tokens, estimate_text_tokens

__all__ = ["ContextBudget", "ContextLimits", "estimate_message_tokens", "estimate_text_tokens"]

if TYPE_CHECKING:
    from navtui.providers.base import AnyMessage
    from navtui.tools.base import ToolRegistry


class Measured(Protocol):
    """What the budget reads of an agent (``loop.Agent`` is one): its messages, the tools it offers and the
    system prompt of its next request."""

    @property
    def messages(self) -> Sequence[AnyMessage]: ...

    @property
    def tools(self) -> ToolRegistry: ...

    def request_system_prompt(self) -> str: ...


# A reported prompt below half the estimate is a cache-hit count (Ollama), not the prompt's size.
MIN_TRUSTED_RATIO = 0.5
MAX_RATIO = 3.0
# A prompt this close to the whole window was probably cut to fit: Ollama and llama.cpp drop the oldest
# tokens silently instead of failing, so the model no longer sees the start of the conversation.
FULL_WINDOW_RATIO = 0.97


class ContextBudget:
    """Tracks how full the model's context is.

    After each response the provider's input count for the prompt it just saw is exact; messages added
    since are estimated at bytes/4. Without usage, everything is estimated.
    """

    def __init__(self, window: int | None) -> None:
        self.window = window
        self._calibrated_tokens: int | None = None
        self._calibrated_count = 0
        # Real tokens per estimated token, learnt from usage; applied to estimates after the history changes.
        self.ratio = 1.0

    def observe(self, usage: Usage, agent: Measured) -> None:
        # The files in play (edits protocol) are chosen afresh for each request: counted apart, never calibrated.
        prompt_tokens = usage.context_tokens - _files(agent)
        if prompt_tokens > 0:
            raw = self.raw_estimate(agent, agent.messages[:-1])
            if raw and prompt_tokens < raw * MIN_TRUSTED_RATIO:
                return  # a server that counts only the uncached part of the prompt: not the context size
            if raw:
                self.ratio = min(max(prompt_tokens / raw, MIN_TRUSTED_RATIO), MAX_RATIO)
            # The prompt covered every message but the answer just appended; count the answer as output.
            self._calibrated_tokens = prompt_tokens + usage.output
            self._calibrated_count = len(agent.messages)

    def calibrate(self, tokens: int, agent: Measured) -> None:
        """Take ``tokens`` (the server's own count of the whole request, as it stands) as exact."""
        raw = self.raw_estimate(agent, agent.messages)
        if raw:
            self.ratio = min(max(tokens / raw, MIN_TRUSTED_RATIO), MAX_RATIO)
        self._calibrated_tokens = tokens
        self._calibrated_count = len(agent.messages)

    def truncation_warning(self, usage: Usage) -> str | None:
        """A warning when the server reports a prompt that filled the whole window (it was likely cut)."""
        if not self.window or usage.context_tokens < self.window * FULL_WINDOW_RATIO:
            return None
        return (
            f"The prompt filled the model's whole window ({usage.context_tokens} of {self.window} tokens): the server "
            "may have dropped the start of the conversation. Compact it (/compact) or use a larger window "
            "(providers.num_ctx_cap)."
        )

    def reset(self) -> None:
        self._calibrated_tokens = None
        self._calibrated_count = 0

    def estimate(self, agent: Measured) -> int:
        messages = agent.messages
        if self._calibrated_tokens is not None and self._calibrated_count <= len(messages):
            tail = messages_tokens(messages, self._calibrated_count)
            return self._calibrated_tokens + int(self.ratio * tail) + _files(agent)
        return int(self.ratio * self.raw_estimate(agent, messages)) + _files(agent)

    def raw_estimate(self, agent: Measured, messages: Any) -> int:
        """bytes/4 of the system prompt, the tool specs (when they are sent) and ``messages``, uncalibrated.

        A provider that shows the files in play (the edits protocol) leaves the ``<attached_file>`` copies out of
        its requests (the file is there afresh, whole or as the lines that matter), so they do not count: a
        370-line @path file, counted, left no room for even those lines and started a compaction after the first
        reply, which ran the 1.5B's run out of time (the eval's big_repo)."""
        provider = getattr(agent, "provider", None)
        offered = getattr(provider, "offers_tools", True)
        tools = json.dumps([t.model_dump() for t in agent.tools.specs()]) if offered else ""
        copies = attached_tokens(messages) if getattr(provider, "wants_files", False) is True else 0
        return (
            estimate_text_tokens(agent.request_system_prompt())
            + estimate_text_tokens(tools)
            + messages_tokens(messages)
            - copies
        )

    def fraction(self, agent: Measured) -> float | None:
        if not self.window:
            return None
        return self.estimate(agent) / self.window


_ATTACHED_BLOCK = re.compile(r'\n*<attached_file path="[^"]+"[^>]*>\n.*?</attached_file>\n?', re.DOTALL)


def attached_tokens(messages: Any) -> int:
    """The estimated tokens of the ``<attached_file>`` copies in the user's messages."""
    total = 0
    for message in messages:
        content = getattr(message, "content", None)
        if getattr(message, "role", None) == "user" and isinstance(content, str) and "<attached_file" in content:
            total += sum(estimate_text_tokens(block.group(0)) for block in _ATTACHED_BLOCK.finditer(content))
    return total


def _files(agent: Any) -> int:
    files = getattr(agent, "files_tokens", 0)
    return files if isinstance(files, int) else 0


LARGE_WINDOW = 65536


@dataclass(frozen=True)
class ContextLimits:
    """How much of a window may fill before pruning/compaction, and what compaction keeps (docs/context.md).

    Windows over 64k follow omp: reserve = max(15% of the window, 16384), keep the newest 20000 tokens. Smaller
    local windows reserve a quarter (the two rules meet at 64k) and keep a fifth, so a compaction frees room.
    """

    window: int
    reserve: int
    keep_recent: int
    summary_tokens: int
    prune_protect: int
    prune_min_savings: int

    @classmethod
    def for_window(
        cls, window: int, *, reserve_tokens: int | None = None, keep_recent_tokens: int | None = None
    ) -> ContextLimits:
        if reserve_tokens is not None:
            reserve = min(reserve_tokens, window // 2)
        elif window > LARGE_WINDOW:
            reserve = max(int(window * 0.15), 16384)
        else:
            reserve = window // 4
        keep = keep_recent_tokens if keep_recent_tokens is not None else min(20000, window // 5)
        return cls(
            window=window,
            reserve=reserve,
            keep_recent=min(keep, window // 2),
            summary_tokens=max(256, min(int(reserve * 0.8), window // 5, 8192)),
            prune_protect=min(40000, window // 4),
            prune_min_savings=min(20000, window // 10),
        )

    @property
    def threshold(self) -> int:
        """Above this the context is pruned, then compacted."""
        return self.window - self.reserve

    @property
    def hard_limit(self) -> int:
        """No request goes out bigger than this: half the reserve stays free for the answer."""
        return self.window - self.reserve // 2
