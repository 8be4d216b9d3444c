"""Esc at every point of a request, for every provider (the runtime, its network thread and the real clients
against the fake): while connecting, in a retry's wait, with a tool call's arguments half sent. The run ends
aborted at once, the connection is closed, nothing is left running on the network loop, and the session goes on.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from navtui.core.events import Notice, RunFinished, TextDelta, ToolCallStarted
from navtui.core.messages import AssistantMessage
from tests.fakes import FakeServer, HttpError, RawLine, Stall, Text
from tests.reliability import test_providers as scenarios
from tests.reliability.test_providers import MODELS, Harness

# The provider scenarios' fixtures: a runtime per provider (``kind``) on the fake, retries on a fake clock.
harness, kind, settings = scenarios.harness, scenarios.kind, scenarios.settings

ABORT_WITHIN = 10.0  # seconds: generous for a loaded machine; an abort that waits for the server takes 60


async def run_until(h: Harness, prompt: str, abort_when: Any) -> list[Any]:
    """Run ``prompt``, aborting once ``abort_when(event)`` is true (or once it is true of the server)."""
    events: list[Any] = []

    async def consume() -> None:
        async for event in h.runtime.run(prompt):
            events.append(event)
            if abort_when(event):
                h.runtime.abort()

    await asyncio.wait_for(consume(), ABORT_WITHIN)
    return events


async def network_tasks(h: Harness) -> list[str]:
    """What still runs on the runtime's network loop, besides this look."""

    async def look() -> list[str]:
        # An async generator the collector finalised just before this look has its aclose() scheduled as a task by
        # the loop's finaliser hook (seen once under load: '<async_generator_athrow ...>'); it ends at its first
        # step, so let pending steps run before looking.
        for _ in range(3):
            await asyncio.sleep(0)
        me = asyncio.current_task()
        return [repr(task.get_coro()) for task in asyncio.all_tasks() if task is not me]

    return await h.runtime.network.call(look())


async def assert_resumable(h: Harness, server: FakeServer, last: str = "aborted") -> None:
    """The conversation goes on after the abort: the next request is valid history and is answered. ``last``: how
    the answer before it ended."""
    server.script(Text("still here"))
    events = [event async for event in h.runtime.run("and now?")]
    assert isinstance(events[-1], RunFinished) and events[-1].text == "still here"
    assert server.invalid_requests() == []
    saved = h.saved()
    assert saved[-1].text == "still here" and saved[-2].stop_reason == last


async def test_esc_while_connecting_closes_the_connection(harness, fake_server: FakeServer) -> None:
    """The server took the request and says nothing (a model loading, a proxy queueing)."""
    fake_server.script(Stall(60))
    h = harness()
    asked = asyncio.ensure_future(asyncio.to_thread(fake_server.wait_for_chat_requests, 1, ABORT_WITHIN))

    async def abort_when_asked() -> None:
        await asked
        h.runtime.abort()

    aborter = asyncio.ensure_future(abort_when_asked())
    events = await run_until(h, "go", lambda _event: False)
    await aborter
    assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "aborted"
    assert await fake_server.wait_for_disconnect_async(timeout=ABORT_WITHIN)
    assert await network_tasks(h) == []
    await assert_resumable(h, fake_server)


async def test_esc_while_the_run_is_prepared_is_not_lost(fake_server: FakeServer, workspace, navtui_home) -> None:
    """Esc before the request goes out (the window asked, the notices said, MCP servers starting): the run ends
    aborted and nothing is sent. The agent's run used to begin afresh after it and send the request anyway."""
    h = Harness("openai", fake_server, workspace, navtui_home, {})
    try:
        # The first thing the run says is the unknown window, before the agent's run has begun.
        events = await run_until(h, "go", lambda e: isinstance(e, Notice) and "is unknown" in e.text)
        assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "aborted"
        assert fake_server.chat_requests == [] and not any(isinstance(e, TextDelta) for e in events)
        await assert_resumable(h, fake_server)
    finally:
        await h.runtime.aclose()


