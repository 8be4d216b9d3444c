"""navtui messages and tools in the OpenAI Chat Completions shape."""

from __future__ import annotations

import hashlib
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


def to_openai_messages(
    system: str, messages: Sequence[AnyMessage], *, images_refused: str | None = None
) -> list[dict[str, Any]]:
    """System first; tool results as ``role: tool`` messages.

    A tool message holds text only, so the images of tool results (an MCP tool's screenshot) follow the run of
    tool messages in one user message that says whose they are. ``images_refused`` (why: the server refused
    images for this model) sends no image at all: each is replaced by a line saying it was left out and why.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    pending: list[dict[str, Any]] = []  # the image parts of the tool results since the last other message
    for message in messages:
        if not isinstance(message, ToolResultMessage) and pending:
            out.append({"role": "user", "content": pending})
            pending = []
        if isinstance(message, UserMessage):
            _add_user(out, _user_content(message, images_refused))
        elif isinstance(message, AssistantMessage):
            entry = _assistant(message)
            if entry is not None:
                out.append(entry)
        elif isinstance(message, ToolResultMessage):
            images = [block for block in message.content if isinstance(block, ImageBlock)]
            text = message.text
            if images and images_refused is not None:
                text += f"\n[{_count(images)} not sent to you: {images_refused}]"
            elif images:
                if not pending:
                    pending.append({"type": "text", "text": "The images the tool results above returned:"})
                pending.append({"type": "text", "text": f"{_count(images)} from {message.tool_name} "
                                f"({message.tool_call_id}):"})  # fmt: skip
                pending.extend(_image_part(block) for block in images)
            out.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": text})
    if pending:
        out.append({"role": "user", "content": pending})
    return out


def _add_user(out: list[dict[str, Any]], content: str | list[dict[str, Any]]) -> None:
    """A user message, merged into a user message right before it (the tool results' images, then the user's
    next words): templates that want roles to alternate (Mistral's, Gemma's) refuse two in a row."""
    last = out[-1] if out else None
    if last is None or last.get("role") != "user":
        out.append({"role": "user", "content": content})
        return
    before, after = last["content"], content
    if isinstance(before, str) and isinstance(after, str):
        last["content"] = f"{before}\n\n{after}"
        return
    parts = [{"type": "text", "text": before}] if isinstance(before, str) else list(before)
    parts += [{"type": "text", "text": after}] if isinstance(after, str) else after
    last["content"] = parts


def has_images(messages: Sequence[AnyMessage]) -> bool:
    return any(
        isinstance(block, ImageBlock)
        for message in messages
        if not isinstance(message, AssistantMessage) and not isinstance(message.content, str)
        for block in message.content
    )


def _count(images: list[ImageBlock]) -> str:
    return "1 image" if len(images) == 1 else f"{len(images)} images"


def _image_part(block: ImageBlock) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}}


def _user_content(message: UserMessage, images_refused: str | None) -> str | list[dict[str, Any]]:
    if isinstance(message.content, str) or not any(isinstance(b, ImageBlock) for b in message.content):
        return message.text
    if images_refused is not None:
        return "".join(
            b.text if isinstance(b, TextBlock) else f"\n[an image, not sent to you: {images_refused}]\n"
            for b in message.content
        )
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "text": block.text})
        else:
            parts.append(_image_part(block))
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


_ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_NINE_ALNUM = re.compile(r"[A-Za-z0-9]{9}")
# The words of the Mistral templates (llama.cpp --jinja) and of vLLM's Mistral tokenizer for any other id.
NINE_CHAR_ID_ERRORS = ("alphanumeric strings with length 9", "with a length of 9")


_MISTRAL_NAMES = re.compile(r"mistral|mixtral|devstral|magistral|codestral|ministral|pixtral", re.IGNORECASE)


def is_mistral(model: str) -> bool:
    """A model named as one of Mistral's (``devstral-small-2507``, ``mistralai/Mistral-Small-3.2-24B``, a GGUF's
    file name): its template takes 9-character tool-call ids only."""
    return _MISTRAL_NAMES.search(model) is not None


def nine_char_id(call_id: str) -> str:
    """A tool-call id as Mistral's templates demand it (9 letters or digits), the same for the same id."""
    if _NINE_ALNUM.fullmatch(call_id):
        return call_id
    number = int.from_bytes(hashlib.sha256(call_id.encode()).digest()[:8], "big")
    return "".join(_ALPHANUMERIC[(number // 62**i) % 62] for i in range(9))


def with_nine_char_ids(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` (the OpenAI shape) with every tool-call id in Mistral's form, calls and results alike."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.get("tool_calls"):
            calls = [{**call, "id": nine_char_id(str(call.get("id") or ""))} for call in message["tool_calls"]]
            message = {**message, "tool_calls": calls}
        elif message.get("role") == "tool":
            message = {**message, "tool_call_id": nine_char_id(str(message.get("tool_call_id") or ""))}
        out.append(message)
    return out
