"""Decoding the inside of one ``<tool_call>`` block: the JSON form or the XML parameter form.

JSON form (Hermes/Qwen): ``{"name": "read", "arguments": {"path": "a.py"}}``, possibly fenced, with
``parameters``/``args``/``input`` for ``arguments`` and ``tool``/``function`` for ``name``, or with the name in
the opening tag (``<tool_call name="read">{"path": "a.py"}``). XML form: ``<parameter name="path">a.py</parameter>``
(navtui's) or ``<function=read><parameter=path>a.py</parameter></function>`` (Qwen3-coder). Parameter values
are raw text, coerced to the schema's type when it is not a string.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from navtui.core.messages import ToolSpec
from navtui.providers.callshapes import known_name
from navtui.providers.toolargs import ArgumentsError, loads_lenient

_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARGS_KEYS = ("arguments", "parameters", "args", "input")
_PARAM_OPEN = re.compile(
    r"""<parameter(?:\s+name\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))\s*|\s*=\s*"?([^">]*?)"?\s*)>"""
)
_FUNCTION_OPEN = re.compile(r"""<function\s*=\s*"?([^">]*?)"?\s*>|<function\s+name\s*=\s*"([^"]*)"\s*>""")
_PARAM_CLOSE = "</parameter>"
_NAME_FIELD = re.compile(r"""["']?name["']?\s*:\s*["']([\w.-]+)["']""")
_AFTER_VALUE = ("<parameter", "</function>", "</tool_call>")


@dataclass
class Decoded:
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and bool(self.calls)


def decode_call_body(body: str, name_hint: str | None, tools: dict[str, ToolSpec], *, closed: bool = True) -> Decoded:
    """Decode one block's body into ``(name, arguments)`` pairs, or say precisely what is wrong.

    ``closed`` is False for a block the stream ended inside: its JSON may have been cut off.
    """
    text = body.strip()
    if text.startswith("<"):
        return _decode_xml(text, name_hint, tools)
    if not text:
        return Decoded(error="the block is empty")
    try:
        value = loads_lenient(text, complete=closed)
    except ArgumentsError as exc:
        guessed = name_hint or _guess_name(text)
        named: list[tuple[str, dict[str, Any]]] = [(guessed, {})] if guessed else []
        start, end = text.find("{"), text.rfind("}")
        if text[0] in "{[":
            if start == 0 and end == len(text) - 1 or end <= start:
                return Decoded(named, f"the JSON cannot be decoded: {exc}")
        elif start == -1 or end <= start:
            return Decoded(named, "the block holds no JSON object")
        try:
            value = loads_lenient(text[start : end + 1], complete=closed)  # prose around the object
        except ArgumentsError as inner:
            return Decoded(named, f"the JSON cannot be decoded: {inner}")
    items = value if isinstance(value, list) else [value]
    decoded = Decoded()
    for item in items:
        if not isinstance(item, dict):
            return Decoded(error=f"expected a JSON object, got {type(item).__name__}")
        name, args, error = _split_object(item, name_hint, tools)
        if error:
            return Decoded([(name, {})] if name else [], error)
        decoded.calls.append((known_name(name, tools), args))
    if not decoded.calls:
        decoded.error = "the block holds an empty list"
    return decoded


def _guess_name(text: str) -> str | None:
    """The tool name of an undecodable call, so the error can name it."""
    match = _NAME_FIELD.search(text)
    return match.group(1) if match else None


def _split_object(
    obj: dict[str, Any], name_hint: str | None, tools: dict[str, ToolSpec]
) -> tuple[str, dict[str, Any], str | None]:
    function = obj.get("function")
    if isinstance(function, dict):  # OpenAI shape: {"function": {"name": ..., "arguments": "..."}}
        obj = function
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str) and obj[k]), None)
    args_key = next((k for k in _ARGS_KEYS if k in obj), None)
    if name is None and name_hint:
        name = name_hint
        if args_key is None:
            return name, obj, None  # <tool_call name="read">{"path": "a.py"}</tool_call>
    if name is None and len(obj) == 1:
        ((only, value),) = obj.items()
        if known_name(only, tools) in tools and isinstance(value, dict):
            return known_name(only, tools), value, None  # {"read": {"path": "a.py"}}
    if name is None:
        return "", {}, 'the JSON object has no "name" field'
    if args_key is None:
        rest = {k: v for k, v in obj.items() if k not in _NAME_KEYS}
        return name, rest, None  # flattened: {"name": "read", "path": "a.py"}
    args = obj[args_key]
    if isinstance(args, str):
        try:
            args = loads_lenient(args) if args.strip() else {}
        except ArgumentsError as exc:
            return name, {}, f'"{args_key}" is a string that is not a JSON object: {exc}'
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return name, {}, f'"{args_key}" must be a JSON object, got {type(args).__name__}'
    return name, args, None


