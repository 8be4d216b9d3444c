"""The text tool-call scanner: tricky and malformed model output, fed whole, split at every position, char by char."""

from __future__ import annotations

from typing import Any

import pytest

from navtui.core.events import TextDelta, ThinkingDelta, ToolCallEvent
from navtui.core.messages import ToolCall, ToolSpec
from navtui.providers.base import PARSE_ERROR_KEY, RAW_CALL_KEY, parse_error
from navtui.providers.textproto import (
    ParseFailureCounter,
    ToolCallScanner,
    render_call,
    render_result,
    render_tool_instructions,
)
from tests.providers.support import TOOLS

LS = ToolSpec(
    name="ls",
    description="List a directory.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)

Outcome = tuple[Any, ...]

JSON_READ = '<tool_call>{"name": "read", "arguments": {"path": "a.py"}}</tool_call>'
CODE = 'if a < b and c </b> d:\n    html = "</div><p>"\n    return {"k": [1, 2]}\n'

# (id, model text, expected outcome): ("text", s) | ("think", s) | ("call", name, args) | ("error", name, fragment)
CASES: list[tuple[str, str, list[Outcome]]] = [
    ("plain text", "Hello, world.", [("text", "Hello, world.")]),
    ("json call", JSON_READ, [("call", "read", {"path": "a.py"})]),
    (
        "text around a call",
        f"Let me look.\n{JSON_READ}\nDone.",
        [("text", "Let me look.\n"), ("call", "read", {"path": "a.py"}), ("text", "\nDone.")],
    ),
    (
        "two calls in one message",
        JSON_READ + "\n" + JSON_READ.replace("a.py", "b.py"),
        [("call", "read", {"path": "a.py"}), ("text", "\n"), ("call", "read", {"path": "b.py"})],
    ),
    (
        "call followed by invented output",
        f'{JSON_READ}\n<tool_result name="read">print(1)</tool_result>\nThe file prints 1.',
        [("call", "read", {"path": "a.py"}), ("text", "\n")],
    ),
    (
        "call followed by invented tool_response",
        f"{JSON_READ}<tool_response>fake</tool_response>",
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "tool_result before any call is just text",
        "Results come back as <tool_result> blocks.",
        [("text", "Results come back as <tool_result> blocks.")],
    ),
    (
        "nested braces inside strings",
        '<tool_call>{"name": "write", "arguments": {"path": "a.py", "content": "d = {\\"a\\": {1: [2, {3}]}}"}}'
        "</tool_call>",
        [("call", "write", {"path": "a.py", "content": 'd = {"a": {1: [2, {3}]}}'})],
    ),
    (
        "close tag inside a JSON string",
        '<tool_call>{"name": "write", "arguments": {"path": "t.md", "content": "use </tool_call> to end"}}</tool_call>',
        [("call", "write", {"path": "t.md", "content": "use </tool_call> to end"})],
    ),
    (
        "code fence around the JSON",
        '<tool_call>\n```json\n{"name": "read", "arguments": {"path": "a.py"}}\n```\n</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "trailing commas",
        '<tool_call>{"name": "read", "arguments": {"path": "a.py",},}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "single quotes",
        "<tool_call>{'name': 'read', 'arguments': {'path': 'a.py'}}</tool_call>",
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "unescaped newline in a string",
        '<tool_call>{"name": "write", "arguments": {"path": "a.py", "content": "line1\nline2"}}</tool_call>',
        [("call", "write", {"path": "a.py", "content": "line1\nline2"})],
    ),
    (
        "missing closing brace",
        '<tool_call>{"name": "read", "arguments": {"path": "a.py"}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "python literal",
        "<tool_call>{'name': 'multi', 'arguments': {'paths': ['a'], 'force': True}}</tool_call>",
        [("call", "multi", {"paths": ["a"], "force": True})],
    ),
    (
        "parameters instead of arguments",
        '<tool_call>{"name": "read", "parameters": {"path": "a.py"}}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "arguments as a JSON string",
        '<tool_call>{"name": "read", "arguments": "{\\"path\\": \\"a.py\\"}"}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "name attribute with JSON arguments",
        '<tool_call name="read">{"path": "a.py"}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "xml parameters with code containing < and </",
        f'<tool_call name="write">\n<parameter name="path">a.py</parameter>\n'
        f'<parameter name="content">\n{CODE}</parameter>\n</tool_call>',
        [("call", "write", {"path": "a.py", "content": CODE})],
    ),
    (
        "xml parameter containing the close tag",
        '<tool_call name="write"><parameter name="path">t.py</parameter><parameter name="content">'
        's = "</tool_call>"\nt = 1\n</parameter></tool_call>',
        [("call", "write", {"path": "t.py", "content": 's = "</tool_call>"\nt = 1\n'})],
    ),
    (
        "xml parameter containing </parameter> mid-value",
        '<tool_call name="write"><parameter name="path">p.xml</parameter><parameter name="content">'
        "<a></parameter>x</a></parameter></tool_call>",
        [("call", "write", {"path": "p.xml", "content": "<a></parameter>x</a>"})],
    ),
    (
        "qwen3-coder function form with typed values",
        '<tool_call>\n<function=multi>\n<parameter=paths>\n["a", "b"]\n</parameter>\n'
        "<parameter=limit>\n5\n</parameter>\n<parameter=force>\ntrue\n</parameter>\n</function>\n</tool_call>",
        [("call", "multi", {"paths": ["a", "b"], "limit": 5, "force": True})],
    ),
    (
        "single-quoted name attribute",
        "<tool_call name='read'><parameter name='path'>a.py</parameter></tool_call>",
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "unclosed tag at end of stream, complete JSON",
        'Reading. <tool_call>{"name": "read", "arguments": {"path": "a.py"}}',
        [("text", "Reading. "), ("call", "read", {"path": "a.py"})],
    ),
    (
        "unclosed tag at end of stream, truncated JSON",
        '<tool_call>{"name": "write", "arguments": {"path": "a.py", "content": "half a fi',
        [("error", "write", "the JSON is incomplete")],
    ),
    (
        "unclosed xml parameter at end of stream",
        '<tool_call name="write"><parameter name="path">a.py</parameter><parameter name="content">def f(',
        [("error", "write", 'parameter name="content"> is never closed')],
    ),
    (
        "undecodable garbage",
        "<tool_call>read the file a.py please</tool_call>",
        [("error", "unknown", "no JSON object")],
    ),
    (
        "missing name",
        '<tool_call>{"arguments": {"path": "a.py"}}</tool_call>',
        [("error", "unknown", 'no "name"')],
    ),
    ("empty block", "<tool_call></tool_call>", [("error", "unknown", "empty")]),
    (
        "arguments that are not an object",
        '<tool_call>{"name": "read", "arguments": ["a.py"]}</tool_call>',
        [("error", "read", "must be a JSON object")],
    ),
    (
        "tool name in another case",
        '<tool_call>{"name": "Read", "arguments": {"path": "a.py"}}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "functions. prefix",
        '<tool_call>{"name": "functions.read", "arguments": {"path": "a.py"}}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "unknown tool name is kept for the agent to reject",
        '<tool_call>{"name": "frobnicate", "arguments": {}}</tool_call>',
        [("call", "frobnicate", {})],
    ),
    ("partial opener at end of stream is text", "look at <tool_ca", [("text", "look at <tool_ca")]),
    ("a longer tag name is not an opener", "the <tool_calls> element", [("text", "the <tool_calls> element")]),
    ("html-ish text", "a <b>bold</b> and 1 < 2 > 0", [("text", "a <b>bold</b> and 1 < 2 > 0")]),
    (
        "think block at the start",
        "<think>Need the file.</think>\nReading it.",
        [("think", "Need the file."), ("text", "Reading it.")],
    ),
    ("think tag after text is text", "Use <think> tags.", [("text", "Use <think> tags.")]),
    (
        "a list of calls in one block",
        '<tool_call>[{"name": "read", "arguments": {"path": "a"}}, {"name": "read", "arguments": {"path": "b"}}]'
        "</tool_call>",
        [("call", "read", {"path": "a"}), ("call", "read", {"path": "b"})],
    ),
    (
        "tool name as the only key",
        '<tool_call>{"read": {"path": "a.py"}}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "flattened arguments",
        '<tool_call>{"name": "read", "path": "a.py"}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "openai function shape",
        '<tool_call>{"function": {"name": "read", "arguments": "{\\"path\\": \\"a.py\\"}"}}</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "prose inside the block",
        '<tool_call>Calling read now: {"name": "read", "arguments": {"path": "a.py"}} ok</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "newlines and spaces around the JSON",
        '<tool_call>\n\n  {"name": "read", "arguments": {"path": "a.py"}}  \n</tool_call>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "invented output after two calls",
        JSON_READ + JSON_READ.replace("a.py", "b.py") + "<tool_result>x</tool_result><tool_call>",
        [("call", "read", {"path": "a.py"}), ("call", "read", {"path": "b.py"})],
    ),
    # ------------------------------------------------------------------ the shapes small models write
    (
        "bare JSON object",
        '{"name": "read", "arguments": {"path": "README.md"}}',
        [("call", "read", {"path": "README.md"})],
    ),
    (
        "bare JSON after a line of text, text after it",
        'I will read it.\n{"name": "read", "arguments": {"path": "a.py"}}\nThen answer.',
        [("text", "I will read it.\n"), ("call", "read", {"path": "a.py"}), ("text", "\nThen answer.")],
    ),
    (
        "bare JSON with arguments as a JSON string",
        '{"name": "read", "arguments": "{\\"path\\": \\"a.py\\"}"}',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "json fence",
        'Reading:\n```json\n{"name": "read", "arguments": {"path": "a.py"}}\n```\n',
        [("text", "Reading:\n"), ("call", "read", {"path": "a.py"}), ("text", "\n")],
    ),
    (
        "fence without a language",
        '```\n{"name": "write", "arguments": {"path": "h.py", "content": "print(1)\\n"}}\n```',
        [("call", "write", {"path": "h.py", "content": "print(1)\n"})],
    ),
    (
        "tools block",
        '<tools>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tools>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "function tag with JSON arguments",
        '<function=read>{"path": "a.py"}</function>',
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "function tag with parameters, no tool_call around it",
        "<function=read>\n<parameter=path>\na.py\n</parameter>\n</function>",
        [("call", "read", {"path": "a.py"})],
    ),
    (
        "a python sample is text, even when it holds a call-shaped dict",
        '```python\n{"name": "read", "arguments": {}}\n```\nDone.',
        [("text", '```python\n{"name": "read", "arguments": {}}\n```\nDone.')],
    ),
    (
        "a call-shaped object naming no tool gets the list of tools",
        '{"name": "create hello.py", "arguments": {"path": "hello.py", "content": "print(1)"}}',
        [("error", "create hello.py", "There is no tool named 'create hello.py'")],
    ),
    (
        "a JSON answer that is no call is text",
        '{"debug": true, "port": 8080}\nThat is the config.',
        [("text", '{"debug": true, "port": 8080}\nThat is the config.')],
    ),
    (
        "a brace inside a line is text",
        'Write {"name": "read"} in a block.',
        [("text", 'Write {"name": "read"} in a block.')],
    ),
    ("inline code opening a line is text", "`x` is a variable", [("text", "`x` is a variable")]),
    (
        "a code sample after a JSON fence is text",
        '```json\n{"a": 1}\n```\n```\n{"b": 2}\n```',
        [("text", '```json\n{"a": 1}\n```\n```\n{"b": 2}\n```')],
    ),
    (
        "bare JSON naming a known tool that cannot be read",
        '{"name": "read", "arguments": ["a.py"]}',
        [("error", "read", "could not be read")],
    ),
    (
        "fenced call cut off by the end of the reply",
        '```json\n{"name": "write", "arguments": {"path": "a.py", "content": "half',
        [("error", "write", "the reply ended inside it")],
    ),
    (
        "tools block that cannot be read",
        "<tools>read a.py</tools>",
        [("error", "unknown", "no JSON object")],
    ),
    (
        "xml integer parameter",
        '<tool_call name="read"><parameter name="path">a.py</parameter><parameter name="offset">40</parameter>'
        "</tool_call>",
        [("call", "read", {"path": "a.py", "offset": 40})],
    ),
]


def scan(text: str, cuts: list[int], *, strict: bool = True) -> list[TextDelta | ThinkingDelta | ToolCallEvent]:
    scanner = ToolCallScanner(TOOLS, strict=strict)
    events: list[Any] = []
    start = 0
    for cut in [*cuts, len(text)]:
        events += scanner.feed(text[start:cut])
        start = cut
    return events + scanner.finish()


def outcome(events: list[Any]) -> list[Outcome]:
    out: list[Outcome] = []
    for event in events:
        if isinstance(event, TextDelta | ThinkingDelta):
            kind = "text" if isinstance(event, TextDelta) else "think"
            if out and out[-1][0] == kind:
                out[-1] = (kind, out[-1][1] + event.text)
            else:
                out.append((kind, event.text))
        else:
            call = event.call
            error = parse_error(call)
            out.append(("error", call.name, error) if error else ("call", call.name, call.arguments))
    return out


def matches(got: list[Outcome], expected: list[Outcome]) -> bool:
    if len(got) != len(expected):
        return False
    for g, e in zip(got, expected, strict=True):
        if e[0] == "error":
            if g[0] != "error" or g[1] != e[1] or e[2] not in g[2]:
                return False
        elif g != e:
            return False
    return True


def splits(text: str) -> list[list[int]]:
    """Whole, every two-way split, and one character at a time."""
    return [[], *[[i] for i in range(1, len(text))], list(range(1, len(text)))]


@pytest.mark.parametrize(("text", "expected"), [(t, e) for _, t, e in CASES], ids=[c[0] for c in CASES])
def test_scanner_outcome_is_the_same_however_the_text_is_split(text: str, expected: list[Outcome]) -> None:
    for cuts in splits(text):
        got = outcome(scan(text, cuts))
        assert matches(got, expected), f"split at {cuts[:3]}{'...' if len(cuts) > 3 else ''}: {got}"


@pytest.mark.parametrize("text", [t for _, t, e in CASES if any(o[0] in ("call", "error") for o in e)])
def test_partial_tags_never_reach_the_screen(text: str) -> None:
    for cuts in splits(text):
        shown = "".join(e.text for e in scan(text, cuts) if isinstance(e, TextDelta))
        assert "<tool_c" not in shown and "<tool_r" not in shown and "</tool" not in shown


def test_text_is_released_as_soon_as_it_cannot_be_a_tag() -> None:
    scanner = ToolCallScanner(TOOLS)
    assert outcome(scanner.feed("Hello <b")) == [("text", "Hello <b")]
    assert scanner.feed("<tool_") == []  # held back: it may become a tag
    assert outcome(scanner.feed("x")) == [("text", "<tool_x")]


def test_the_scanner_stops_once_the_model_invents_output() -> None:
    scanner = ToolCallScanner(TOOLS)
    scanner.feed(JSON_READ + "<tool_result>")
    assert scanner.stopped and scanner.dropped_invented_output
    assert scanner.feed("more invented text") == []


def test_parse_errors_carry_a_fix_hint_and_the_raw_text() -> None:
    text = "<tool_call>{name: }</tool_call>"
    (event,) = scan(text, [])
    assert isinstance(event, ToolCallEvent)
    message = event.call.arguments[PARSE_ERROR_KEY]
    assert "could not be read" in message and 'no "name" field' in message
    assert '<tool_call>\n{"name": "read", "arguments": {"path": ""}}\n</tool_call>' in message
    assert event.call.arguments[RAW_CALL_KEY] == text


def test_ids_are_synthetic_and_unique() -> None:
    events = scan(JSON_READ * 3, [])
    assert [e.call.id for e in events] == ["call_0", "call_1", "call_2"]


# ---------------------------------------------------------------------- leak mode (native-tools models)
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Sure. {JSON_READ}", [("text", "Sure. "), ("call", "read", {"path": "a.py"})]),
        (
            '<tool_call>{"name": "nope", "arguments": {}}</tool_call>',
            [("error", "nope", "There is no tool named 'nope'")],
        ),
        ("<tool_call>not json</tool_call>", [("text", "<tool_call>not json</tool_call>")]),
        ("plain", [("text", "plain")]),
        ('{"name": "read", "arguments": {"path": "a.py"}}', [("call", "read", {"path": "a.py"})]),
        (
            '```json\n{"name": "nope", "arguments": {}}\n```',
            [("error", "nope", "the tools are: read, write, multi")],
        ),
        ('<function=read>{"path": "a.py"}</function>', [("call", "read", {"path": "a.py"})]),
    ],
)
def test_leak_mode_takes_only_well_formed_calls_to_known_tools(text: str, expected: list[Outcome]) -> None:
    for cuts in splits(text):
        got = outcome(scan(text, cuts, strict=False))
        assert matches(got, expected), got


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "read", "arguments": "a.py"}</tool_call>',
        '{"name": "read", "arguments": ["a.py"]}',
        "<tool_call>\n<function=read>\n<parameter=path>\na.py\n</tool_call>",
    ],
)
def test_leak_mode_corrects_an_attempt_at_a_known_tool(text: str) -> None:
    """A native model that tried to call read as text gets the exact format back, not the end of the run."""
    for cuts in [[], list(range(1, len(text)))]:
        got = outcome(scan(text, cuts, strict=False))
        assert len(got) == 1 and got[0][:2] == ("error", "read"), got
        assert "tool-calling interface" in got[0][2] and '{"name": "read", "arguments": {"path": ' in got[0][2]


