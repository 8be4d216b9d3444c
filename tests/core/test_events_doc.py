"""docs/events.md and the event models agree: every event and field documented, nothing documented that is not sent."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from navtui.core.events import JSON_EVENTS_VERSION, AgentEvent
from navtui.core.messages import AssistantMessage, Cost, ToolCall, ToolResultMessage, Usage

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"
OBJECTS: dict[str, type[BaseModel]] = {
    "ToolCall": ToolCall,
    "ToolResult": ToolResultMessage,
    "AssistantMessage": AssistantMessage,
    "Usage": Usage,
    "Cost": Cost,
}
_ROW = re.compile(r"^\| `(\w+)` \| (.*?) \| .*\|$")


def documented() -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """(events, objects): section name -> {field: its type cell}."""
    events: dict[str, dict[str, str]] = {}
    objects: dict[str, dict[str, str]] = {}
    part: dict[str, dict[str, str]] | None = None
    fields: dict[str, str] | None = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            part = {"## Events": events, "## Objects": objects}.get(line.strip())
            fields = None
        elif line.startswith("### ") and part is not None:
            fields = part.setdefault(line[4:].strip().strip("`"), {})
        elif fields is not None and (row := _ROW.match(line)):
            fields[row.group(1)] = row.group(2)
    return events, objects


def event_models() -> dict[str, type[BaseModel]]:
    union = get_args(get_args(AgentEvent)[0])
    return {model.model_fields["type"].default: model for model in union}


def wire_fields(model: type[BaseModel]) -> dict[str, Any]:
    return {field.alias or name: field for name, field in model.model_fields.items()}


def literal_values(annotation: Any) -> list[str]:
    if get_origin(annotation) is Literal:
        return [str(v) for v in get_args(annotation)]
    if get_origin(annotation) in (typing.Union, types.UnionType):
        return [v for arg in get_args(annotation) for v in literal_values(arg)]
    return []


def check_fields(where: str, model: type[BaseModel], doc: dict[str, str], *, skip: frozenset[str]) -> None:
    fields = {name: field for name, field in wire_fields(model).items() if name not in skip}
    assert set(doc) == set(fields), f"{where}: documented {sorted(doc)}, sent {sorted(fields)}"
    for name, field in fields.items():
        cell = doc[name]
        may_be_absent = field.default is None and not field.is_required()
        assert ("optional" in cell) == may_be_absent, (
            f"{where}.{name}: 'optional' is {'missing' if may_be_absent else 'wrong'}"
        )
        for value in literal_values(field.annotation):
            assert f'"{value}"' in cell, f"{where}.{name}: the value {value!r} is not documented"


def test_every_event_is_documented_with_exactly_its_fields() -> None:
    events, _ = documented()
    models = event_models()
    assert set(events) == set(models), f"documented {sorted(events)}, sent {sorted(models)}"
    for name, model in models.items():
        check_fields(name, model, events[name], skip=frozenset({"type"}))


def test_every_object_inside_the_events_is_documented() -> None:
    _, objects = documented()
    assert set(objects) >= set(OBJECTS)
    for name, model in OBJECTS.items():
        check_fields(name, model, objects[name], skip=frozenset())


def test_the_version_is_the_documented_one() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert f"| `v` | integer | the version of this format: `{JSON_EVENTS_VERSION}` |" in text
