"""The two event streams' types: what a provider yields, and what the agent yields (``app/events.py`` shows it).

Both are pydantic discriminated unions on ``type`` so --json can write them line by line and tests can
parse them back. Errors and notices mask secrets when they are made (``core.secrets``): a server that quotes
the API key in an error body cannot get it onto the screen, into --json or into a session.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, Field, TypeAdapter

from navtui.core.messages import AssistantMessage, StopReason, ToolCall, ToolResultMessage, Usage
from navtui.core.secrets import mask_secrets

Masked = Annotated[str, AfterValidator(mask_secrets)]


class _Event(BaseModel):
    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# ---------------------------------------------------------------- provider events
class TextDelta(_Event):
    type: Literal["text_delta"] = "text_delta"
    text: str


class ThinkingDelta(_Event):
    """Reasoning text. A ``signature`` closes the current thinking block (Anthropic round-trip)."""

    type: Literal["thinking_delta"] = "thinking_delta"
    text: str = ""
    signature: str | None = None
    redacted: bool = False


class ToolCallEvent(_Event):
    """A complete tool call (providers accumulate argument fragments before yielding it)."""

    type: Literal["tool_call"] = "tool_call"
    call: ToolCall


class UsageEvent(_Event):
    type: Literal["usage"] = "usage"
    usage: Usage


class StopEvent(_Event):
    type: Literal["stop"] = "stop"
    reason: StopReason


class ErrorEvent(_Event):
    """The stream failed. Text already streamed stays; the agent ends the turn with stop reason ``error``."""

    type: Literal["error"] = "error"
    message: Masked
    kind: str = "http"
    hint: Masked | None = None
    status: int | None = None
    retryable: bool = False


ProviderEvent = Annotated[
    TextDelta | ThinkingDelta | ToolCallEvent | UsageEvent | StopEvent | ErrorEvent, Field(discriminator="type")
]


def join_deltas(events: list[Any]) -> list[Any]:
    """``events`` with each run of adjacent text deltas made one (and of plain thinking deltas: no signature,
    not redacted), in order. A stream read in bursts reaches the agent and the screen as one delta per burst."""
    joined: list[Any] = []
    run: list[str] = []  # the texts of the run that joined[-1] stands for
    for event in events:
        last = joined[-1] if joined else None
        if _joins(last, event):
            run.append(event.text)
        else:
            if len(run) > 1:
                joined[-1] = type(joined[-1])(text="".join(run))
            run = [event.text] if type(event) is TextDelta or _plain_thinking(event) else []
            joined.append(event)
    if len(run) > 1:
        joined[-1] = type(joined[-1])(text="".join(run))
    return joined


def _joins(last: Any, event: Any) -> bool:
    return (type(event) is TextDelta and type(last) is TextDelta) or (_plain_thinking(event) and _plain_thinking(last))


def _plain_thinking(event: Any) -> bool:
    return type(event) is ThinkingDelta and event.signature is None and not event.redacted


# ---------------------------------------------------------------- agent events
class TurnStarted(_Event):
    type: Literal["turn_started"] = "turn_started"
    turn: int
    model: str | None = None


class ToolCallStarted(_Event):
    type: Literal["tool_call_started"] = "tool_call_started"
    call: ToolCall


class ToolOutput(_Event):
    """Partial output of a running tool (the UI shows the tail while it runs)."""

    type: Literal["tool_output"] = "tool_output"
    call_id: str
    text: str


class ToolCallFinished(_Event):
    type: Literal["tool_call_finished"] = "tool_call_finished"
    call: ToolCall
    result: ToolResultMessage


class UsageUpdate(_Event):
    """Usage of one model response plus the running totals and the context estimate."""

    type: Literal["usage_update"] = "usage_update"
    usage: Usage
    total: Usage
    context_tokens: int
    context_window: int | None = None


class StreamFinished(_Event):
    """The model's response stopped streaming: every delta of this turn has come. Recording the response, its
    usage and its checks come next, then ``TurnFinished``; a screen shows the answer's end now, before them."""

    type: Literal["stream_finished"] = "stream_finished"
    turn: int
    stop_reason: StopReason


