"""navtui messages and tools in the OpenAI Chat Completions shape."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from navtui.core.messages import AssistantMessage, ImageBlock, TextBlock, ToolResultMessage, ToolSpec, UserMessage
from navtui.providers.base import PARSE_ERROR_KEY, RAW_CALL_KEY, AnyMessage

_VERSIONED = re.compile(r"/v\d+[a-z0-9]*(/|$)")


def normalise_base_url(url: str) -> str:
    """The API root ending in its version (``/v1``): added when missing, kept when given (``/v1beta/openai``)."""
    url = url.strip().rstrip("/").removesuffix("/chat/completions")
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "http", url
    host, slash, path = rest.partition("/")
    if not _VERSIONED.search(f"/{path}"):
        path = f"{path}/v1" if path else "v1"
    return f"{scheme}://{host}/{path}"


def to_openai_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


def to_openai_messages(system: str, messages: Sequence[AnyMessage]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": _user_content(message)})
        elif isinstance(message, AssistantMessage):
            entry = _assistant(message)
            if entry is not None:
                out.append(entry)
        elif isinstance(message, ToolResultMessage):
            out.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": message.text})
    return out


def _user_content(message: UserMessage) -> str | list[dict[str, Any]]:
    if isinstance(message.content, str) or not any(isinstance(b, ImageBlock) for b in message.content):
        return message.text
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "text": block.text})
        else:
            parts.append({"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}})
    return parts


def _assistant(message: AssistantMessage) -> dict[str, Any] | None:
    calls = message.tool_calls
    if not (message.text or calls):
        return None  # reasoning is not sent back: several servers reject it in input messages
    entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if calls:
        entry["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_text(call.arguments)},
            }
            for call in calls
        ]
    return entry


def _arguments_text(arguments: dict[str, Any]) -> str:
    if PARSE_ERROR_KEY in arguments:
        raw = arguments.get(RAW_CALL_KEY)
        return raw if isinstance(raw, str) else "{}"  # what the model wrote, so its fix has context
    return json.dumps(arguments, ensure_ascii=False)