# ---------------------------------------------------------------------- rendering
def test_instructions_show_both_forms_and_every_parameter() -> None:
    text = render_tool_instructions((*TOOLS, LS))
    assert '<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>' in text
    assert '<tool_call name="write">' in text and "never JSON-escaped" in text
    assert "- path (string, required): File to read" in text
    assert "- offset (integer, optional) (default null)" in text
    assert "- paths (array of string, required)" in text
    assert "Never write a <tool_result> yourself" in text
    assert render_tool_instructions([]) == ""


def test_instructions_hold_no_value_a_small_model_could_copy_into_a_wrong_call() -> None:
    """The 0.5B model answered "say hello" with the example's print("hello <world>"): no sample code, no paths."""
    for compact in (False, True):
        text = render_tool_instructions(TOOLS, compact=compact)
        assert "print(" not in text and "src/" not in text and "path/to" not in text and "hello" not in text


def test_compact_instructions_are_one_line_a_tool() -> None:
    text = render_tool_instructions(TOOLS, compact=True)
    assert "- read(path: string, offset?: integer): Read a file." in text
    assert "### read" not in text and len(text) < len(render_tool_instructions(TOOLS))


def test_instructions_without_a_writer_show_a_real_tool() -> None:
    text = render_tool_instructions(TOOLS[:1])
    assert '<tool_call>\n{"name": "read", "arguments": {"path": "."}}\n</tool_call>' in text
    assert 'name="write"' not in text


