"""The shapes a model writes a tool call in when it writes one as text, and the correction for a broken one.

Small models rarely use the exact protocol. They write a Hermes ``<tool_call>`` block, a ``<tools>`` block,
a ``<function=NAME>`` block, a fenced ```json block, or a bare JSON object on its own line. The scanner
(``textproto.ToolCallScanner``) finds the blocks; this module knows where each kind ends, whether a fenced or
bare JSON block is a call at all, and how to tell the model the exact format when it cannot be read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from navtui.core.messages import ToolSpec

# Fence info strings whose block may hold a call; any other language is a code sample and stays text.
CALL_FENCES = frozenset({"", "json", "jsonc", "json5", "tool_call", "tool", "tools", "function"})
MAX_FENCE_LINE = 40
_NAME_FIELD = re.compile(r"""["']?(?:name|tool|tool_name|function)["']?\s*:\s*["']([\w.-]+)["']""")
_VALUE_FIELD = r"""["']{key}["']\s*:\s*"((?:[^"\\]|\\.)*)\""""


@dataclass(frozen=True)
class BlockKind:
    """A tagged block: how it opens and closes, and whether its opening tag is part of what gets decoded."""

    open: str
    close: str
    keep_opener: bool = False  # ``<function=read>``: the name is in the tag, so the decoder needs it
    needs_attribute: bool = False  # ``<function`` is only a block with ``=`` or a ``name=`` attribute


TOOL_CALL = BlockKind("<tool_call", "</tool_call>")
TOOLS_BLOCK = BlockKind("<tools>", "</tools>")
FUNCTION = BlockKind("<function", "</function>", keep_opener=True, needs_attribute=True)
TAGGED = (TOOL_CALL, TOOLS_BLOCK, FUNCTION)


def tag_kind(text: str) -> BlockKind | None:
    """The block kind whose opening tag starts ``text`` (known once the character after the tag name is)."""
    for kind in TAGGED:
        if not text.startswith(kind.open):
            continue
        if kind.open.endswith(">"):
            return kind
        if len(text) <= len(kind.open):
            return None
        after = text[len(kind.open)]
        if kind.needs_attribute:
            rest = text[len(kind.open) :].lstrip()
            if after == "=" or (after.isspace() and rest.startswith("name")):
                return kind
            return None
        if after == ">" or after.isspace():
            return kind
    return None


def could_become_tag(text: str) -> bool:
    """Whether ``text`` is the start of an opening tag we look for (hold it back, it may become one)."""
    return any(kind.open.startswith(text) or text.startswith(kind.open) for kind in TAGGED)


def fence_info(line: str) -> str | None:
    """The info string of an opening fence line (``` included), or None when ``line`` is no fence."""
    stripped = line.strip()
    if not stripped.startswith("```"):
        return None
    return stripped[3:].strip().lower()


class JsonEnd:
    """Finds where a JSON object that starts a buffer ends, incrementally (braces inside strings ignored)."""

    def __init__(self) -> None:
        self.pos = 0
        self.depth = 0
        self.inside = False
        self.escaped = False

    def scan(self, text: str) -> int:
        """The index just past the closing brace, or -1 if the object is not closed yet."""
        while self.pos < len(text):
            char = text[self.pos]
            self.pos += 1
            if self.escaped:
                self.escaped = False
            elif char == "\\":
                self.escaped = self.inside
            elif char == '"':
                self.inside = not self.inside
            elif self.inside:
                continue
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth <= 0:
                    return self.pos
        return -1


def named_tool(text: str, tools: dict[str, ToolSpec]) -> str | None:
    """The known tool a JSON-ish text names in a ``"name"`` field: the sign of an attempted call."""
    for match in _NAME_FIELD.finditer(text):
        name = known_name(match.group(1), tools)
        if name in tools:
            return name
    return None


_CALL_SHAPE = re.compile(
    r"""^\s*\{\s*["']name["']\s*:\s*["']([^"']{1,80})["']\s*,\s*["'](?:arguments|parameters)["']\s*:"""
)


def misnamed_call(text: str) -> str | None:
    """The name in a call-shaped object (``{"name": ..., "arguments": ...}``) that names no tool of ours."""
    match = _CALL_SHAPE.match(text)
    return match.group(1) if match else None


def closest_tool(raw: str, tools: dict[str, ToolSpec]) -> ToolSpec | None:
    """The tool whose parameter names the attempt used most (``content`` -> write), for the correction."""
    best, score = None, 0
    for spec in tools.values():
        names = spec.parameters.get("properties", {})
        hits = sum(1 for name in names if re.search(rf"""["']{re.escape(name)}["']\s*:""", raw))
        if hits > score:
            best, score = spec, hits
    return best


def known_name(name: str, tools: dict[str, ToolSpec]) -> str:
    """Map near-misses (case, ``-`` for ``_``, a ``functions.`` prefix) onto a known tool name."""
    if name in tools or not tools:
        return name
    key = name.strip().removeprefix("functions.").lower().replace("-", "_").replace(" ", "_")
    return next((known for known in tools if known.lower() == key), name)


def correction(reason: str, name: str | None, tools: dict[str, ToolSpec], raw: str, *, native: bool) -> str:
    """What the model is told when its call could not be read: why, and the exact call it should write.

    The example is built from the tool it tried and the values it wrote, never from a placeholder it
    could copy: a small model repeats ``path/to/file`` verbatim.
    """
    spec = tools.get(name or "") or closest_tool(raw, tools) or next(iter(tools.values()), None)
    head = f"Your tool call could not be read: {reason}."
    if name and name not in tools and tools:
        head += f" There is no tool named {name!r}; the tools are: {', '.join(tools)}."
    if spec is None:
        return head + " Answer in plain text."
    arguments = _arguments_from(raw, spec)
    example = json.dumps({"name": spec.name, "arguments": arguments}, ensure_ascii=False)
    required = ", ".join(spec.parameters.get("required", [])) or "none"
    if native:
        return (
            f"{head} Call {spec.name} through the tool-calling interface (required arguments: {required}), "
            f"or write exactly one block like this and nothing else:\n<tool_call>\n{example}\n</tool_call>"
        )
    return (
        f"{head} Write exactly one block per call, a JSON object with double-quoted keys and strings "
        f"(required arguments of {spec.name}: {required}):\n<tool_call>\n{example}\n</tool_call>\n"
        'For long text such as file contents use <tool_call name="..."> with one <parameter name="..."> '
        "element per argument instead."
    )


def _arguments_from(raw: str, spec: ToolSpec) -> dict[str, Any]:
    """The required arguments with the values the model's attempt gave them ("" where it gave none)."""
    props: dict[str, Any] = spec.parameters.get("properties", {})
    out: dict[str, Any] = {}
    for key in spec.parameters.get("required", list(props)[:1]):
        match = re.search(_VALUE_FIELD.format(key=re.escape(key)), raw)
        value = match.group(1) if match else ""
        out[key] = value if len(value) <= 200 else value[:200] + "..."
    return out
