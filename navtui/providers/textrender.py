"""Rendering for the text tool-call protocol: the system-prompt section, and calls and results as text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from navtui.core.messages import ToolCall, ToolSpec
from navtui.providers.base import PARSE_ERROR_KEY, RAW_CALL_KEY

OPEN = "<tool_call"
CLOSE = "</tool_call>"


def render_call(call: ToolCall) -> str:
    """A call as the model should have written it (history for text-protocol models)."""
    raw = call.arguments.get(RAW_CALL_KEY)
    if PARSE_ERROR_KEY in call.arguments and isinstance(raw, str):
        return raw
    multiline = {k: v for k, v in call.arguments.items() if isinstance(v, str) and "\n" in v}
    if not multiline:
        payload = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
        return f"{OPEN}>\n{payload}\n{CLOSE}"
    params = "".join(
        f'<parameter name="{key}">{_param_text(value)}</parameter>\n' for key, value in call.arguments.items()
    )
    return f'{OPEN} name="{call.name}">\n{params}{CLOSE}'


def _param_text(value: Any) -> str:
    if isinstance(value, str):
        return f"\n{value}" if "\n" in value else value
    return json.dumps(value, ensure_ascii=False)


def render_result(name: str, text: str, *, is_error: bool = False) -> str:
    error = ' error="true"' if is_error else ""
    return f'<tool_result name="{name}"{error}>\n{text}\n</tool_result>'


def render_tool_instructions(tools: Sequence[ToolSpec], *, compact: bool = False) -> str:
    """The system-prompt section that teaches the protocol and lists every tool's parameters.

    The one exact example is a call that is harmless if copied as it is (listing the working directory);
    the parameter form is described in words. Small models repeat example values and code verbatim, so
    the prompt holds no placeholder path and no sample file content. ``compact`` drops the prose.
    """
    if not tools:
        return ""
    example = _harmless_example(tools)
    writer = next((t for t in tools if "content" in t.parameters.get("properties", {})), None)
    parts = [
        "# Tools",
        "",
        'To call a tool, write a block that holds one JSON object with "name" and "arguments", for example:',
        "",
        f"{OPEN}>\n{example}\n{CLOSE}",
        "",
    ]
    if writer is not None:
        parts += [
            f'For file contents use the parameter form instead: open with {OPEN} name="{writer.name}">, give '
            "each argument in its own <parameter> element named after it (path, then content) with the value as "
            f"raw text between the tags, never JSON-escaped, and close with {CLOSE}.",
            "",
        ]
    parts += [
        "Rules:",
        "- One block per call. After your calls, stop: the results come back as <tool_result> blocks.",
        "- Only tool calls create files, change them and run commands: code written in an answer does nothing.",
        "- When the task is done, answer in plain text without a tool call.",
    ]
    if not compact:
        parts.insert(-1, "- Never write a <tool_result> yourself; several calls in a row are fine.")
    return "\n".join([*parts, "", render_tool_list(tools, compact=compact)])


def render_tool_list(tools: Sequence[ToolSpec], *, compact: bool = False) -> str:
    """Every tool with its parameters: one line each when ``compact``."""
    parts = ["## Available tools"]
    for tool in tools:
        if compact:
            parts.append(f"- {tool.name}({_compact_params(tool.parameters)}): {tool.description.strip()}")
        else:
            parts += ["", f"### {tool.name}", tool.description.strip(), *_describe_params(tool.parameters)]
    return "\n".join(parts)


def _harmless_example(tools: Sequence[ToolSpec]) -> str:
    """An exact call that does no harm when a model copies it: ls of ".", else read-only, else the first tool."""
    names = [t.name for t in tools]
    if "ls" in names:
        return json.dumps({"name": "ls", "arguments": {"path": "."}})
    first = tools[0]
    return json.dumps({"name": first.name, "arguments": _example_args(first)}, ensure_ascii=False)


def _compact_params(schema: dict[str, Any]) -> str:
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    return ", ".join(f"{name}{'' if name in required else '?'}: {_type_name(prop)}" for name, prop in props.items())


def _describe_params(schema: dict[str, Any]) -> list[str]:
    props: dict[str, Any] = schema.get("properties", {})
    if not props:
        return ["Parameters: none"]
    required = set(schema.get("required", []))
    lines = ["Parameters:"]
    for name, prop in props.items():
        need = "required" if name in required else "optional"
        desc = prop.get("description", "")
        default = f" (default {json.dumps(prop['default'])})" if "default" in prop else ""
        lines.append(f"- {name} ({_type_name(prop)}, {need}){': ' + desc if desc else ''}{default}")
    return lines


def _type_name(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return "one of " + " | ".join(json.dumps(v) for v in prop["enum"])
    options = prop.get("anyOf") or prop.get("oneOf")
    if options:
        names = [_type_name(o) for o in options if o.get("type") != "null"]
        return " or ".join(names) or "any"
    kind = prop.get("type")
    if isinstance(kind, list):
        return " or ".join(k for k in kind if k != "null")
    if kind == "array":
        return f"array of {_type_name(prop.get('items', {}))}"
    return kind or ("object" if "$ref" in prop else "any")


def _example_args(tool: ToolSpec) -> dict[str, Any]:
    props: dict[str, Any] = tool.parameters.get("properties", {})
    required = tool.parameters.get("required", list(props)[:1])
    samples = {"string": ".", "integer": 1, "number": 1, "boolean": False, "array": [], "object": {}}
    return {name: samples.get(str(props[name].get("type")), ".") for name in required if name in props}
