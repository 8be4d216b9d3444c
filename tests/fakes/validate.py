"""Invariant I2 on the wire: would a real provider accept the history in this chat request?

Every tool call has exactly one result, results come right after the message that made their calls, ids are
unique and non-empty, no Anthropic assistant message carries content after its tool calls and no text block is
empty. Checked on the JSON the client actually sent, in each provider's own shape.
"""

from __future__ import annotations

from typing import Any

from .wire_http import RecordedRequest


def request_problems(request: RecordedRequest) -> list[str]:
    """Why a provider would reject this chat request's history (empty when it is valid)."""
    body = request.json if isinstance(request.json, dict) else {}
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    if request.path == "/v1/messages":
        return _anthropic(messages)
    return _chat_style(messages)


def _chat_style(messages: list[Any]) -> list[str]:
    """Ollama and OpenAI: ``assistant.tool_calls`` answered by ``role: tool`` messages that follow it."""
    problems: list[str] = []
    seen: set[str] = set()
    open_calls: dict[str, str] | None = None
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            if open_calls is None or call_id not in open_calls:
                problems.append(f"#{index}: tool result {call_id!r} answers no open call")
            else:
                del open_calls[call_id]
            continue
        if open_calls:
            problems.append(f"#{index}: calls {sorted(open_calls)} unanswered before a {role} message")
        open_calls = None
        if role == "assistant":
            calls = message.get("tool_calls") or []
            ids = [str(call.get("id") or "") for call in calls if isinstance(call, dict)]
            for call_id in ids:
                if not call_id:
                    problems.append(f"#{index}: a tool call without an id")
                elif call_id in seen:
                    problems.append(f"#{index}: tool call id {call_id!r} used twice")
                seen.add(call_id)
            open_calls = {call_id: call_id for call_id in ids} or None
    if open_calls:
        problems.append(f"calls {sorted(open_calls)} unanswered at the end")
    return problems


def _anthropic(messages: list[Any]) -> list[str]:
    """Anthropic: ``tool_use`` blocks answered by ``tool_result`` blocks at the start of the next user turn."""
    problems: list[str] = []
    seen: set[str] = set()
    expected: set[str] = set()
    previous_role: str | None = None
    for index, message in enumerate(messages):
        role = message.get("role")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
        if not blocks:
            problems.append(f"#{index}: empty {role} message")
        if role == previous_role:
            problems.append(f"#{index}: two {role} messages in a row")
        previous_role = role
        for block in blocks:
            if block.get("type") == "text" and not str(block.get("text") or "").strip():
                problems.append(f"#{index}: empty text block")
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if expected:
            leading = [b for b in blocks[: len(results)] if b.get("type") == "tool_result"]
            answered = {str(b.get("tool_use_id")) for b in leading}
            if role != "user" or answered != expected or len(leading) != len(results):
                problems.append(f"#{index}: tool_use ids {sorted(expected)} not answered first by the next user turn")
        elif results:
            problems.append(f"#{index}: tool_result without a tool_use right before it")
        expected = set()
        if role == "assistant":
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            for use in uses:
                call_id = str(use.get("id") or "")
                if not call_id:
                    problems.append(f"#{index}: a tool_use without an id")
                elif call_id in seen:
                    problems.append(f"#{index}: tool_use id {call_id!r} used twice")
                seen.add(call_id)
                expected.add(call_id)
            if uses and blocks[-1].get("type") != "tool_use":
                problems.append(f"#{index}: content after the tool_use blocks")
    if expected:
        problems.append(f"tool_use ids {sorted(expected)} unanswered at the end")
    return problems