def test_the_instruction_example_parses_back() -> None:
    text = render_tool_instructions((*TOOLS, LS))
    block = text[text.index("<tool_call>") : text.index("</tool_call>") + len("</tool_call>")]
    (event,) = scan(block, [])
    assert (event.call.name, event.call.arguments) == ("ls", {"path": "."})


@pytest.mark.parametrize(
    "arguments",
    [{"path": "a.py"}, {"path": "a.py", "content": CODE}, {"paths": ["x"], "limit": 3}, {}],
)
def test_rendered_calls_parse_back_to_the_same_call(arguments: dict[str, Any]) -> None:
    name = "write" if "content" in arguments else ("multi" if "paths" in arguments else "read")
    text = render_call(ToolCall(id="c1", name=name, arguments=arguments))
    (event,) = scan(text, [])
    assert (event.call.name, event.call.arguments) == (name, arguments)


def test_a_malformed_call_renders_as_what_the_model_wrote() -> None:
    raw = "<tool_call>{broken</tool_call>"
    call = ToolCall(id="c", name="read", arguments={PARSE_ERROR_KEY: "bad", RAW_CALL_KEY: raw})
    assert render_call(call) == raw


def test_result_rendering() -> None:
    assert render_result("read", "x = 1") == '<tool_result name="read">\nx = 1\n</tool_result>'
    assert 'error="true"' in render_result("read", "boom", is_error=True)


def test_failure_counter_counts_consecutive_failed_responses() -> None:
    bad = ToolCall(id="b", name="read", arguments={PARSE_ERROR_KEY: "x"})
    good = ToolCall(id="g", name="read", arguments={"path": "a"})
    counter = ParseFailureCounter()
    assert not counter.record([bad]) and not counter.record([bad])
    assert not counter.record([good])  # reset
    assert [counter.record([bad]) for _ in range(3)] == [False, False, True]
    counter.record([])  # a plain answer neither counts nor resets
    assert counter.count == 3
