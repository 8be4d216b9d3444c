"""A tolerant accumulator for OpenAI-compatible ``chat.completion.chunk`` streams.

Servers differ (research-providers.md 3.5): the tool-call ``index`` may be missing, ``id`` and ``function.name``
may repeat on every delta (so they are set, never appended), ``arguments`` may come whole or as an object,
reasoning arrives as ``reasoning_content`` or ``reasoning``, usage may never come, and a stream may end with
neither ``finish_reason`` nor ``[DONE]`` (which is an error, not an empty answer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from navtui.core.errors import ProviderError
from navtui.core.events import TextDelta, ThinkingDelta
from navtui.core.messages import StopReason, ToolCall, Usage
from navtui.providers.retry import is_context_overflow
from navtui.providers.toolargs import decode_arguments

_FINISH: dict[str, StopReason] = {"length": "length", "tool_calls": "tool_use", "function_call": "tool_use"}


@dataclass
class _PendingCall:
    id: str | None = None
    name: str | None = None
    text: str = ""
    obj: dict[str, Any] | None = field(default=None)

    @property
    def started(self) -> bool:
        return bool(self.text) or self.obj is not None


class ChunkAccumulator:
    """Feed parsed chunks; text and reasoning come back at once, tool calls and usage at the end."""

    def __init__(self, new_id: Callable[[], str]) -> None:
        self._new_id = new_id
        self._calls: list[_PendingCall] = []
        self._by_index: dict[int, _PendingCall] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.done = False  # saw data: [DONE]
        self.chunks = 0

    @property
    def complete(self) -> bool:
        return self.finish_reason is not None or self.done

    def feed(self, chunk: dict[str, Any]) -> list[TextDelta | ThinkingDelta]:
        self.chunks += 1
        error = chunk.get("error")
        if error:
            message = error.get("message", error) if isinstance(error, dict) else error
            kind = str(error.get("type") or "") if isinstance(error, dict) else ""
            if is_context_overflow(f"{message} {kind}"):  # the reply filled the window: compact, do not re-run
                raise ProviderError(f"The conversation no longer fits the model's window: {message}", kind="overflow")
            raise ProviderError(f"The server reported an error mid-response: {message}", kind="stream", retryable=True)
        if isinstance(chunk.get("usage"), dict):
            self.usage = _usage(chunk["usage"])
        choices = chunk.get("choices") or []
        if not choices or not isinstance(choices[0], dict):
            return []  # the usage chunk has "choices": []
        choice = choices[0]
        if choice.get("finish_reason"):
            self.finish_reason = str(choice["finish_reason"])
        delta = choice.get("delta") or choice.get("message") or {}
        out: list[TextDelta | ThinkingDelta] = []
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            out.append(ThinkingDelta(text=reasoning))
        content = delta.get("content")
        if isinstance(content, str) and content:
            out.append(TextDelta(text=content))
        refusal = delta.get("refusal")  # OpenAI: the model's refusal, in place of content
        if isinstance(refusal, str) and refusal:
            out.append(TextDelta(text=refusal))
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for item in tool_calls:
                if isinstance(item, dict):
                    self._take_call(item)
        elif isinstance(delta.get("function_call"), dict):  # the legacy single-call field
            self._take_call({"function": delta["function_call"]})
        return out

    def _take_call(self, item: dict[str, Any]) -> None:
        index = item.get("index")
        call_id = item.get("id") or None
        call: _PendingCall | None
        if isinstance(index, int):
            call = self._by_index.get(index)
            if call is not None and call_id and call.id and call_id != call.id and call.started:
                call = None  # a server that reuses index 0 for every call
            if call is None:
                call = self._start(index)
        else:
            last = self._calls[-1] if self._calls else None
            fresh = last is None or (call_id is not None and last.id is not None and call_id != last.id)
            call = self._start(None) if fresh else last
        assert call is not None
        if call_id:
            call.id = str(call_id)
        function = item.get("function") or {}
        if function.get("name"):
            call.name = str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, dict):
            call.obj = arguments
        elif isinstance(arguments, str):
            call.text += arguments

    def _start(self, index: int | None) -> _PendingCall:
        call = _PendingCall()
        self._calls.append(call)
        if index is not None:
            self._by_index[index] = call
        return call

    def tool_calls(self) -> list[ToolCall]:
        calls = []
        for pending in self._calls:
            if not pending.name and not pending.started:
                continue
            arguments = pending.obj if pending.obj is not None else decode_arguments(pending.text)
            calls.append(ToolCall(id=pending.id or self._new_id(), name=pending.name or "unknown", arguments=arguments))
        return calls

    def stop_reason(self, has_calls: bool) -> StopReason:
        if has_calls:
            return "tool_use"
        reason = _FINISH.get(self.finish_reason or "", "stop")
        return "stop" if reason == "tool_use" else reason  # "tool_calls" with no decodable call


def _usage(raw: dict[str, Any]) -> Usage:
    prompt = int(raw.get("prompt_tokens") or 0)
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
    return Usage(input=max(0, prompt - cached), output=int(raw.get("completion_tokens") or 0), cache_read=cached)