class TurnFinished(_Event):
    type: Literal["turn_finished"] = "turn_finished"
    turn: int
    stop_reason: StopReason
    message: AssistantMessage
    checkpoint: str | None = None  # the session entry of the workspace checkpoint this turn made, if any


class RunFinished(_Event):
    """The end of ``Agent.run``: the model stopped, hit max turns, failed or was aborted."""

    type: Literal["run_finished"] = "run_finished"
    stop_reason: StopReason
    turns: int
    text: str = ""


class Handover(_Event):
    type: Literal["handover"] = "handover"
    notes: str
    count: int
    automatic: bool = False


CompactionReason = Literal["manual", "threshold", "overflow"]


class CompactionStarted(_Event):
    type: Literal["compaction_started"] = "compaction_started"
    reason: CompactionReason
    tokens_before: int


class CompactionFinished(_Event):
    type: Literal["compaction_finished"] = "compaction_finished"
    summary: str
    tokens_before: int
    tokens_after: int


class ContextPruned(_Event):
    type: Literal["context_pruned"] = "context_pruned"
    results: int
    tokens_saved: int


class AdvisorNote(_Event):
    type: Literal["advisor_note"] = "advisor_note"
    note: str
    severity: Literal["nit", "concern", "blocker"] = "nit"


class ContextInjected(_Event):
    """Context added before the model starts (the repository index's best chunks for the first prompt)."""

    type: Literal["context_injected"] = "context_injected"
    source: str
    text: str
    files: list[str] = Field(default_factory=list)
    tokens: int = 0


class CheckFinished(_Event):
    """The check ran after the model's edits (``agent.check_command``, or a test the prompt named)."""

    type: Literal["check_finished"] = "check_finished"
    command: str
    passed: bool
    exit_code: int | None = None
    round: int = 0  # how many times the model was asked again before this run of the check
    final: bool = False  # the run ends with this result (it passed, or the rounds are used up)
    output: Masked = ""  # the end of its output


class ModelLoading(_Event):
    """A local model is being loaded into memory before it can answer (Ollama, on first use or after it was
    unloaded); ``done`` once it is in, with how long that took."""

    type: Literal["model_loading"] = "model_loading"
    model: str
    done: bool = False
    seconds: float | None = None


class Notice(_Event):
    type: Literal["notice"] = "notice"
    text: Masked
    level: Literal["info", "warning", "error"] = "info"


class AgentError(_Event):
    type: Literal["error"] = "error"
    message: Masked
    hint: Masked | None = None


class UserMessageEvent(_Event):
    """A user-role message entered the conversation (the prompt, a queued message, a steering note)."""

    type: Literal["user_message"] = "user_message"
    text: str
    kind: Literal["prompt", "queued", "steer", "nudge", "context"] = "prompt"


AgentEvent = Annotated[
    UserMessageEvent
    | TurnStarted
    | TextDelta
    | ThinkingDelta
    | ToolCallStarted
    | ToolOutput
    | ToolCallFinished
    | UsageUpdate
    | StreamFinished
    | TurnFinished
    | RunFinished
    | Handover
    | CompactionStarted
    | CompactionFinished
    | ContextPruned
    | AdvisorNote
    | ContextInjected
    | CheckFinished
    | ModelLoading
    | Notice
    | AgentError,
    Field(discriminator="type"),
]

JSON_EVENTS_VERSION = 1
"""``"v"`` on every ``--json`` line (docs/events.md): raised when a field is removed, renamed or changes meaning;
new events and new fields come within a version."""

PROVIDER_EVENTS: TypeAdapter[Any] = TypeAdapter(ProviderEvent)
AGENT_EVENTS: TypeAdapter[Any] = TypeAdapter(AgentEvent)


def parse_agent_event(data: dict[str, Any]) -> Any:
    return AGENT_EVENTS.validate_python(data)