async def test_esc_in_a_retrys_wait_sends_nothing_more(harness, fake_server: FakeServer) -> None:
    fake_server.script(HttpError(503, "Overloaded", error_type="overloaded_error", retry_headers=False))
    h = harness()
    waits: list[float] = []

    async def long_wait(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(3600)

    h.runtime.provider.retry.sleep = long_wait
    events = await run_until(h, "go", lambda e: isinstance(e, Notice) and "retrying in" in e.text)
    assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "aborted"
    assert len(waits) == 1 and len(fake_server.chat_requests) == 1  # no second try after Esc
    assert await network_tasks(h) == []
    await assert_resumable(h, fake_server)


async def test_esc_in_the_wait_before_asking_again_after_a_broken_answer(harness, fake_server: FakeServer) -> None:
    """The answer broke off after some text: the agent waits, then asks again; Esc in that wait ends the run."""
    fake_server.script(Text("Half an "), HttpError(503, "Overloaded", error_type="overloaded_error"))
    h = harness()

    async def long_wait(seconds: float) -> None:
        await asyncio.sleep(3600)

    h.runtime.provider.retry.sleep = long_wait
    events = await run_until(h, "go", lambda e: isinstance(e, Notice) and "asking again" in e.text)
    assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "aborted"
    assert len(fake_server.chat_requests) == 1 and await network_tasks(h) == []
    await assert_resumable(h, fake_server, last="error")  # the broken answer, kept; nothing was asked after it


def half_a_call(provider: str) -> tuple[Any, ...]:
    """Text, then a write call whose arguments stop half-way, and silence: the wire's own frames."""
    if provider == "openai":
        head = {"index": 0, "id": "call_w", "type": "function", "function": {"name": "write", "arguments": ""}}
        frames = [{"tool_calls": [head]}, {"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "a.'}}]}]
        lines = [json.dumps({"choices": [{"index": 0, "delta": d, "finish_reason": None}]}) for d in frames]
        return (Text("Writing it."), *(RawLine(line) for line in lines), Stall(60, resume=True))
    if provider == "anthropic":
        start = {"type": "content_block_start", "index": 1,
                 "content_block": {"type": "tool_use", "id": "toolu_w", "name": "write", "input": {}}}  # fmt: skip
        delta = {"type": "content_block_delta", "index": 1,
                 "delta": {"type": "input_json_delta", "partial_json": '{"path": "a.'}}  # fmt: skip
        return (
            Text("Writing it."),
            RawLine(json.dumps({"type": "content_block_stop", "index": 0}), event="content_block_stop"),
            RawLine(json.dumps(start), event="content_block_start"),
            RawLine(json.dumps(delta), event="content_block_delta"),
            Stall(60, resume=True),
        )
    # Ollama sends a call whole, in one chunk: the nearest point is after it, before the reply is done.
    call = {"function": {"name": "write", "arguments": {"path": "a.txt", "content": "x"}}}
    chunk = {
        "model": MODELS["ollama"],
        "message": {"role": "assistant", "content": "", "tool_calls": [call]},
        "done": False,
    }
    return (Text("Writing it."), RawLine(json.dumps(chunk)), Stall(60, resume=True))


async def test_esc_with_a_tool_call_half_sent_runs_nothing(
    harness, fake_server: FakeServer, kind: str, workspace
) -> None:
    fake_server.script(*half_a_call(kind))
    h = harness()
    events = await run_until(h, "write a.txt", lambda e: isinstance(e, TextDelta))
    assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "aborted"
    assert not any(isinstance(e, ToolCallStarted) for e in events) and not (workspace / "a.txt").exists()
    assert await fake_server.wait_for_disconnect_async(timeout=ABORT_WITHIN)
    assert await network_tasks(h) == []
    answer = h.saved()[-1]
    assert isinstance(answer, AssistantMessage) and answer.tool_calls == [] and answer.text == "Writing it."
    await assert_resumable(h, fake_server)


async def test_esc_while_the_mcp_servers_start_ends_the_run_at_once(
    fake_server: FakeServer, workspace, navtui_home, tmp_path, monkeypatch
) -> None:
    """Esc while the first request waits for an MCP server still starting (npx downloading a package): the run
    ends then, not once the wait (mcp's request wait, 10 s) is over; nothing is sent, the server keeps starting."""
    from navtui.mcp import manager as manager_module
    from navtui.mcp.config import user_config_path
    from tests.mcp.conftest import stdio_entry, write_servers

    monkeypatch.setattr(manager_module, "REQUEST_WAIT", 3600.0)  # without Esc honoured, the wait would not end
    entry = stdio_entry(tmp_path)
    entry["env"] = {**entry["env"], "MCP_TEST_SLOW_START": "120"}
    write_servers(user_config_path(), {"slow": entry})
    h = Harness("openai", fake_server, workspace, navtui_home, {})
    try:
        # The unknown window is said just before the run waits for the servers.
        events = await run_until(h, "go", lambda e: isinstance(e, Notice) and "is unknown" in e.text)
        assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "aborted"
        assert fake_server.chat_requests == []
        assert h.runtime.mcp is not None and h.runtime.mcp.connections["slow"].state == "starting"
    finally:
        await h.runtime.aclose()
