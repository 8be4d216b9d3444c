"""The network thread: a provider's calls and stream run on a loop of their own, and come back in batches."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from navtui.agent.loop import Agent
from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.config.settings import ProviderSettings
from navtui.core.errors import ProviderError
from navtui.core.events import RunFinished, StopEvent, TextDelta, UsageEvent
from navtui.core.messages import AssistantMessage, Usage, UserMessage
from navtui.providers.base import ChatRequest, ListedModel, ModelInfo, ProviderStream, PullProgress
from navtui.providers.network import THREAD_NAME, NetworkProvider, NetworkThread, _is_delta, relay
from navtui.providers.ollama import OllamaProvider
from navtui.tools.approval import ApprovalPolicy
from navtui.tools.base import ToolContext, ToolRegistry
from navtui.tools.files.filestate import FileStateTracker
from navtui.tools.files.workspace import Workspace
from navtui.tools.shell.jobs import JobRegistry
from tests.agent.scripted import ScriptedProvider
from tests.fakes import HttpError, Text
from tests.fakes.server import FakeServer

MODEL = "qwen3:4b"


class Observed(OllamaProvider):
    """The real Ollama provider, noting the thread each call runs on and when its stream has read the reply's end."""

    def __init__(self, server: FakeServer) -> None:
        super().__init__(MODEL, server.url, ProviderSettings())
        self.threads: dict[str, str] = {}
        self.read_to_the_end = threading.Event()

    def _note(self, call: str) -> None:
        self.threads[call] = threading.current_thread().name

    async def model_info(self) -> ModelInfo:
        self._note("model_info")
        return await super().model_info()

    async def describe_models(self) -> list[ListedModel]:
        self._note("describe_models")
        return await super().describe_models()

    async def pull(self, name: str) -> AsyncIterator[PullProgress]:
        self._note("pull")
        async for step in super().pull(name):
            yield step

    async def stream(self, request: ChatRequest) -> ProviderStream:
        self._note("stream")
        async with contextlib.aclosing(super().stream(request)) as events:
            async for event in events:
                if isinstance(event, StopEvent):
                    self.read_to_the_end.set()
                yield event


@pytest_asyncio.fixture
async def network() -> AsyncIterator[Callable[[Any], NetworkProvider]]:
    """Wraps providers for the test; closes them, then the thread."""
    thread = NetworkThread()
    made: list[NetworkProvider] = []

    def wrap(inner: Any) -> NetworkProvider:
        made.append(NetworkProvider(inner, thread))
        return made[-1]

    yield wrap
    for provider in made:
        await provider.aclose()
    await thread.aclose()
    assert not thread.alive


def ask(text: str = "hi") -> ChatRequest:
    return ChatRequest(system="You are navtui.", messages=[UserMessage(content=text)])


def make_agent(provider: Any, tmp_path: Path) -> Agent:
    ctx = ToolContext(
        workspace=Workspace(tmp_path),
        file_state=FileStateTracker(),
        jobs=JobRegistry(),
        artifacts_dir=tmp_path / "artifacts",
    )
    return Agent(provider, ToolRegistry(()), ctx, system_prompt="system", policy=ApprovalPolicy(mode="yolo"))


def network_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == THREAD_NAME]


async def test_what_arrived_while_the_consumer_was_busy_comes_as_one_delta(fake_server: FakeServer, network) -> None:
    text = "".join(f"w{i:03} " for i in range(300))
    fake_server.script_stream(text, tokens_per_second=5000, chunk_chars=5)  # 300 chunks, one token each
    observed = Observed(fake_server)
    async with contextlib.aclosing(network(observed).stream(ask())) as stream:
        first = await anext(stream)
        # The consumer is away (a frame, a Markdown flush): the network thread reads the rest meanwhile.
        assert await asyncio.to_thread(observed.read_to_the_end.wait, 30)
        rest = [event async for event in stream]
    deltas = [first, *(e for e in rest if isinstance(e, TextDelta))]
    assert len(deltas) <= 2 and "".join(d.text for d in deltas) == text  # 300 tokens, at most two events
    assert isinstance(rest[-1], StopEvent) and observed.threads["stream"] == THREAD_NAME


async def test_the_end_of_a_reply_is_not_held_for_more_text() -> None:
    # A text delta that waited for the network is followed by a pause (what comes meanwhile is read in one go);
    # the usage and stop that end a reply are not: the stop follows the usage in the same batch, with the end.
    def usage() -> UsageEvent:
        return UsageEvent(usage=Usage(input=1, output=2))

    async def reply() -> AsyncIterator[Any]:
        for event in (TextDelta(text="a"), TextDelta(text="b"), usage()):
            await asyncio.sleep(0.002)  # the network: the loop turns while the next line comes
            yield event
        yield StopEvent(reason="stop")

    batches: list[list[str]] = []

    def record(items: list[Any]) -> list[Any]:
        batches.append([type(item).__name__ for item in items])
        return items

    thread = NetworkThread()
    try:
        events = [event async for event in relay(thread, reply(), join=record, pace=_is_delta)]
    finally:
        await thread.aclose()
    assert [type(event).__name__ for event in events] == ["TextDelta", "TextDelta", "UsageEvent", "StopEvent"]
    assert batches[-1][-2:] == ["UsageEvent", "StopEvent"]
    assert _is_delta(TextDelta(text="a")) and not _is_delta(usage()) and not _is_delta(StopEvent(reason="stop"))


