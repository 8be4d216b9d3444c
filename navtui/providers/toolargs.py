"""Decoding tool-call arguments leniently: strict JSON first, then a repair pass, else a parse-error marker.

Models (small local ones above all) write trailing commas, single quotes, raw newlines in strings and code
fences. Those are repaired; what cannot be repaired becomes ``{PARSE_ERROR_KEY: why, RAW_CALL_KEY: text}``
so the agent can answer with an error the model can act on instead of running the tool with ``{}``.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from typing import Any

from navtui.providers.base import PARSE_ERROR_KEY, RAW_CALL_KEY

_FENCE = re.compile(r"^\s*```[\w-]*[ \t]*\n?(.*?)\n?```\s*$", re.DOTALL)
_RAW_LIMIT = 4000  # enough to show the model what it wrote; a whole file is not needed


class ArgumentsError(ValueError):
    """The text is not a JSON object even after repair."""


def strip_fence(text: str) -> str:
    """The inside of a Markdown code fence wrapping the whole text, else the text."""
    match = _FENCE.match(text)
    return match.group(1) if match else text


def loads_lenient(text: str, *, complete: bool = False) -> Any:
    """Parse JSON written by a model: strict, then a Python literal, then json-repair. Raises ArgumentsError.

    ``complete`` says the text is known to be whole (a closed ``</tool_call>``), so missing closing braces
    are a typo to repair rather than a sign the output was cut off.
    """
    try:
        return _loads_lenient(text, complete)
    except RecursionError:  # a small model stuck repeating "[" (or a hostile server): it ended the whole run
        raise ArgumentsError("the JSON is nested too deeply to be arguments") from None


def _loads_lenient(text: str, complete: bool) -> Any:
    text = strip_fence(text).strip()
    if not text:
        raise ArgumentsError("empty text where a JSON object was expected")
    try:
        return json.loads(text)
    except ValueError as exc:
        strict_error = exc
    if text[0] not in "{[":
        raise ArgumentsError(f"invalid JSON ({strict_error})")
    if text[-1] not in "}]" and not complete:
        # Repairing a cut-off object would invent its end (half a file written as if whole): refuse.
        raise ArgumentsError(f"the JSON is incomplete, it stops before its closing brace ({strict_error})")
    escaped = escape_raw_controls(text)
    if escaped != text:
        try:  # raw newlines inside strings are the commonest slip: fix them exactly, bytes kept
            return json.loads(escaped)
        except ValueError:
            text = escaped  # json-repair drops a string's trailing newline when it sees it raw
    try:
        return ast.literal_eval(text)  # {'path': 'a.py', 'force': True}: a Python dict, not JSON
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        pass
    import json_repair  # lazy: only malformed output pays for it

    repaired = json_repair.loads(text)
    if isinstance(repaired, dict) or (isinstance(repaired, list) and repaired):
        return _restore_trailing_space(repaired, text)
    raise ArgumentsError(f"invalid JSON ({strict_error})")


_CONTROL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_raw_controls(text: str) -> str:
    """JSON with the raw newlines, returns and tabs inside double-quoted strings escaped (escapes honoured)."""
    out: list[str] = []
    inside = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = inside
        elif char == '"':
            inside = not inside
        elif inside and char in _CONTROL_ESCAPES:
            out.append(_CONTROL_ESCAPES[char])
            continue
        out.append(char)
    return "".join(out)


_TRAILING_SPACE = re.compile(r'((?:\\[nrt]|[ \t])+)"')


def _restore_trailing_space(value: Any, source: str) -> Any:
    """Give back the trailing newlines and spaces json-repair strips from strings (a file's last newline)."""
    if isinstance(value, dict):
        return {key: _restore_trailing_space(item, source) for key, item in value.items()}
    if isinstance(value, list):
        return [_restore_trailing_space(item, source) for item in value]
    if not isinstance(value, str) or not value:
        return value
    body = json.dumps(value, ensure_ascii=False)[1:-1]
    # The model may have left inner quotes unescaped: match them either way.
    pattern = re.escape(body).replace(re.escape('\\"'), '\\\\?"')
    found = [m.end() for m in re.finditer(pattern, source)]
    if len(found) != 1:
        return value  # not found, or ambiguous: leave it as repaired
    match = _TRAILING_SPACE.match(source, found[0])
    if match is None:
        return value
    return value + json.loads(f'"{match.group(1)}"')


def decode_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    """Arguments as a dict; an object passes through, a string is parsed leniently, failures become a marker."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if not raw.strip():
        return {}
    try:
        value = loads_lenient(raw)
    except ArgumentsError as exc:
        return error_arguments(f"The arguments are not valid JSON: {exc}.", raw)
    if isinstance(value, str):  # arguments JSON-encoded twice
        try:
            value = loads_lenient(value)
        except ArgumentsError:
            pass
    if not isinstance(value, dict):
        return error_arguments(f"The arguments must be a JSON object, got {type(value).__name__}.", raw)
    return value


def error_arguments(message: str, raw: str) -> dict[str, Any]:
    return {PARSE_ERROR_KEY: message, RAW_CALL_KEY: raw[:_RAW_LIMIT]}


def call_ids(prefix: str = "call_") -> Callable[[], str]:
    """A factory of synthetic call ids ``call_0, call_1, ...`` (one counter per provider instance)."""
    counter = iter(range(1_000_000_000))
    return lambda: f"{prefix}{next(counter)}"
