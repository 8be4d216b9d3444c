"""Whether a provider would take an MCP tool's input schema.

Every offered tool's schema goes with every request, and providers check them: Anthropic refuses a schema that is
not valid JSON Schema, Ollama one whose ``properties`` is not an object or whose ``required`` is not a list. A
server that lists one such tool made every later request of the session fail, whatever the model was asked.
``schema_problem`` checks the schema navtui would send (``plain_schema`` of the server's) against the metaschema of
the dialect it declares (2020-12 unless it names another); the manager leaves such a tool out and says why.
"""

from __future__ import annotations

from typing import Any

from navtui.tools.schema import plain_schema

MAX_QUOTE = 160  # the validator's message quotes the server's value: cut here


def schema_problem(schema: Any) -> str | None:
    """Why this input schema is not one a provider takes, or None when it is."""
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import Draft202012Validator, validator_for

    if not isinstance(schema, dict):
        return "it is not a JSON object"
    if schema.get("type") != "object":
        return "its type is not 'object' (a tool's arguments are an object)"
    try:
        validator = validator_for(schema, default=Draft202012Validator)
        validator.check_schema(plain_schema(schema))
    except SchemaError as exc:
        message = exc.message if len(exc.message) <= MAX_QUOTE else exc.message[: MAX_QUOTE - 1] + "…"
        return f"{message} at {exc.json_path}"
    except RecursionError:
        return "it is nested too deeply"
    return None