# ---------------------------------------------------------------------- XML form
def xml_params_closed(body: str) -> bool:
    """Whether every ``<parameter>`` opened in ``body`` was closed (a close tag inside a value says no)."""
    return _parse_params(body)[1] is None


def _parse_params(body: str) -> tuple[list[tuple[str, str]], str | None]:
    """The (name, raw value) pairs; the name of an unclosed parameter as the second item."""
    params: list[tuple[str, str]] = []
    pos = 0
    while True:
        match = _PARAM_OPEN.search(body, pos)
        if match is None:
            return params, None
        name = next((g for g in match.groups() if g), "").strip()
        start = match.end()
        end = _value_end(body, start)
        if end == -1:
            return params, name or "?"
        params.append((name, body[start:end]))
        pos = end + len(_PARAM_CLOSE)


def _value_end(body: str, start: int) -> int:
    """The ``</parameter>`` that ends a value: the first one followed by another parameter or the end."""
    pos = body.find(_PARAM_CLOSE, start)
    last = -1
    while pos != -1:
        after = body[pos + len(_PARAM_CLOSE) :].lstrip()
        if not after or after.startswith(_AFTER_VALUE):
            return pos
        last = pos
        pos = body.find(_PARAM_CLOSE, pos + 1)
    return last


def _decode_xml(text: str, name_hint: str | None, tools: dict[str, ToolSpec]) -> Decoded:
    function = _FUNCTION_OPEN.search(text)
    name = name_hint
    if function:
        name = next((g for g in function.groups() if g), "").strip() or name
    params, unclosed = _parse_params(text)
    if not name:
        return Decoded(error='the call has no tool name (write <tool_call name="TOOL"> or <function=TOOL>)')
    name = known_name(name, tools)
    if unclosed:
        return Decoded([(name, {})], f'<parameter name="{unclosed}"> is never closed with </parameter>')
    if not params and function:  # <function=read>{"path": "a.py"}</function>: JSON arguments in the tag
        inner = text[function.end() :].replace("</function>", "").strip()
        if inner.startswith("{"):
            try:
                value = loads_lenient(inner, complete=True)
            except ArgumentsError as exc:
                return Decoded([(name, {})], f"the JSON arguments cannot be decoded: {exc}")
            if isinstance(value, dict):
                return Decoded([(name, value)])
    if not params and not function:
        return Decoded([(name, {})], "no <parameter> elements were found")
    spec = tools.get(name)
    props: dict[str, Any] = spec.parameters.get("properties", {}) if spec else {}
    args: dict[str, Any] = {}
    for key, raw in params:
        if not key:
            return Decoded([(name, {})], "a <parameter> has no name")
        args[key] = _coerce(_trim_value(raw), props.get(key, {}))
    return Decoded([(name, args)])


def _trim_value(raw: str) -> str:
    """Drop the newline after the opening tag; drop the one before the close tag for one-line values."""
    value = raw[1:] if raw.startswith("\n") else raw
    if value.endswith("\n") and "\n" not in value[:-1]:
        value = value[:-1]
    return value


def _coerce(value: str, prop: dict[str, Any]) -> Any:
    kinds = _schema_types(prop)
    if not kinds or "string" in kinds:
        return value
    text = value.strip()
    if kinds & {"array", "object"}:
        try:
            return loads_lenient(text)
        except ArgumentsError:
            return value  # let strict validation name the field
    if "boolean" in kinds and text.lower() in ("true", "false"):
        return text.lower() == "true"
    if kinds & {"integer", "number"}:
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            return value
    if "null" in kinds and text.lower() in ("null", "none", ""):
        return None
    return value


def _schema_types(prop: dict[str, Any]) -> set[str]:
    kind = prop.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return set(kind)
    kinds: set[str] = set()
    for option in prop.get("anyOf") or prop.get("oneOf") or []:
        kinds |= _schema_types(option)
    return kinds
