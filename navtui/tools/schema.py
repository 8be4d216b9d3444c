"""Tool schemas made plain for small models: ``$ref`` inlined, no titles, optional values without ``null``.

The built-in tools' schemas come from pydantic, an MCP server's from whatever wrote it; both go through
``plain_schema`` so every provider and every small model reads the same simple shape.
"""

from __future__ import annotations

from typing import Any

# Deeper than any real schema; a recursive ``$ref`` (a tree of nodes) stops here as a plain object.
MAX_REF_DEPTH = 8
_REF_PREFIXES = ("#/$defs/", "#/definitions/")
_DROPPED_KEYS = ("$schema", "$id", "$defs", "definitions")


def plain_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with local ``$ref``s inlined, titles dropped and ``X | None`` shown as plain ``X``
    (the model omits an optional argument rather than sending null)."""
    definitions = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    plain = _plain(schema, definitions, ())
    if not isinstance(plain, dict):
        return {"type": "object", "properties": {}}
    for key in _DROPPED_KEYS:
        plain.pop(key, None)
    if plain.get("type") == "object":
        plain.setdefault("properties", {})  # some providers reject an object schema without it
    return plain


def _plain(node: Any, definitions: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_plain(item, definitions, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIXES):
        name = ref.split("/", 2)[2]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if name in seen or len(seen) >= MAX_REF_DEPTH:
            return {"type": "object", **rest}
        return _plain({**definitions.get(name, {}), **rest}, definitions, (*seen, name))
    node = _without_null(node)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("$defs", "definitions") and seen:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _plain(prop, definitions, seen) for name, prop in value.items()}
        else:
            out[key] = _plain(value, definitions, seen)
    return out


def _without_null(node: dict[str, Any]) -> dict[str, Any]:
    """``anyOf``/``oneOf`` [X, null] becomes X; ``type: [X, "null"]`` becomes ``type: X``; a null default goes."""
    for union in ("anyOf", "oneOf"):
        options = node.get(union)
        if isinstance(options, list) and {"type": "null"} in options:
            others = [option for option in options if option != {"type": "null"}]
            node = {k: v for k, v in node.items() if k != union}
            if len(others) == 1 and isinstance(others[0], dict):
                node = {**node, **others[0]}
            elif others:
                node[union] = others
            if node.get("default", 0) is None:
                node.pop("default")
    kinds = node.get("type")
    if isinstance(kinds, list) and "null" in kinds:
        rest = [kind for kind in kinds if kind != "null"]
        node = {**node, "type": rest[0] if len(rest) == 1 else rest}
        if not rest:
            node.pop("type")
        if node.get("default", 0) is None:
            node.pop("default")
    return node
