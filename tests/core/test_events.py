"""Messages and events serialise to JSON and parse back unchanged."""

from __future__ import annotations

import json

from navtui.core.events import (
    AgentError,
    Notice,
    RunFinished,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    UsageUpdate,
    parse_agent_event,
)
from navtui.core.messages import (
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    message_from_json,
)


def test_messages_round_trip_in_pi_shape() -> None:
    call = ToolCall(id="call_0", name="read", arguments={"path": "a.py"})
    assistant = AssistantMessage(
        content=[ThinkingBlock(thinking="hmm", thinking_signature="sig"), TextBlock(text="x"), call],
        stop_reason="tool_use",
        usage=Usage(input=10, output=2, cache_read=5),
        provider="anthropic",
        model="claude",
    )
    data = assistant.to_json()
    assert data["stopReason"] == "toolUse"  # pi/omp spelling on disk
    assert data["content"][0] == {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig", "redacted": False}
    assert data["usage"]["cacheRead"] == 5
    assert message_from_json(json.loads(json.dumps(data))) == assistant
    result = ToolResultMessage.of(call, "1\tprint(1)", is_error=False)
    assert message_from_json(result.to_json()) == result
    assert result.to_json()["toolCallId"] == "call_0"
    user = UserMessage(content="hi \u2028 there")
    assert message_from_json(json.loads(json.dumps(user.to_json()))).text == "hi \u2028 there"


def test_agent_events_serialise_as_tagged_json_lines() -> None:
    call = ToolCall(id="c", name="shell", arguments={"command": "ls"})
    message = AssistantMessage(content=[TextBlock(text="done")])
    events = [
        TextDelta(text="[/bold] not markup"),
        ToolCallStarted(call=call),
        ToolCallFinished(call=call, result=ToolResultMessage.of(call, "out")),
        UsageUpdate(usage=Usage(input=1), total=Usage(input=1), context_tokens=1, context_window=8192),
        TurnFinished(turn=1, stop_reason="stop", message=message),
        Notice(text="n", level="warning"),
        AgentError(message="bad", hint="fix"),
        RunFinished(stop_reason="stop", turns=1, text="done"),
    ]
    for event in events:
        line = json.dumps(event.to_json())
        parsed = parse_agent_event(json.loads(line))
        assert parsed == event
        assert json.loads(line)["type"] == event.type


def test_usage_adds_costs() -> None:
    from navtui.core.messages import Cost

    total = Usage(input=1, output=2, cost=Cost(total=0.5)) + Usage(input=3, output=4, cost=Cost(total=0.25))
    assert (total.input, total.output, total.cost.total) == (4, 6, 0.75)