async def test_every_call_of_the_provider_runs_on_the_network_thread(fake_server: FakeServer, network) -> None:
    fake_server.set_model(MODEL, context_length=4096)
    fake_server.set_pullable("smollm2:135m", steps=3)
    observed = Observed(fake_server)
    provider = network(observed)
    info = await provider.model_info()
    listed = await provider.describe_models()
    steps = [step async for step in provider.pull("smollm2:135m")]
    assert info.context_window == 4096 and MODEL in [m.name for m in listed] and steps[-1].done
    assert provider.continues_reply and provider.can_pull and provider.label == f"ollama:{MODEL}"
    assert observed.threads == {"model_info": THREAD_NAME, "describe_models": THREAD_NAME, "pull": THREAD_NAME}
    assert threading.current_thread().name != THREAD_NAME


async def test_esc_mid_stream_stops_it_at_once_and_closes_the_connection(
    fake_server: FakeServer, network, tmp_path: Path
) -> None:
    fake_server.script(Text("partial "), Text("never shown", delay=60))
    agent = make_agent(network(Observed(fake_server)), tmp_path)
    seen: list[Any] = []
    async for event in agent.run("go"):
        seen.append(event)
        if isinstance(event, TextDelta):
            agent.abort()
    assert isinstance(seen[-1], RunFinished) and seen[-1].stop_reason == "aborted"
    answer = agent.messages[-1]
    assert isinstance(answer, AssistantMessage) and answer.text == "partial " and answer.stop_reason == "aborted"
    assert await fake_server.wait_for_disconnect_async(timeout=10)


async def test_an_error_in_the_stream_keeps_the_partial_text(fake_server: FakeServer, network, tmp_path: Path) -> None:
    fake_server.script(Text("half an "), Text("answer"), HttpError(500, "the GPU fell over"))
    agent = make_agent(network(Observed(fake_server)), tmp_path)
    seen = [event async for event in agent.run("go")]
    answer = next(m for m in agent.messages if isinstance(m, AssistantMessage))
    assert answer.text == "half an answer" and answer.stop_reason == "error"
    assert "the GPU fell over" in (answer.error_message or "")
    assert agent.last_error is not None and (agent.last_error.kind, agent.last_error.retryable) == ("stream", True)
    assert isinstance(seen[-1], RunFinished)  # asked again, as the retry policy says


class Broken(ScriptedProvider):
    """A provider with a bug: it raises after some text."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[Any]:
        yield TextDelta(text="so far ")
        yield TextDelta(text="so good")
        raise KeyError("choices")


async def test_a_provider_bug_on_the_network_thread_reaches_the_agent_as_an_error(network, tmp_path: Path) -> None:
    agent = make_agent(network(Broken()), tmp_path)
    [event async for event in agent.run("go")]
    answer = next(m for m in agent.messages if isinstance(m, AssistantMessage))
    assert answer.text == "so far so good" and answer.stop_reason == "error"
    assert agent.last_error is not None and agent.last_error.kind == "internal"
    assert "KeyError" in agent.last_error.message


async def test_quitting_mid_stream_leaves_no_thread_and_keeps_the_partial_answer(
    fake_server: FakeServer, workspace: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The app's way out: its worker is cancelled, then the runtime closed."""
    fake_server.script(Text("partial "), Text("never shown", delay=60))
    rt = Runtime.create(LaunchOptions(cwd=workspace, provider="ollama", base_url=fake_server.url, model=MODEL))
    assert not network_threads()  # started on first use, not when the runtime is built
    streaming = asyncio.Event()

    async def consume() -> None:
        async for event in rt.run("go"):
            if isinstance(event, TextDelta):
                streaming.set()

    worker = asyncio.create_task(consume())
    await streaming.wait()
    assert len(network_threads()) == 1
    worker.cancel()
    with pytest.raises(asyncio.CancelledError):
        await worker
    await rt.aclose()
    assert not network_threads()
    assert await fake_server.wait_for_disconnect_async(timeout=10)
    answer = next(m for m in rt.agent.messages if isinstance(m, AssistantMessage))
    assert answer.text == "partial " and answer.stop_reason == "aborted"
    assert not [r for r in caplog.records if "destroyed" in r.getMessage() or "never retrieved" in r.getMessage()]


async def test_stopping_the_thread_mid_stream_ends_the_reply_with_an_error(
    fake_server: FakeServer, tmp_path: Path
) -> None:
    fake_server.script(Text("partial "), Text("never shown", delay=60))
    thread = NetworkThread()
    agent = make_agent(NetworkProvider(Observed(fake_server), thread), tmp_path)
    streaming = asyncio.Event()

    async def consume() -> list[Any]:
        seen = []
        async for event in agent.run("go"):
            seen.append(event)
            if isinstance(event, TextDelta):
                streaming.set()
        return seen

    worker = asyncio.create_task(consume())
    await streaming.wait()
    await thread.aclose()
    assert not thread.alive and not network_threads()
    seen = await worker
    assert isinstance(seen[-1], RunFinished) and seen[-1].stop_reason == "error"
    answer = next(m for m in agent.messages if isinstance(m, AssistantMessage))
    assert answer.text == "partial " and "closed the connection" in (answer.error_message or "")
    assert await fake_server.wait_for_disconnect_async(timeout=10)


async def test_a_provider_used_after_the_thread_stopped_says_so(fake_server: FakeServer) -> None:
    thread = NetworkThread()
    provider = NetworkProvider(Observed(fake_server), thread)
    await provider.model_info()
    await provider.aclose()
    await thread.aclose()
    with pytest.raises(ProviderError, match="closing its connections"):
        await provider.model_info()
    with pytest.raises(ProviderError, match="closing its connections"):
        [event async for event in provider.stream(ask())]
