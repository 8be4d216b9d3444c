"""Constrained decoding (``providers.tool_protocol: constrained``): the server's sampler enforces a valid step.

Every response must be one JSON object: ``{"final_answer": "..."}`` or ``{"name": TOOL, "arguments": {...}}``
with arguments valid for that tool's schema. The final answer is always on offer, so a run can always end (a
model made to act first called tools for "say hello" until the turn limit); an answer that claims a change no
tool made is questioned by the agent (``agent/claims.py``). The schema goes to the server as a grammar: Ollama's ``format``,
and ``response_format`` (``json_schema``) for OpenAI-compatible servers (llama.cpp, vLLM, LM Studio). A small
model then cannot write a malformed call, call a tool that does not exist or leave out a required argument.
Tools are described in the system prompt (as in the text protocol); history is written back as the JSON the
model would have produced. A server that ignores the schema still works: its text goes through the text
protocol's scanner.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from navtui.core.events import ErrorEvent, StopEvent, TextDelta, ToolCallEvent
from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCall, ToolSpec
from navtui.providers.base import (
    PARSE_ERROR_KEY,
    RAW_CALL_KEY,
    ChatRequest,
    ProviderStream,
)
from navtui.providers.callshapes import correction
from navtui.providers.textdecode import decode_call_body
from navtui.providers.textproto import ToolCallScanner
from navtui.providers.textprovider import to_text_messages
from navtui.providers.textrender import render_tool_list
from navtui.providers.toolargs import ArgumentsError, error_arguments, loads_lenient
from navtui.providers.wrapped import WrappedProvider

ANSWER_KEY = "final_answer"
_ANSWER_START = re.compile(r'\s*\{\s*"final_answer"\s*:\s*"')
_SCHEMA_NOISE = ("description", "title", "examples", "default")


def step_schema(tools: Sequence[ToolSpec], *, answer: bool = True) -> dict[str, Any]:
    """The JSON schema of one step: a final answer (when ``answer``), or one call of a known tool."""
    final = {
        "type": "object",
        "properties": {ANSWER_KEY: {"type": "string"}},
        "required": [ANSWER_KEY],
        "additionalProperties": False,
    }
    calls = [
        {
            "type": "object",
            "properties": {"name": {"const": tool.name}, "arguments": _bare(tool.parameters)},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    return {"anyOf": [*calls, final] if answer else calls}


def _bare(schema: Any) -> Any:
    """A parameter schema without prose: the grammar needs only the shape."""
    if isinstance(schema, dict):
        return {k: _bare(v) for k, v in schema.items() if k not in _SCHEMA_NOISE or k == "properties"}
    if isinstance(schema, list):
        return [_bare(item) for item in schema]
    return schema


def render_instructions(tools: Sequence[ToolSpec], *, compact: bool) -> str:
    return "\n".join(
        [
            "# Tools",
            "",
            "Reply with exactly one JSON object and nothing else.",
            '- To act, call a tool: an object with "name" (the tool) and "arguments" (its parameters). The result '
            "comes back in a <tool_result> block. Files are created and changed, and commands run, only by tool "
            "calls: writing code in an answer does nothing.",
            f"- When the tools have done the task, or the request needs no tool (a question, an explanation): an "
            f'object with only "{ANSWER_KEY}", a short report to the user as a string. Never report a change that '
            "no tool call made.",
            "",
            render_tool_list(tools, compact=compact),
        ]
    )


def render_step(message: AssistantMessage) -> AssistantMessage:
    """An assistant message written back as the JSON step(s) the model would have produced."""
    thinking = [b for b in message.content if isinstance(b, ThinkingBlock)]
    steps: list[str] = []
    for call in message.tool_calls:
        raw = call.arguments.get(RAW_CALL_KEY)
        if PARSE_ERROR_KEY in call.arguments and isinstance(raw, str):
            steps.append(raw)
        else:
            steps.append(json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False))
    if not steps:
        steps.append(json.dumps({ANSWER_KEY: message.text}, ensure_ascii=False))
    content: list[TextBlock | ThinkingBlock | ToolCall] = [*thinking, TextBlock(text="\n".join(steps))]
    return message.model_copy(update={"content": content})


class ConstrainedProvider(WrappedProvider):
    """Wraps an Ollama or OpenAI-compatible provider; each response is forced into one valid step."""

    tool_protocol = "constrained"

    async def stream(self, request: ChatRequest) -> ProviderStream:
        if not request.tools:  # a summary or a classifier question: plain text
            async with contextlib.aclosing(self.inner.stream(request)) as events:
                async for event in events:
                    yield event
            return
        system = f"{request.system.rstrip()}\n\n{render_instructions(request.tools, compact=request.compact)}"
        inner_request = replace(
            request,
            system=system,
            messages=to_text_messages(request.messages, render_step),
            tools=(),
            response_schema=step_schema(request.tools),
        )
        reader = StepReader(request.tools, self.new_call_id)
        stop: StopEvent | None = None
        async with contextlib.aclosing(self.inner.stream(inner_request)) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    for out in reader.feed(event.text):
                        yield out
                elif isinstance(event, StopEvent):
                    stop = event
                elif isinstance(event, ErrorEvent):
                    yield event
                    return
                else:
                    yield event
        for rest in reader.finish(cut_off=stop is not None and stop.reason == "length"):
            yield rest
        yield StopEvent(reason="tool_use" if reader.calls else (stop.reason if stop else "stop"))


class StepReader:
    """Reads one streamed step. A final answer streams as it comes (its JSON string decoded on the fly)."""

    def __init__(self, tools: Sequence[ToolSpec], new_id: Any) -> None:
        self._tools = {t.name: t for t in tools}
        self._new_id = new_id
        self._buf = ""
        self._answer_from: int | None = None  # where the final answer's string starts in the buffer
        self._shown = 0  # characters of the decoded answer already yielded
        self.calls: list[ToolCall] = []

    def feed(self, text: str) -> list[TextDelta]:
        self._buf += text
        if self._answer_from is None:
            match = _ANSWER_START.match(self._buf)
            if match is None:
                return []
            self._answer_from = match.end()
        decoded = _decode_partial_string(self._buf[self._answer_from :])
        fresh, self._shown = decoded[self._shown :], len(decoded)
        return [TextDelta(text=fresh)] if fresh else []

    def finish(self, *, cut_off: bool = False) -> list[TextDelta | ToolCallEvent]:
        text = self._buf.strip()
        try:
            value = loads_lenient(text, complete=not cut_off) if text.startswith("{") else None
        except ArgumentsError:
            value = None
        if isinstance(value, dict) and isinstance(value.get(ANSWER_KEY), str) and "name" not in value:
            rest = value[ANSWER_KEY][self._shown :]
            return [TextDelta(text=rest)] if rest else []
        if isinstance(value, dict) and ("name" in value or "arguments" in value):
            return self._call(text, value)
        if self._answer_from is not None:
            return []  # an answer cut off mid-string: what streamed is what there is
        return self._as_text_protocol(self._buf)

    def _call(self, text: str, value: dict[str, Any]) -> list[TextDelta | ToolCallEvent]:
        decoded = decode_call_body(json.dumps(value), None, self._tools)
        if decoded.ok and all(name in self._tools for name, _ in decoded.calls):
            return [self._event(name, args) for name, args in decoded.calls]
        name = str(value.get("name") or "unknown")
        message = correction(decoded.error or "unknown tool", name, self._tools, text, native=False)
        return [self._event(name, error_arguments(message, text))]

    def _as_text_protocol(self, text: str) -> list[TextDelta | ToolCallEvent]:
        """The server ignored the schema: read the reply as the text protocol would."""
        scanner = ToolCallScanner(list(self._tools.values()), new_id=self._new_id, strict=True)
        events = [*scanner.feed(text), *scanner.finish()]
        self.calls.extend(scanner.calls)
        return [e for e in events if isinstance(e, TextDelta | ToolCallEvent)]

    def _event(self, name: str, arguments: dict[str, Any]) -> ToolCallEvent:
        call = ToolCall(id=self._new_id(), name=name, arguments=arguments)
        self.calls.append(call)
        return ToolCallEvent(call=call)


_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _decode_partial_string(raw: str) -> str:
    """The decoded prefix of a JSON string body that may still be streaming (stops at the closing quote)."""
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == '"':
            break
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(raw):
            break  # an escape split across chunks: wait for the rest
        kind = raw[index + 1]
        if kind == "u":
            digits = raw[index + 2 : index + 6]
            if len(digits) < 4:
                break
            with contextlib.suppress(ValueError):
                out.append(chr(int(digits, 16)))
            index += 6
            continue
        out.append(_ESCAPES.get(kind, kind))
        index += 2
    return "".join(out)
