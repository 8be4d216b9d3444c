"""Context scenarios P09-P10: a conversation too long for the model, and a server that silently cut the prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import Notice
from tests.agent.context_fixtures import RoutingServer, build_agent, collect, ollama_provider, settings_with
from tests.agent.test_compaction import _scripted_reads
from tests.fakes import FakeServer, HttpError, Text, Usage


async def test_p09_an_overflow_is_compacted_once_and_the_request_tried_again(tmp_path: Path) -> None:
    with RoutingServer() as server:
        server.set_model("coder", context_length=32768)
        provider = ollama_provider(server, "coder")
        agent, _ = build_agent(provider, tmp_path, read_size=800, settings=settings_with(compaction={}))
        agent.budget.window = 32768
        _scripted_reads(server, 12)  # enough history that a summary frees room
        server.script(HttpError(400, "the input length exceeds the context length"))
        server.script(Text("Finished after the retry."))
        events = await collect(agent, "read four files")
        await provider.aclose()
    kinds = [e.type for e in events]
    assert "error" not in kinds and kinds.count("compaction_started") == 1
    started = next(e for e in events if e.type == "compaction_started")
    assert started.reason == "overflow"
    assert events[-1].stop_reason == "stop" and events[-1].text == "Finished after the retry."
    retry = server.chat_requests[-1].json["messages"]
    assert "compacted into the following summary" in retry[1]["content"]
    assert not any(m.role == "assistant" and m.stop_reason == "error" for m in agent.messages)


async def test_p09_an_overflow_inside_a_llamacpp_stream_is_compacted_not_asked_again(tmp_path: Path) -> None:
    """llama.cpp reports the context filling up mid-reply in the 200 stream: compacted once and tried again,
    never asked again as a broken stream (each try re-reads the whole prompt to overflow the same way)."""
    from navtui.config.settings import ProviderSettings
    from navtui.providers.openai import OpenAIProvider

    with RoutingServer() as server:
        server.set_model("coder", context_length=32768)
        provider = OpenAIProvider("coder", server.url, ProviderSettings(max_tokens=512))
        agent, _ = build_agent(provider, tmp_path, read_size=800, settings=settings_with(compaction={}))
        agent.budget.window = 32768
        _scripted_reads(server, 12)
        exceeded = HttpError(500, "Context size has been exceeded.", error_type="exceed_context_size_error")
        server.script(Text("The modules are"), exceeded)
        server.script(Text("Finished after the compaction."))
        events = await collect(agent, "read four files")
        await provider.aclose()
    kinds = [e.type for e in events]
    assert kinds.count("compaction_started") == 1 and "error" not in kinds
    assert not any(e.type == "notice" and "asking again" in e.text for e in events)
    assert events[-1].stop_reason == "stop" and events[-1].text == "Finished after the compaction."


async def test_p09_a_second_overflow_is_an_error_not_a_loop(tmp_path: Path) -> None:
    with RoutingServer() as server:
        server.set_model("coder", context_length=32768)
        provider = ollama_provider(server, "coder")
        agent, _ = build_agent(provider, tmp_path, read_size=800)
        agent.budget.window = 32768
        _scripted_reads(server, 12)  # enough history that the compaction shrinks it, so the retry is sent
        server.script(HttpError(400, "the input length exceeds the context length"))
        server.script(HttpError(400, "the input length exceeds the context length"))
        events = await collect(agent, "go")
        await provider.aclose()
        requests = len(server.chat_requests)
    assert [e.type for e in events].count("compaction_started") == 1
    assert events[-1].stop_reason == "error"
    assert any(e.type == "error" and "context length" in e.message for e in events)
    assert requests == 12 + 2 + server.summaries  # the reads, the two overflows and the summaries: no loop


async def test_p10_a_prompt_that_filled_the_window_is_reported_and_num_ctx_was_sent(
    fake_server: FakeServer, workspace: Path
) -> None:
    fake_server.set_model("small:1b", context_length=4096)
    fake_server.script(Text("fine"), Usage(input=4080, output=5))  # Ollama counted a prompt cut to the window
    runtime = Runtime.create(
        LaunchOptions(cwd=workspace, provider="ollama", base_url=fake_server.url, model="small:1b")
    )
    events: list[Any] = [event async for event in runtime.run("hello")]
    await runtime.aclose()
    assert fake_server.chat_requests[0].json["options"]["num_ctx"] == 4096
    warnings = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert any("filled the model's whole window (4080 of 4096 tokens)" in w for w in warnings)
