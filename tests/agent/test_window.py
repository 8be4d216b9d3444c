"""Small windows end to end: what the runtime asks the server for once it knows a 2k-8k window."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.agent.window import MIN_OUTPUT, output_limit
from navtui.core.events import AgentError, Notice
from tests.agent.context_fixtures import RoutingServer, build_agent, collect, ollama_provider, settings_with
from tests.fakes import HttpError, Text, ToolCall
from tests.fakes.server import FakeServer

MODEL = "coder-model"


def runtime_for(server: FakeServer, workspace: Path, approval: str | None = None, **providers: object) -> Runtime:
    options = LaunchOptions(
        cwd=workspace, model=MODEL, provider="openai", base_url=server.url, ephemeral=True, approval=approval
    )
    runtime = Runtime.create(options)
    for key, value in providers.items():
        setattr(runtime.settings.providers, key, value)
    return runtime


async def run(runtime: Runtime, prompt: str) -> list[object]:
    try:
        return [event async for event in runtime.run(prompt)]
    finally:
        await runtime.aclose()


@pytest.mark.parametrize(
    ("window", "prompt", "wanted", "expected"),
    [
        (4096, 1800, 8192, 4096 - 1800 - 122),  # capped to what is left
        (4096, 1000, 500, 500),  # what was asked for fits
        (4096, 4000, 8192, MIN_OUTPUT),  # never below a useful answer
        (None, 1800, 8192, 8192),  # unknown window: as asked
    ],
)
def test_output_limit_fits_prompt_and_answer_in_the_window(
    window: int | None, prompt: int, wanted: int, expected: int
) -> None:
    assert output_limit(window, prompt, wanted) == expected


async def test_a_4k_window_gets_the_compact_prompt_core_tools_and_a_capped_output(
    fake_server: FakeServer, workspace: Path
) -> None:
    fake_server.set_llamacpp(n_ctx=4096)
    fake_server.script(Text("Hello."))
    events = await run(runtime_for(fake_server, workspace), "say hello")
    body = fake_server.chat_requests[-1].json
    assert [t["function"]["name"] for t in body["tools"]] == ["read", "write", "edit", "shell", "ls"]
    assert all(". " not in t["function"]["description"] for t in body["tools"])  # one sentence each
    system = body["messages"][0]["content"]
    assert len(system) < 1200 and "Environment:" in system
    assert len(str(body)) // 4 + body["max_tokens"] <= 4096
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("compact prompt with the core tools" in n for n in notices)


async def test_a_large_window_keeps_every_tool(fake_server: FakeServer, workspace: Path) -> None:
    fake_server.set_llamacpp(n_ctx=32768)
    await run(runtime_for(fake_server, workspace), "say hello")
    body = fake_server.chat_requests[-1].json
    assert {"grep", "find", "shell_status"} <= {t["function"]["name"] for t in body["tools"]}
    assert body["max_tokens"] == 8192


async def test_an_unknown_window_is_said_at_the_start_with_the_setting(
    fake_server: FakeServer, workspace: Path
) -> None:
    events = await run(runtime_for(fake_server, workspace), "say hello")
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("is unknown" in n and "providers.context_window" in n for n in notices)


async def test_a_known_model_on_a_local_server_is_not_given_its_published_window(
    fake_server: FakeServer, workspace: Path
) -> None:
    """gpt-oss on a server that does not say its window: not the 131,072 tokens a local server seldom runs, but
    unknown, and the first run says what to set and where the server's window comes from."""
    options = LaunchOptions(
        cwd=workspace, model="gpt-oss-20b", provider="openai", base_url=fake_server.url, ephemeral=True
    )
    runtime = Runtime.create(options)
    events = await run(runtime, "say hello")
    assert runtime.agent.budget.window is None
    [said] = [e.text for e in events if isinstance(e, Notice) and "is unknown" in e.text]
    assert "far less than the model's 131,072 tokens" in said and "providers.context_window" in said
    assert "llama.cpp -c" in said


async def test_a_window_too_small_for_the_prompt_sends_nothing(fake_server: FakeServer, workspace: Path) -> None:
    fake_server.set_llamacpp(n_ctx=512)
    events = await run(runtime_for(fake_server, workspace), "say hello")
    (error,) = [e for e in events if isinstance(e, AgentError)]
    assert "512" in error.message and fake_server.chat_requests == []


async def test_index_tools_are_offered_only_with_an_index(fake_server: FakeServer, workspace: Path) -> None:
    from navtui.index import build_index

    (workspace / "a.py").write_text("def f():\n    return 1\n")
    fake_server.set_llamacpp(n_ctx=32768)
    await run(runtime_for(fake_server, workspace), "hi")
    assert "code_search" not in str(fake_server.chat_requests[-1].json["tools"])
    build_index(workspace)
    await run(runtime_for(fake_server, workspace), "hi")
    assert "code_search" in str(fake_server.chat_requests[-1].json["tools"])


