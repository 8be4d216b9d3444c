"""The tool contract: one pydantic argument model, one tier, ``run(args, ctx) -> ToolResult``.

Tools are pure functions of (arguments, context): everything they touch (workspace, file-state,
jobs, artifacts, partial-output sink) arrives in the ``ToolContext``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from navtui.core.errors import ToolError
from navtui.core.messages import ImageBlock, ToolCall, ToolSpec
from navtui.tools.approval import Tier
from navtui.tools.schema import plain_schema

if TYPE_CHECKING:
    from navtui.tools.approval import ApprovalPolicy, Approver
    from navtui.tools.files.filestate import FileStateTracker
    from navtui.tools.files.workspace import Workspace
    from navtui.tools.sandbox.policy import SandboxPolicy
    from navtui.tools.shell.jobs import JobRegistry

ArgsT = TypeVar("ArgsT", bound=BaseModel)


@dataclass
class ToolResult:
    text: str
    is_error: bool = False
    details: dict[str, Any] | None = None
    images: list[ImageBlock] = field(default_factory=list)  # sent with the text where the provider takes images


@dataclass
class ToolContext:
    workspace: Workspace
    file_state: FileStateTracker
    jobs: JobRegistry
    artifacts_dir: Path
    on_output: Callable[[str], None] = lambda _text: None
    settings: Any = None  # navtui.config.settings.Settings; Any keeps tools free of config imports in tests
    extra: dict[str, Any] = field(default_factory=dict)
    approval: ApprovalPolicy | None = None  # the session's policy (tools read it, the agent enforces it)
    sandbox: SandboxPolicy | None = None  # what shell commands may touch (None: unconfined)
    approver: Approver | None = None  # for a tool's follow-up question (shell: run again without the sandbox?)
    # The tools the model is offered right now (the agent sets it before each call; None: every tool). A result
    # never sends the model to a tool it cannot call (a small window's compact set has no find, no shell_status).
    offered: frozenset[str] | None = None
    # The paths the calls after this one in the same reply will write (the agent sets it before each call): a note
    # about a file those calls change anyway would be stale by the time the model reads it.
    later_writes: frozenset[str] = frozenset()
    # The definitions the request moves, each name to the file it goes to (agent/moves.py sets it at a run's
    # start): a write that takes one out of its old file tells the importers where it went, not to put it back.
    moves: dict[str, str] = field(default_factory=dict)

    @property
    def cwd(self) -> Path:
        return self.workspace.cwd

    def offers(self, name: str) -> bool:
        return self.offered is None or name in self.offered


class Tool(Generic[ArgsT]):
    """Subclass with ``name``, ``description``, ``Args``, ``tier`` and an async ``run``."""

    # Class attributes for the built-in tools; a tool made at run time (an MCP server's) sets them per instance.
    name: str
    description: str
    Args: ClassVar[type[BaseModel]]
    tier: Tier = "read"

    def tier_for(self, args: ArgsT, ctx: ToolContext) -> Tier:
        """The tier of one call (a read outside the workspace may need more than ``tier``)."""
        return self.tier

    def approval_reason(self, args: ArgsT, ctx: ToolContext) -> str | None:
        """Why this particular call needs a look (e.g. a read outside the workspace); ``None`` when ordinary."""
        return None

    def changes(self, args: ArgsT, ctx: ToolContext) -> list[str]:
        """The paths this call would create or change, as given (approval checks them for protected paths)."""
        return []

    def preview(self, args: ArgsT, ctx: ToolContext) -> str | None:
        """What an approval prompt shows beyond the summary: the full command, a diff, the new content."""
        return None

    def summary(self, args: ArgsT) -> str:
        """A one-line description of a call for cards, approval prompts and logs."""
        return ", ".join(f"{k}={v!r}" for k, v in args.model_dump(exclude_defaults=True).items())[:200]

    async def run(self, args: ArgsT, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError

    def spec(self) -> ToolSpec:
        # A copy: whoever receives the spec may change its schema (compact specs drop descriptions).
        parameters = copy.deepcopy(_args_schema(self.Args))
        return ToolSpec(name=self.name, description=self.description, parameters=parameters)

    def parse_args(self, raw: dict[str, Any]) -> ArgsT:
        """Validate raw model arguments; a ``ToolError`` names every bad field so the model can fix it."""
        try:
            return self.Args.model_validate(raw)  # type: ignore[return-value]
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
                for err in exc.errors(include_url=False)
            )
            raise ToolError(f"Invalid arguments for {self.name}: {problems}. {self._expected(raw)}") from exc

    def _expected(self, raw: Any) -> str:
        """The argument list the model should have sent, and the names it sent that mean nothing here."""
        fields = self.Args.model_fields
        expected = ", ".join(f"{name} (required)" if f.is_required() else name for name, f in fields.items())
        text = f"Expected arguments: {expected}."
        if isinstance(raw, dict):
            unknown = [str(k) for k in raw if k not in fields]
            if unknown:
                text += f" Unknown: {', '.join(unknown)}."
        return text


@cache
def _args_schema(args: type[BaseModel]) -> dict[str, Any]:
    """An argument model's plain JSON schema, made once: pydantic takes ~1 ms a model to generate it, and the specs
    are asked for at every request and every context estimate (8 tools: 10 ms of the event loop each time)."""
    return plain_schema(args.model_json_schema())


class ToolRegistry:
    """The tools offered to one agent, by name, in a stable order."""

    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        self.compact = False  # one-line descriptions and bare schemas, for small windows
        # Who can say why a tool that is not here cannot be used (an MCP server that is down).
        self._explainers: list[Callable[[str], str | None]] = []
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool[Any]) -> None:
        self._tools[tool.name] = tool

    def remove(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def explain_missing(self, explainer: Callable[[str], str | None]) -> None:
        """Add a way to say why a tool by some name is not offered now (its MCP server is down)."""
        self._explainers.append(explainer)

    def unavailable(self, name: str) -> str | None:
        """Why ``name`` cannot be used now, when a part that offers tools knows it; None: no such tool."""
        for explain in self._explainers:
            reason = explain(name)
            if reason:
                return reason
        return None

    def specs(self) -> list[ToolSpec]:
        specs = [tool.spec() for tool in self._tools.values()]
        return [compact_spec(spec) for spec in specs] if self.compact else specs

    def describe(self, call: ToolCall) -> str:
        """One line for a call (a card's title, --print's tool line): the tool's own summary of its arguments;
        for arguments it cannot read, a plain value, never navtui's internal ``__…__`` markers."""
        tool = self.get(call.name)
        if tool is not None:
            try:
                return tool.summary(tool.parse_args(call.arguments))
            except Exception:  # malformed arguments: fall back to what can be shown
                pass
        shown = {k: v for k, v in call.arguments.items() if not (k.startswith("__") and k.endswith("__"))}
        values = [str(v) for v in shown.values() if isinstance(v, str | int | float)]
        if values:
            return values[0][:200]
        return "(arguments the model wrote could not be read)" if len(shown) < len(call.arguments) else ""

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._tools.values())


_SCHEMA_NOISE = ("description", "default", "examples", "title", "minLength", "minimum", "maximum",
                 "exclusiveMinimum", "exclusiveMaximum")  # fmt: skip


def compact_spec(spec: ToolSpec) -> ToolSpec:
    """The spec a 2k-4k window can afford: the description's first sentence, parameters without prose.

    Optional array and object parameters (edit's ``edits``) go too: they cost the most and a small model
    does better with the simple form. The full argument model still validates whatever is sent.
    """
    params = _strip_schema(spec.parameters)
    required = set(params.get("required", []))
    props = params.get("properties", {})
    params["properties"] = {
        name: prop for name, prop in props.items() if name in required or prop.get("type") not in ("array", "object")
    }
    return ToolSpec(name=spec.name, description=_first_sentence(spec.description), parameters=params)


def _first_sentence(text: str) -> str:
    depth = 0
    for index, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0 and char in ".;:" and text[index + 1 : index + 2] in (" ", ""):
            return text[:index].rstrip() + "."
    return text


def _strip_schema(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_schema(v) for k, v in schema.items() if k not in _SCHEMA_NOISE or k == "properties"}
    if isinstance(schema, list):
        return [_strip_schema(item) for item in schema]
    return schema
