"""Which MCP tool input schemas navtui offers: what any JSON Schema dialect calls valid, never one a provider
refuses (the end-to-end case is ``test_headless.py::test_a_tool_whose_schema_a_provider_refuses_...``)."""

from __future__ import annotations

from navtui.mcp.schemas import schema_problem
from navtui.tools.registry import default_tools


def test_every_built_in_tool_schema_passes() -> None:
    for spec in default_tools().specs():
        assert schema_problem(spec.parameters) is None, spec.name


def test_valid_schemas_of_other_dialects_pass() -> None:
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"pair": {"type": "array", "items": [{"type": "string"}, {"type": "number"}]}},
        "definitions": {"unused": {"type": "string"}},
    }
    assert schema_problem(draft7) is None  # tuple items are draft 7's
    assert schema_problem({"type": "object"}) is None
    assert schema_problem({"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}}, "$defs": {"N": {}}}) is None


def test_what_a_provider_refuses_is_named() -> None:
    assert schema_problem({"type": "object", "properties": ["a"]}) == "['a'] is not of type 'object' at $.properties"
    assert schema_problem({"type": "object", "required": "a"}) == "'a' is not of type 'array' at $.required"
    assert schema_problem({"type": "array"}) == "its type is not 'object' (a tool's arguments are an object)"
    assert schema_problem([]) == "it is not a JSON object"
    long = schema_problem({"type": "object", "properties": {"a": {"type": "x" * 10_000}}})
    assert long is not None and len(long) < 250  # the server's value is quoted, cut
