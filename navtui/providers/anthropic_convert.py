"""navtui messages in the Anthropic Messages API shape, with prompt-caching breakpoints.

Signed thinking blocks go back unchanged (the API rejects a tool-use turn whose thinking was edited or
dropped); unsigned thinking from another provider is left out. Tool results become ``tool_result`` blocks of
a user message, consecutive ones merged. ``cache_control`` marks the system prompt and the newest user turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from navtui.config.settings import ProviderSettings
from navtui.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from navtui.providers.base import PARSE_ERROR_KEY, AnyMessage, ChatRequest

EPHEMERAL = {"type": "ephemeral"}
THINKING_BUDGETS = {"low": 2048, "medium": 8192, "high": 16384}
MIN_THINKING_BUDGET = 1024
MAX_OUTPUT = 64000
ADAPTIVE_THINKING = ("claude-opus-4-6", "claude-mythos")  # models that want {"type": "adaptive"}
_ID_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def build_params(request: ChatRequest, model: str, settings: ProviderSettings) -> dict[str, Any]:
    max_tokens = request.max_tokens or settings.max_tokens
    params: dict[str, Any] = {"model": model, "messages": to_anthropic_messages(request.messages), "stream": True}
    if request.system:
        params["system"] = [{"type": "text", "text": request.system, "cache_control": EPHEMERAL}]
    if request.tools:
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in request.tools
        ]
    think = request.think if request.think is not None else settings.think
    level = think if isinstance(think, str) else "medium"  # think=True: the medium budget
    budget = THINKING_BUDGETS.get(level, THINKING_BUDGETS["medium"]) if think not in (None, False) else 0
    if budget and model.startswith(ADAPTIVE_THINKING):
        params["thinking"] = {"type": "adaptive"}
        max_tokens = min(max_tokens + budget, MAX_OUTPUT)
    elif budget >= MIN_THINKING_BUDGET:
        # max_tokens counts thinking too: add the budget so the answer keeps its own allowance.
        params["thinking"] = {"type": "enabled", "budget_tokens": budget}
        max_tokens = min(max_tokens + budget, MAX_OUTPUT)
    else:
        temperature = request.temperature if request.temperature is not None else settings.temperature
        if temperature is not None:
            params["temperature"] = temperature  # the API refuses a temperature together with thinking
    params["max_tokens"] = max_tokens
    return params


def to_anthropic_messages(messages: Sequence[AnyMessage]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            _append(out, "user", _user_blocks(message))
        elif isinstance(message, AssistantMessage):
            _append(out, "assistant", _assistant_blocks(message))
        elif isinstance(message, ToolResultMessage):
            _append(out, "user", [_tool_result(message)])
    _mark_last_user_turn(out)
    return out


def _append(out: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    if not blocks:
        return
    if out and out[-1]["role"] == role:
        out[-1]["content"].extend(blocks)  # the API wants roles to alternate
    else:
        out.append({"role": role, "content": blocks})


def _mark_last_user_turn(out: list[dict[str, Any]]) -> None:
    for message in reversed(out):
        if message["role"] == "user":
            message["content"][-1] = {**message["content"][-1], "cache_control": EPHEMERAL}
            return


def _user_blocks(message: UserMessage) -> list[dict[str, Any]]:
    if isinstance(message.content, str):
        return [{"type": "text", "text": message.content}] if message.content else []
    return [_content_block(block) for block in message.content if not _empty(block)]


def _content_block(block: TextBlock | ImageBlock) -> dict[str, Any]:
    if isinstance(block, ImageBlock):
        source = {"type": "base64", "media_type": block.mime_type, "data": block.data}
        return {"type": "image", "source": source}
    return {"type": "text", "text": block.text}


def _empty(block: TextBlock | ImageBlock) -> bool:
    return isinstance(block, TextBlock) and not block.text


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ThinkingBlock):
            if block.redacted and block.thinking_signature:
                blocks.append({"type": "redacted_thinking", "data": block.thinking_signature})
            elif block.thinking_signature:
                blocks.append({"type": "thinking", "thinking": block.thinking, "signature": block.thinking_signature})
        elif isinstance(block, TextBlock):
            if block.text.strip():
                blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolCall):
            arguments = {} if PARSE_ERROR_KEY in block.arguments else block.arguments
            blocks.append({"type": "tool_use", "id": safe_id(block.id), "name": block.name, "input": arguments})
    return blocks


def _tool_result(message: ToolResultMessage) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": safe_id(message.tool_call_id)}
    if any(isinstance(b, ImageBlock) for b in message.content):
        block["content"] = [_content_block(b) for b in message.content if not _empty(b)]
    elif message.text:
        block["content"] = message.text
    if message.is_error:
        block["is_error"] = True
    return block


def safe_id(call_id: str) -> str:
    """Tool-use ids must match ``^[a-zA-Z0-9_-]+$``; ids from other providers may not."""
    return _ID_UNSAFE.sub("_", call_id) or "call"
