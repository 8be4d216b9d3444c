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
