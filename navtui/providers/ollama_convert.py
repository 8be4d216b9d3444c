"""navtui messages and tool specs in Ollama's ``/api/chat`` shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from navtui.core.messages import AssistantMessage, ImageBlock, ToolCall, ToolResultMessage, ToolSpec, UserMessage
from navtui.providers.base import PARSE_ERROR_KEY, AnyMessage


def to_ollama_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


def to_ollama_messages(
    system: str, messages: Sequence[AnyMessage], *, tool_images: bool = False
) -> list[dict[str, Any]]:
    """System first; assistant tool calls with object arguments; results as ``role: tool`` with ``tool_name``.

    A tool result's images (an MCP tool's screenshot) go along only with ``tool_images``: Ollama answers 400
    to images for a model without vision; the result's text already says an image was there.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    names: dict[str, str] = {}  # call id -> tool name, from the assistant messages seen so far
    for message in messages:
        if isinstance(message, UserMessage):
            out.append(_user(message))
        elif isinstance(message, AssistantMessage):
            entry = _assistant(message)
            if entry is not None:
                out.append(entry)
            names.update({call.id: call.name for call in message.tool_calls})
        elif isinstance(message, ToolResultMessage):
            entry = {
                "role": "tool",
                "content": message.text,
                "tool_name": names.get(message.tool_call_id, message.tool_name),
                "tool_call_id": message.tool_call_id,
            }
            images = [block.data for block in message.content if isinstance(block, ImageBlock)]
            if images and tool_images:
                entry["images"] = images
            out.append(entry)
    return out


def _user(message: UserMessage) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": "user", "content": message.text}
    if not isinstance(message.content, str):
        images = [block.data for block in message.content if isinstance(block, ImageBlock)]
        if images:
            entry["images"] = images
    return entry


def _assistant(message: AssistantMessage) -> dict[str, Any] | None:
    calls = message.tool_calls
    if not (message.text or message.thinking or calls):
        return None  # an aborted or failed reply with nothing in it
    entry: dict[str, Any] = {"role": "assistant", "content": message.text}
    if message.thinking:
        entry["thinking"] = message.thinking
    if calls:
        entry["tool_calls"] = [_call(call) for call in calls]
    return entry


def _call(call: ToolCall) -> dict[str, Any]:
    arguments = {} if PARSE_ERROR_KEY in call.arguments else call.arguments
    return {"id": call.id, "function": {"name": call.name, "arguments": arguments}}
