"""A tree row's kind read from a message line says what the parsed entry says, or nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navtui.core.messages import TextBlock, ThinkingBlock
from navtui.session.entries import parse_entry
from navtui.session.kinds import entry_kind, record_kind
from tests.session.helpers import assistant, call, result, user

MISSING = object()
odd = st.sampled_from([None, 1, 1.5, True, "x", [], {}, MISSING])


def _maybe(draw: st.DrawFn, good: st.SearchStrategy[Any]) -> Any:
    return draw(st.one_of(good, good, good, odd))


def _put(record: dict[str, Any], key: str, value: Any) -> None:
    if value is not MISSING:
        record[key] = value


@st.composite
def text_blocks(draw: st.DrawFn) -> Any:
    return draw(
        st.sampled_from(
            [
                {"type": "text", "text": "done"},
                {"type": "text", "text": "  \n"},
                {"type": "text", "text": 3},
                {"type": "thinking", "thinking": "hmm"},
                {"type": "thinking"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.py"}},
                {"type": "toolCall", "id": "c1", "name": "read"},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": None},
                {"type": "toolCall", "id": 7, "name": "read"},
                {"type": "image", "data": "aGk="},
                {"type": "video"},
                "text",
            ]
        )
    )


VALID = {
    "user_blocks": st.sampled_from([{"type": "text", "text": "done"}, {"type": "image", "data": "aGk="}]),
    "assistant_blocks": st.sampled_from(
        [
            {"type": "text", "text": "done"},
            {"type": "text", "text": " "},
            {"type": "thinking", "thinking": "hmm"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}},
        ]
    ),
}


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant", "toolResult", "bashExecution", None]))
    message: dict[str, Any] = {}
    _put(message, "role", role if role is not None else MISSING)
    _put(message, "timestamp", _maybe(draw, st.just(1)))
    plain = ["user_blocks", "assistant_blocks"][role == "assistant"]
    content = draw(st.one_of(st.lists(VALID[plain], max_size=3), st.lists(text_blocks(), max_size=3), odd))
    _put(message, "content", draw(st.one_of(st.just(content), st.just("plain"))) if role == "user" else content)
    if role == "assistant":
        stops = st.sampled_from(["stop", "toolUse", "tool_use", "error", "aborted", "length", "end_turn", "odd"])
        _put(message, "stopReason", _maybe(draw, stops))
        _put(message, "errorMessage", _maybe(draw, st.sampled_from(["overloaded", ""])))
        _put(message, "usage", _maybe(draw, st.just({"input": 1, "output": 2})))
        if draw(st.booleans()):
            message[draw(st.sampled_from(["stop_reason", "error_message"]))] = "error"
    elif role == "toolResult":
        _put(message, "toolCallId", _maybe(draw, st.just("c1")))
        _put(message, "toolName", _maybe(draw, st.just("read")))
        _put(message, "isError", _maybe(draw, st.booleans()))
        if draw(st.booleans()):
            message["is_error"] = True
    return message


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    record: dict[str, Any] = {"type": draw(st.sampled_from(["message", "message", "custom", 3]))}
    _put(record, "id", _maybe(draw, st.just("e1")))
    _put(record, "parentId", _maybe(draw, st.just("e0")))
    _put(record, "timestamp", _maybe(draw, st.just("2026-01-01T00:00:00.000Z")))
    if draw(st.integers(0, 9)) == 0:
        record["parent_id"] = "e0"
    _put(record, "message", draw(st.one_of(messages(), messages(), messages(), odd)))
    return record


@settings(max_examples=100, deadline=None)
@given(records())
def test_a_kind_read_from_a_line_is_the_parsed_entrys(record: dict[str, Any]) -> None:
    kind = record_kind(record)
    assert kind is None or kind == entry_kind(parse_entry(record))


@pytest.mark.soak  # the same property over four times the lines
@settings(max_examples=400, deadline=None)
@given(records())
def test_soak_a_kind_read_from_a_line_is_the_parsed_entrys(record: dict[str, Any]) -> None:
    test_a_kind_read_from_a_line_is_the_parsed_entrys.hypothesis.inner_test(record)


def _line(message: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "e1",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": message,
    }


def test_the_lines_navtui_and_pi_write_need_no_parse_for_their_kind() -> None:
    thinking = assistant("").model_copy(update={"content": [ThinkingBlock(thinking="hmm"), call("c1")]})
    cases = {
        "user": user("hi").to_json(),
        "assistant": assistant("done").to_json(),
        "assistant-tools": thinking.to_json(),
        "assistant-error": assistant("", stop_reason="error").to_json(),
        "tool": result("c1").to_json(),
        "tool-error": result("c1").model_copy(update={"is_error": True}).to_json(),
        "other": {"role": "bashExecution", "command": "ls"},
    }
    for kind, message in cases.items():
        record = _line(message)
        assert record_kind(record) == kind == entry_kind(parse_entry(record))
    # A user message of blocks, and pi's spelling of a stop for tools.
    blocks = {"role": "user", "content": [TextBlock(text="look").to_json(), {"type": "image", "data": "aGk="}]}
    assert record_kind(_line(blocks)) == "user"
    assert record_kind(_line({**assistant("", call("c1")).to_json(), "stopReason": "toolUse"})) == "assistant-tools"
