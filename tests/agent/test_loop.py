"""The agent loop as a specification: turns, tools, cancellation, errors, limits."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from navtui.agent.loop import ABORTED_RESULT, SKIPPED_RESULT, Agent
from navtui.core.events import (
    AgentError,
    ErrorEvent,
    RunFinished,
    StopEvent,
    StreamFinished,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutput,
    TurnFinished,
    UsageUpdate,
)
from navtui.core.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from navtui.tools.approval import ApprovalPolicy, ApprovalRequest, ApprovalResponse
from navtui.tools.base import Tool, ToolContext, ToolRegistry, ToolResult
from navtui.tools.files.filestate import FileStateTracker
from navtui.tools.files.workspace import Workspace
from navtui.tools.shell.jobs import JobRegistry
from tests.agent.history import history_is_valid
from tests.agent.scripted import Pause, ScriptedProvider, calls, text


class EchoArgs(BaseModel):
    value: str


class EchoTool(Tool[EchoArgs]):
    name = "echo"
    description = "Echo a value"
    Args = EchoArgs

    async def run(self, args: EchoArgs, ctx: ToolContext) -> ToolResult:
        ctx.on_output(f"echoing {args.value}")
        return ToolResult(text=f"echo: {args.value}")


class BoomTool(Tool[EchoArgs]):
    name = "boom"
    description = "Always raises"
    Args = EchoArgs

    async def run(self, args: EchoArgs, ctx: ToolContext) -> ToolResult:
        raise RuntimeError(f"exploded on {args.value}")


class SlowArgs(BaseModel):
    seconds: float


class SlowTool(Tool[SlowArgs]):
    name = "slow"
    description = "Sleeps"
    Args = SlowArgs
    tier = "exec"

    def __init__(self) -> None:
        self.cancelled = False

    async def run(self, args: SlowArgs, ctx: ToolContext) -> ToolResult:
        try:
            await asyncio.sleep(args.seconds)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult(text="slept")


class RecordingApprover:
    def __init__(self, answer: ApprovalResponse) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalResponse:
        self.requests.append(request)
        return self.answer


def make_agent(provider: ScriptedProvider, tmp_path: Path, *tools: Tool[Any], **kwargs: Any) -> Agent:
    ctx = ToolContext(
        workspace=Workspace(tmp_path),
        file_state=FileStateTracker(),
        jobs=JobRegistry(),
        artifacts_dir=tmp_path / "artifacts",
    )
    registry = ToolRegistry(tools or (EchoTool(), BoomTool(), SlowTool()))
    kwargs.setdefault("policy", ApprovalPolicy(mode="yolo"))
    return Agent(provider, registry, ctx, system_prompt="system", **kwargs)


async def collect(agent: Agent, prompt: str | None) -> list[Any]:
    return [event async for event in agent.run(prompt)]


async def test_text_reply_streams_and_finishes(tmp_path: Path) -> None:
    provider = ScriptedProvider(text("Hello ", "world", usage=(12, 3)))
    agent = make_agent(provider, tmp_path)
    events = await collect(agent, "hi")
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas) == "Hello world"
    assert isinstance(events[-1], RunFinished)
    assert events[-1].stop_reason == "stop" and events[-1].text == "Hello world"
    usage = next(e for e in events if isinstance(e, UsageUpdate))
    assert usage.total.input == 12 and usage.total.output == 3
    assert [m.role for m in agent.messages] == ["user", "assistant"]
    assert provider.requests[0].system == "system"


async def test_a_burst_of_deltas_reaches_the_consumer_as_one_event_per_kind(tmp_path: Path) -> None:
    """What the provider yielded while the consumer was busy arrives joined: one delta per burst, same text."""
    words = [f"w{i} " for i in range(200)]
    thoughts = [ThinkingDelta(text=f"t{i} ") for i in range(50)]
    provider = ScriptedProvider([*thoughts, *[TextDelta(text=w) for w in words], StopEvent(reason="stop")])
    agent = make_agent(provider, tmp_path)
    events = await collect(agent, "hi")
    streamed = [e for e in events if isinstance(e, TextDelta | ThinkingDelta)]
    assert [type(e) for e in streamed] == [ThinkingDelta, TextDelta]
    assert streamed[0].text == "".join(t.text for t in thoughts) and streamed[1].text == "".join(words)
    answer = agent.messages[-1]
    assert isinstance(answer, AssistantMessage) and answer.text == "".join(words)
    assert [type(b).__name__ for b in answer.content] == ["ThinkingBlock", "TextBlock"]


async def test_text_after_a_tool_call_is_a_block_of_its_own(tmp_path: Path) -> None:
    call = ToolCall(id="c0", name="echo", arguments={"value": "x"})
    provider = ScriptedProvider(
        [TextDelta(text="one "), TextDelta(text="two"), ToolCallEvent(call=call), TextDelta(text="three"),
         StopEvent(reason="tool_use")],
        text("done"),
    )  # fmt: skip
    agent = make_agent(provider, tmp_path)
    await collect(agent, "hi")
    first = next(m for m in agent.messages if isinstance(m, AssistantMessage))
    assert [getattr(b, "text", b.type) for b in first.content] == ["one two", "toolCall", "three"]


async def test_multi_tool_turn_runs_in_order_and_feeds_results_back(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        calls(("echo", {"value": "a"}), ("echo", {"value": "b"})),
        text("done"),
    )
    agent = make_agent(provider, tmp_path)
    events = await collect(agent, "go")
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [f.result.text for f in finished] == ["echo: a", "echo: b"]
    outputs = [e.text for e in events if isinstance(e, ToolOutput)]
    assert outputs == ["echoing a", "echoing b"]
    second = provider.requests[1].messages
    assert [m.role for m in second] == ["user", "assistant", "toolResult", "toolResult"]
    assert [m.tool_call_id for m in second[2:]] == ["c0", "c1"]
    assert agent.messages[1].stop_reason == "tool_use"
    assert history_is_valid(agent.messages)


async def test_tool_exception_becomes_error_result(tmp_path: Path) -> None:
    provider = ScriptedProvider(calls(("boom", {"value": "x"})), text("sorry"))
    agent = make_agent(provider, tmp_path)
    events = await collect(agent, "go")
    result = next(e for e in events if isinstance(e, ToolCallFinished)).result
    assert result.is_error and "exploded on x" in result.text
    assert events[-1].stop_reason == "stop"


async def test_bad_arguments_and_unknown_tool_go_back_to_the_model(tmp_path: Path) -> None:
    provider = ScriptedProvider(calls(("echo", {"wrong": 1}), ("nope", {})), text("fixed"))
    agent = make_agent(provider, tmp_path)
    events = await collect(agent, "go")
    results = [e.result for e in events if isinstance(e, ToolCallFinished)]
    assert results[0].is_error and "value" in results[0].text and "Field required" in results[0].text
    assert results[1].is_error and "Unknown tool 'nope'" in results[1].text and "echo" in results[1].text


async def test_max_turns_stops_the_loop(tmp_path: Path) -> None:
    provider = ScriptedProvider(*[calls(("echo", {"value": str(i)})) for i in range(10)])
    agent = make_agent(provider, tmp_path, max_turns=3)
    events = await collect(agent, "loop forever")
    assert len(provider.requests) == 3
    assert events[-1].stop_reason == "length" and events[-1].turns == 3
    assert history_is_valid(agent.messages)


async def test_abort_mid_stream_keeps_partial_text(tmp_path: Path) -> None:
    provider = ScriptedProvider([TextDelta(text="partial "), Pause(30), TextDelta(text="never")])
    agent = make_agent(provider, tmp_path)
    seen: list[Any] = []
    async for event in agent.run("go"):
        seen.append(event)
        if isinstance(event, TextDelta):
            agent.abort()
    assert seen[-1].stop_reason == "aborted"
    last = agent.messages[-1]
    assert isinstance(last, AssistantMessage) and last.text == "partial " and last.stop_reason == "aborted"
    assert provider.closed_streams == 1  # the provider stream was closed, not left open


async def test_abort_mid_tool_cancels_it_and_answers_every_call(tmp_path: Path) -> None:
    slow = SlowTool()
    provider = ScriptedProvider(calls(("slow", {"seconds": 30}), ("echo", {"value": "later"})))
    agent = make_agent(provider, tmp_path, EchoTool(), slow)
    seen: list[Any] = []
    async for event in agent.run("go"):
        seen.append(event)
        if isinstance(event, ToolCallStarted):
            asyncio.get_running_loop().call_later(0.05, agent.abort)
    assert slow.cancelled
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert [r.text for r in results] == [ABORTED_RESULT, ABORTED_RESULT]
    assert history_is_valid(agent.messages)
    assert seen[-1].stop_reason == "aborted"


async def test_cancelling_the_consumer_task_leaves_history_valid(tmp_path: Path) -> None:
    provider = ScriptedProvider(calls(("slow", {"seconds": 30})))
    agent = make_agent(provider, tmp_path)
    started = asyncio.Event()

    async def consume() -> None:
        async for event in agent.run("go"):
            if isinstance(event, ToolCallStarted):
                started.set()

    task = asyncio.create_task(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not agent.running
    assert history_is_valid(agent.messages)
    assert agent.messages[-1].text == ABORTED_RESULT


async def test_cancelling_the_consumer_mid_stream_keeps_the_partial_answer(tmp_path: Path) -> None:
    provider = ScriptedProvider([TextDelta(text="some words"), Pause(30)])
    agent = make_agent(provider, tmp_path)

    streamed = asyncio.Event()

    async def consume() -> None:
        async for event in agent.run("go"):
            if isinstance(event, TextDelta):
                streamed.set()  # the provider now pauses: cancel mid-stream

    task = asyncio.create_task(consume())
    await asyncio.wait_for(streamed.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    last = agent.messages[-1]
    assert isinstance(last, AssistantMessage) and last.text == "some words" and last.stop_reason == "aborted"


async def test_provider_error_keeps_partial_text_and_reports(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [TextDelta(text="half an ans"), ErrorEvent(message="connection dropped", kind="stream")]
    )
    agent = make_agent(provider, tmp_path)
    events = await collect(agent, "go")
    assert any(isinstance(e, AgentError) and "connection dropped" in e.message for e in events)
    assert events[-1].stop_reason == "error" and events[-1].text == "half an ans"
    assert agent.messages[-1].stop_reason == "error"


async def test_approval_denied_goes_back_with_reason(tmp_path: Path) -> None:
    approver = RecordingApprover(ApprovalResponse(approved=False, reason="not now"))
    provider = ScriptedProvider(calls(("slow", {"seconds": 0})), text("ok"))
    agent = make_agent(provider, tmp_path, policy=ApprovalPolicy(mode="write"), approver=approver)
    events = await collect(agent, "go")
    assert approver.requests[0].tool == "slow" and approver.requests[0].tier == "exec"
    result = next(e for e in events if isinstance(e, ToolCallFinished)).result
    assert result.is_error and "denied" in result.text and "not now" in result.text


async def test_approval_always_allows_the_tool_for_the_session(tmp_path: Path) -> None:
    approver = RecordingApprover(ApprovalResponse(approved=True, always=True))
    provider = ScriptedProvider(calls(("slow", {"seconds": 0})), calls(("slow", {"seconds": 0.001})), text("ok"))
    agent = make_agent(provider, tmp_path, policy=ApprovalPolicy(mode="ask"), approver=approver)
    events = await collect(agent, "go")
    assert len(approver.requests) == 1
    assert [e.result.text for e in events if isinstance(e, ToolCallFinished)] == ["slept", "slept"]


async def test_steering_skips_remaining_tools_and_injects_message(tmp_path: Path) -> None:
    provider = ScriptedProvider(calls(("echo", {"value": "1"}), ("echo", {"value": "2"})), text("steered"))
    agent = make_agent(provider, tmp_path)
    async for event in agent.run("go"):
        if isinstance(event, ToolCallFinished) and event.call.id == "c0":
            agent.steer("Stop: you are editing the wrong file.")
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert results[1].text == SKIPPED_RESULT
    last_request = provider.requests[-1].messages
    assert isinstance(last_request[-1], UserMessage) and "wrong file" in last_request[-1].text


async def test_thinking_and_signature_accumulate_into_blocks(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [
            ThinkingDelta(text="let me "),
            ThinkingDelta(text="think"),
            ThinkingDelta(signature="sig-1"),
            TextDelta(text="answer"),
            ToolCallEvent(call=ToolCall(id="t1", name="echo", arguments={"value": "v"})),
            StopEvent(reason="stop"),
        ],
        text("done"),
    )
    agent = make_agent(provider, tmp_path)
    await collect(agent, "go")
    assistant = agent.messages[1]
    assert assistant.thinking == "let me think"
    assert assistant.content[0].thinking_signature == "sig-1"
    assert assistant.stop_reason == "tool_use"  # calls present means tool_use whatever the server said


async def test_continue_without_prompt_uses_existing_history(tmp_path: Path) -> None:
    provider = ScriptedProvider(text("continued"))
    history = [UserMessage(content="earlier question")]
    agent = make_agent(provider, tmp_path, messages=history)
    events = await collect(agent, None)
    assert [m.text for m in provider.requests[0].messages] == ["earlier question"]
    assert isinstance(events[-1], RunFinished) and events[-1].text == "continued"


async def test_turn_finished_carries_the_message(tmp_path: Path) -> None:
    provider = ScriptedProvider(text("x"))
    agent = make_agent(provider, tmp_path)
    events = await collect(agent, "go")
    turn = next(e for e in events if isinstance(e, TurnFinished))
    assert turn.message.text == "x" and turn.stop_reason == "stop"


class ListRecorder:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    def append_message(self, message: Any) -> str:
        self.messages.append(message)
        return str(len(self.messages))

    def sync(self) -> None:
        pass


async def test_the_stream_ends_before_the_answer_is_recorded_and_measured(tmp_path: Path) -> None:
    # A screen shows the answer's end at stream_finished: nothing the agent does with the answer (its record, the
    # usage and budget, the checks) has run yet, and all of it has by turn_finished.
    recorder = ListRecorder()
    provider = ScriptedProvider(calls(("echo", {"value": "a"})), text("Hello ", "world", usage=(12, 3)))
    agent = make_agent(provider, tmp_path, recorder=recorder)
    seen: list[tuple[str, list[str]]] = []
    async for event in agent.run("hi"):
        seen.append((event.type, [m.role for m in recorder.messages]))
        if isinstance(event, StreamFinished) and event.turn == 2:
            assert [m.role for m in agent.messages][-1] == "toolResult"  # not the answer yet
    types = [kind for kind, _ in seen]
    assert types.count("stream_finished") == 2
    first, second = (i for i, kind in enumerate(types) if kind == "stream_finished")
    # per turn: the deltas, then stream_finished, then the usage and turn_finished
    assert types[first - 1] == "turn_started" and types[first + 1] == "tool_call_started"
    assert types[second - 1] == "text_delta" and types[second + 1 : second + 3] == ["usage_update", "turn_finished"]
    assert seen[first][1] == ["user"] and seen[second][1] == ["user", "assistant", "toolResult"]
    assert seen[second + 1][1] == ["user", "assistant", "toolResult", "assistant"]  # recorded right after


class FailingRecorder(ListRecorder):
    def sync(self) -> None:
        from navtui.core.errors import NavtuiError

        raise NavtuiError("No space left on device")


async def test_a_failing_session_disk_is_a_notice_not_a_crash(tmp_path: Path) -> None:
    from navtui.core.events import Notice

    recorder = FailingRecorder()
    agent = make_agent(ScriptedProvider(text("answer")), tmp_path, recorder=recorder)
    events = await collect(agent, "go")
    notices = [e for e in events if isinstance(e, Notice)]
    assert notices and "No space left on device" in notices[0].text and notices[0].level == "error"
    assert events[-1].stop_reason == "stop" and events[-1].text == "answer"
    assert [m.role for m in recorder.messages] == ["user", "assistant"]
