"""The tolerant chat.completion.chunk accumulator, fed the odd shapes real servers send."""

from __future__ import annotations

from typing import Any

import pytest

from navtui.core.errors import ProviderError
from navtui.core.events import TextDelta, ThinkingDelta
from navtui.providers.base import PARSE_ERROR_KEY
from navtui.providers.openai_stream import ChunkAccumulator
from navtui.providers.toolargs import call_ids


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {"id": "c", "object": "chat.completion.chunk", "choices": choices, **extra}


def feed(*chunks: dict[str, Any]) -> tuple[ChunkAccumulator, list[Any]]:
    acc = ChunkAccumulator(call_ids())
    events: list[Any] = []
    for c in chunks:
        events += acc.feed(c)
    return acc, events


def calls(acc: ChunkAccumulator) -> list[tuple[str, str, dict[str, Any]]]:
    return [(c.id, c.name, c.arguments) for c in acc.tool_calls()]


def test_standard_fragments_by_index() -> None:
    acc, _ = feed(
        chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_A", "type": "function",
                                                    "function": {"name": "read", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_B", "function": {"name": "ls", "arguments": "{}"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"pa'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'th": "a.py"}'}}]}),
        chunk({}, finish="tool_calls"),
    )  # fmt: skip
    assert calls(acc) == [("call_A", "read", {"path": "a.py"}), ("call_B", "ls", {})]
    assert acc.stop_reason(True) == "tool_use" and acc.complete


def test_id_and_name_repeated_on_every_delta_are_set_not_appended() -> None:
    pieces = ["{", '"path"', ': "a.py"', "}"]
    acc, _ = feed(
        *[
            chunk({"tool_calls": [{"index": 0, "id": "call_x", "function": {"name": "read", "arguments": p}}],
                   "function_call": {"name": "read:", "arguments": p}})
            for p in pieces
        ]
    )  # fmt: skip
    assert calls(acc) == [("call_x", "read", {"path": "a.py"})]


def test_missing_index_new_id_starts_a_new_call() -> None:
    acc, _ = feed(
        chunk({"tool_calls": [{"id": "a", "function": {"name": "read", "arguments": '{"path":'}}]}),
        chunk({"tool_calls": [{"function": {"arguments": '"x"}'}}]}),
        chunk({"tool_calls": [{"id": "b", "function": {"name": "read", "arguments": '{"path": "y"}'}}]}),
    )
    assert calls(acc) == [("a", "read", {"path": "x"}), ("b", "read", {"path": "y"})]


def test_index_reused_for_different_calls() -> None:
    acc, _ = feed(
        chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "read", "arguments": '{"path": "x"}'}}]}),
        chunk({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "read", "arguments": '{"path": "y"}'}}]}),
    )
    assert calls(acc) == [("a", "read", {"path": "x"}), ("b", "read", {"path": "y"})]


def test_arguments_as_an_object_and_missing_id() -> None:
    acc, _ = feed(chunk({"tool_calls": [{"index": 3, "function": {"name": "read", "arguments": {"path": "a"}}}]}))
    assert calls(acc) == [("call_0", "read", {"path": "a"})]


def test_name_arriving_after_arguments() -> None:
    acc, _ = feed(
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "a"}'}}]}),
        chunk({"tool_calls": [{"index": 0, "id": "late", "function": {"name": "read"}}]}),
    )
    assert calls(acc) == [("late", "read", {"path": "a"})]


def test_legacy_function_call_alone() -> None:
    acc, _ = feed(chunk({"function_call": {"name": "read", "arguments": '{"path": "a"}'}}, finish="function_call"))
    assert calls(acc) == [("call_0", "read", {"path": "a"})]


def test_truncated_arguments_become_a_parse_error() -> None:
    acc, _ = feed(chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "write",
                                                                              "arguments": '{"content": "ha'}}]},
                        finish="length"))  # fmt: skip
    (call,) = acc.tool_calls()
    assert "incomplete" in call.arguments[PARSE_ERROR_KEY]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_fields(field: str) -> None:
    _, events = feed(chunk({field: "thinking..."}), chunk({"content": "answer"}))
    assert [type(e) for e in events] == [ThinkingDelta, TextDelta]
    assert events[0].text == "thinking..." and events[1].text == "answer"


def test_usage_chunk_with_empty_choices_and_cached_tokens() -> None:
    acc, events = feed(
        chunk({"content": "hi"}, finish="stop"),
        chunk(
            None, usage={"prompt_tokens": 100, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 60}}
        ),
    )
    assert events == [TextDelta(text="hi")]
    assert acc.usage is not None and (acc.usage.input, acc.usage.cache_read, acc.usage.output) == (40, 60, 7)


def test_no_usage_and_no_finish_is_incomplete() -> None:
    acc, _ = feed(chunk({"content": "hi"}))
    assert acc.usage is None and not acc.complete
    acc.done = True  # a [DONE] without finish_reason is still a complete answer
    assert acc.complete and acc.stop_reason(False) == "stop"


@pytest.mark.parametrize(
    ("finish", "reason"), [("stop", "stop"), ("length", "length"), ("content_filter", "stop"), ("tool_calls", "stop")]
)
def test_finish_reason_mapping_without_calls(finish: str, reason: str) -> None:
    acc, _ = feed(chunk({}, finish=finish))
    assert acc.stop_reason(False) == reason


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ({"message": "Context size has been exceeded.", "code": 500}, "overflow"),
        ({"message": "an internal error", "code": 500}, "stream"),
        ({"message": "context deadline exceeded", "code": 504}, "stream"),  # Go's timeout (a gateway's), no overflow
        ("plain string", "stream"),
    ],
)
def test_error_objects_raise(error: Any, kind: str) -> None:
    acc = ChunkAccumulator(call_ids())
    with pytest.raises(ProviderError) as raised:
        acc.feed({"error": error})
    assert raised.value.kind == kind and raised.value.retryable == (kind == "stream")
