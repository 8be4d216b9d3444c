"""Token estimates for the context: bytes/4, calibrated by what the provider reports."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from navtui.core.messages import Usage

if TYPE_CHECKING:
    from navtui.agent.loop import Agent


def estimate_text_tokens(text: str) -> int:
    return (len(text.encode("utf-8")) + 3) // 4


def estimate_message_tokens(message: Any) -> int:
    return estimate_text_tokens(json.dumps(message.to_json(), ensure_ascii=False)) + 4


class ContextBudget:
    """Tracks how full the model's context is.

    After each response the provider's input count for the prompt it just saw is exact; messages added
    since are estimated at bytes/4. Without usage, everything is estimated.
    """

    def __init__(self, window: int | None) -> None:
        self.window = window
        self._calibrated_tokens: int | None = None
        self._calibrated_count = 0

    def observe(self, usage: Usage, agent: Agent) -> None:
        prompt_tokens = usage.context_tokens
        if prompt_tokens > 0:
            # The prompt covered every message but the answer just appended; count the answer as output.
            self._calibrated_tokens = prompt_tokens + usage.output
            self._calibrated_count = len(agent.messages)

    def reset(self) -> None:
        self._calibrated_tokens = None
        self._calibrated_count = 0

    def estimate(self, agent: Agent) -> int:
        messages = agent.messages
        if self._calibrated_tokens is not None and self._calibrated_count <= len(messages):
            tail = messages[self._calibrated_count :]
            return self._calibrated_tokens + sum(estimate_message_tokens(m) for m in tail)
        tools = json.dumps([t.model_dump() for t in agent.tools.specs()])
        return (
            estimate_text_tokens(agent.hooks.system_prompt(agent))
            + estimate_text_tokens(tools)
            + sum(estimate_message_tokens(m) for m in messages)
        )

    def fraction(self, agent: Agent) -> float | None:
        if not self.window:
            return None
        return self.estimate(agent) / self.window