async def test_a_compaction_that_does_not_shrink_is_not_applied_nor_retried(tmp_path: Path) -> None:
    """Seen: 8,648 -> 9,115 characters after compaction, then an overflow. Now the context stays and the run ends."""
    long_summary = "## Goal\n" + "Keep every detail of everything. " * 200
    with RoutingServer(summary=long_summary) as server:
        server.set_model("coder", context_length=32768)
        agent, _ = build_agent(ollama_provider(server, "coder"), tmp_path, settings=settings_with(compaction={}))
        agent.budget.window = 32768
        server.script(ToolCall("read", {"path": "a"}))
        server.script(HttpError(400, "the input length exceeds the context length"))
        server.script(Text("never sent"))
        events = await collect(agent, "read a")
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("did not make the context smaller" in n for n in notices)
    assert not any(e.type == "compaction_finished" for e in events)
    assert events[-1].stop_reason == "error"
    assert any(isinstance(e, AgentError) and "could not shrink" in e.message for e in events)
    assert server.pending() == 1  # the overflowing request was not sent again


async def test_near_the_limit_the_servers_tokenizer_counts(fake_server: FakeServer, tmp_path: Path) -> None:
    """bytes/4 undercounts code; llama.cpp's /tokenize says how many tokens the request really is."""
    from navtui.config.settings import ProviderSettings
    from navtui.core.messages import UserMessage
    from navtui.providers.openai import OpenAIProvider

    fake_server.set_llamacpp(n_ctx=4096)
    provider = OpenAIProvider("m", fake_server.url, ProviderSettings())
    await provider.model_info()
    agent, _ = build_agent(provider, tmp_path, window=4096, messages=[UserMessage(content="word " * 2000)])
    fake_server.script(Text("ok"))
    await collect(agent, None)
    assert [r.path for r in fake_server.requests].count("/tokenize") == 1
    # The fake counts a token per 3 characters, not 4: the output limit shrinks to what really is left.
    assert fake_server.chat_requests[-1].json["max_tokens"] < 1000


async def test_a_read_the_window_cannot_hold_is_cut_to_fit_never_pruned_and_the_file_not_replaced_blind(
    fake_server: FakeServer, workspace: Path
) -> None:
    """Seen with the 1.5B at 4k: a 300-line read was pruned before the model saw it (the next request grew by 33
    tokens), navtui counted the file as read, and the model overwrote it with one line (+1 -300)."""
    import json

    fake_server.set_llamacpp(n_ctx=4096)  # its /tokenize counts one token per 3 characters: more than bytes/4
    original = "".join(f"OPTION_{i:03d} = {i * 7 % 101}  # option {i}\n" for i in range(300))
    (workspace / "settings.py").write_text(original)
    fake_server.script(ToolCall("read", {"path": "settings.py"}))
    fake_server.script(ToolCall("write", {"path": "settings.py", "content": "TIMEOUT = 45\n"}))
    fake_server.script(Text("Done."))
    events = await run(runtime_for(fake_server, workspace, approval="yolo"), "set TIMEOUT to 45")
    second = fake_server.chat_requests[1].json
    seen = second["messages"][-1]["content"]
    assert "OPTION_000 = 0" in seen and "output pruned" not in seen
    assert "[cut to fit the model's context window after line " in seen and "offset=" in seen
    assert len(json.dumps(second["messages"])) // 3 + second["max_tokens"] <= 4096
    sent = [json.dumps(r.json["messages"]) for r in fake_server.chat_requests[2:]]
    assert any("Not written: you have seen only part of settings.py" in text for text in sent)
    assert (workspace / "settings.py").read_text() == original
    for request in fake_server.chat_requests:
        assert len(json.dumps(request.json["messages"])) // 3 <= 4096
    assert any(isinstance(e, Notice) and "Trimmed" in e.text for e in events)


async def test_a_request_that_cannot_fit_is_not_sent(fake_server: FakeServer, tmp_path: Path) -> None:
    """Seen: a 6,405-token request went to a 4,096-token window twice, after "nothing to compact"."""
    from navtui.config.settings import ProviderSettings
    from navtui.core.messages import AssistantMessage, TextBlock, UserMessage
    from navtui.providers.openai import OpenAIProvider

    fake_server.set_llamacpp(n_ctx=4096)
    provider = OpenAIProvider("m", fake_server.url, ProviderSettings())
    await provider.model_info()
    history: list[object] = []
    for i in range(150):  # many short messages: nothing to prune, none long enough to trim
        history += [UserMessage(content=f"note {i}: " + "word " * 20), AssistantMessage(content=[TextBlock(text="ok")])]
    settings = settings_with(compaction={"strategy": "off"})
    agent, _ = build_agent(provider, tmp_path, window=4096, settings=settings, messages=[*history])
    fake_server.script(Text("never sent"))
    try:
        events = await collect(agent, "and now?")
    finally:
        await provider.aclose()
    (error,) = [e for e in events if isinstance(e, AgentError)]
    assert "does not fit the model's window of 4096 tokens" in error.message and error.hint
    assert fake_server.chat_requests == []


async def test_a_window_assumed_for_ollamas_openai_endpoint_is_said_with_the_way_out(
    fake_server: FakeServer, workspace: Path
) -> None:
    """Ollama's /v1 runs a cold model with its default context, and loading it to ask failed: navtui keeps inside
    4096 and says why."""
    fake_server.ollama_root = True
    fake_server.set_model(MODEL, loaded=False, fits_num_ctx=2048)
    events = await run(runtime_for(fake_server, workspace), "say hello")
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("assuming 4096" in n and "-p ollama" in n for n in notices)
    assert not any("is unknown" in n for n in notices)
    assert len(str(fake_server.chat_requests[-1].json)) // 4 + fake_server.chat_requests[-1].json["max_tokens"] <= 4096
