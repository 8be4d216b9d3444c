"""Lenient decoding of native tool-call arguments."""

from __future__ import annotations

from typing import Any

import pytest

from navtui.providers.base import PARSE_ERROR_KEY, RAW_CALL_KEY
from navtui.providers.toolargs import call_ids, decode_arguments, strip_fence


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, {}),
        ("", {}),
        ("   ", {}),
        ({"path": "a.py"}, {"path": "a.py"}),
        ('{"path": "a.py"}', {"path": "a.py"}),
        ('{"path": "a.py",}', {"path": "a.py"}),
        ("{'path': 'a.py', 'force': True}", {"path": "a.py", "force": True}),
        ('```json\n{"path": "a.py"}\n```', {"path": "a.py"}),
        ('"{\\"path\\": \\"a.py\\"}"', {"path": "a.py"}),  # encoded twice
        ('{"content": "a\nb"}', {"content": "a\nb"}),
    ],
)
def test_decodes_what_models_write(raw: Any, expected: dict[str, Any]) -> None:
    assert decode_arguments(raw) == expected


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ('{"path": "a.', "incomplete"),  # cut off at max_tokens: never repaired into a shorter value
        ('["a.py"]', "must be a JSON object"),
        ("read a.py", "not valid JSON"),
        ("42", "must be a JSON object"),
    ],
)
def test_undecodable_arguments_become_a_marker(raw: str, fragment: str) -> None:
    result = decode_arguments(raw)
    assert fragment in result[PARSE_ERROR_KEY]
    assert result[RAW_CALL_KEY] == raw


def test_strip_fence_leaves_unfenced_text_alone() -> None:
    assert strip_fence("```\nx\n```") == "x"
    assert strip_fence("a ``` b") == "a ``` b"


def test_call_ids_count_per_factory() -> None:
    first, second = call_ids(), call_ids()
    assert [first(), first(), second()] == ["call_0", "call_1", "call_0"]


@pytest.mark.parametrize(
    ("raw", "content"),
    [
        ('{"path": "a.py", "content": "print(1)\nprint(2)\n"}', "print(1)\nprint(2)\n"),  # raw newlines
        ('{"path": "a.py", "content": "x\n\n",}', "x\n\n"),  # raw newlines and a trailing comma
        ('{"path": "a.py", "content": "x\\n",}', "x\n"),  # escaped, repaired for the comma
        ('{"path": "a.py", "content": "print(1)\\nprint("x")\\n"}', 'print(1)\nprint("x")\n'),  # bare quotes
        ('{"path": "a.py", "content": "\tindented\n  "}', "\tindented\n  "),  # tabs and trailing spaces
    ],
)
def test_repair_keeps_a_written_files_bytes(raw: str, content: str) -> None:
    """json-repair strips a string's trailing whitespace: a file written through a repaired call keeps its end."""
    assert decode_arguments(raw) == {"path": "a.py", "content": content}


@pytest.mark.parametrize("closed", [True, False], ids=["closed", "cut-off"])
def test_arguments_nested_too_deep_are_an_error_for_the_model_not_a_crash(closed: bool) -> None:
    """A small model stuck repeating '[' (or a hostile server) wrote arguments nested deeper than Python's stack:
    RecursionError ended the whole run (`navtui: RecursionError: ...`, exit 1, over an OpenAI-compatible server)."""
    raw = '{"path": ' + "[" * 100_000 + ("]" * 100_000 + "}" if closed else "")
    decoded = decode_arguments(raw)
    assert (
        decoded[PARSE_ERROR_KEY] == "The arguments are not valid JSON: the JSON is nested too deeply to be arguments."
    )
    assert decoded[RAW_CALL_KEY].startswith('{"path": [[[')


def test_a_deep_tool_call_over_an_openai_server_leaves_the_run_going(fake_server, workspace) -> None:
    from tests.fakes import Text, ToolCall
    from tests.test_cli import navtui

    fake_server.script(ToolCall("read", {}, raw_arguments='{"path": ' + "[" * 100_000 + "]" * 100_000 + "}"))
    fake_server.script(Text("after"))
    args = ("-p", "openai", "-b", fake_server.url + "/v1", "-m", "m", "--print", "go")
    result = navtui(*args, cwd=workspace)
    assert result.returncode == 0 and result.stdout == "after\n", result.stderr[-300:]
    told = fake_server.chat_requests[1].json["messages"][-1]["content"]
    assert "nested too deeply to be arguments" in told
