"""Knowing the window and the template of an OpenAI-compatible server: vLLM, llama.cpp /props, LM Studio."""

from __future__ import annotations

import pytest

from navtui.config.settings import ProviderSettings
from navtui.core.events import StopEvent
from navtui.core.messages import UserMessage
from navtui.providers.base import ChatRequest, ProviderNotice
from navtui.providers.openai import OpenAIProvider
from navtui.providers.openai_info import is_local_url
from tests.fakes import Text
from tests.fakes.server import FakeServer
from tests.providers.support import TOOLS, collect

MODEL = "qwen2.5-coder-1.5b"


def make(server: FakeServer, **settings: object) -> OpenAIProvider:
    return OpenAIProvider(MODEL, server.url + "/v1", ProviderSettings(**settings))  # type: ignore[arg-type]


async def test_vllm_max_model_len_from_the_model_list(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL, context_length=16384)
    info = await make(fake_server).model_info()
    assert (info.context_window, info.extra["window_source"]) == (16384, "/v1/models")


async def test_llamacpp_props_give_the_window_and_the_tokenizer(fake_server: FakeServer) -> None:
    fake_server.set_llamacpp(n_ctx=2048)
    provider = make(fake_server)
    info = await provider.model_info()
    assert (info.context_window, info.extra["window_source"], info.extra["server"]) == (2048, "/props", "llama.cpp")
    assert await provider.count_tokens("x" * 30) == 10  # the fake tokenizer: 3 characters a token
    assert provider.counts_tokens


async def test_lmstudio_loaded_context_length(fake_server: FakeServer) -> None:
    fake_server.set_lmstudio(MODEL, 8192)
    info = await make(fake_server).model_info()
    assert (info.context_window, info.extra["window_source"]) == (8192, "LM Studio")


async def test_an_unknown_window_is_none_and_nothing_counts_tokens(fake_server: FakeServer) -> None:
    provider = make(fake_server)
    info = await provider.model_info()
    assert info.context_window is None and info.extra["window_source"] is None
    assert await provider.count_tokens("hello") is None and not provider.counts_tokens


async def test_the_setting_wins_over_what_the_server_says(fake_server: FakeServer) -> None:
    fake_server.set_llamacpp(n_ctx=2048)
    info = await make(fake_server, context_window=3000).model_info()
    assert (info.context_window, info.extra["window_source"]) == (3000, "providers.context_window")


async def test_a_template_that_ignores_tools_moves_auto_mode_to_the_text_protocol(fake_server: FakeServer) -> None:
    """SmolLM2's template drops tools without a word: /props says so, and navtui prompts the tools instead."""
    fake_server.set_llamacpp(n_ctx=2048, supports_tools=False)
    fake_server.script(Text('<tool_call>{"name": "read", "arguments": {"path": "a.py"}}</tool_call>'))
    request = ChatRequest(system="Base.", messages=[UserMessage(content="read a.py")], tools=TOOLS)
    events = await collect(make(fake_server), request)
    body = fake_server.chat_requests[-1].json
    assert "tools" not in body and "# Tools" in body["messages"][0]["content"]
    notices = [e.text for e in events if isinstance(e, ProviderNotice)]
    assert notices and "ignores tools" in notices[0]
    assert events[-1] == StopEvent(reason="tool_use")


async def test_native_mode_keeps_native_tools_whatever_the_template_says(fake_server: FakeServer) -> None:
    fake_server.set_llamacpp(supports_tools=False)
    request = ChatRequest(system="Base.", messages=[UserMessage(content="hi")], tools=TOOLS)
    await collect(make(fake_server, tool_protocol="native"), request)
    assert "tools" in fake_server.chat_requests[-1].json


async def test_a_prompt_count_too_small_for_the_tools_switches_auto_mode(fake_server: FakeServer) -> None:
    """No /props to ask (llama-cpp-python): the usage shows the template dropped the tools."""
    from navtui.core.events import UsageEvent
    from navtui.tools.registry import default_tools
    from tests.fakes import Usage

    fake_server.script(Text("Hello."), Usage(input=297, output=3))  # SmolLM2's count with navtui's tools sent
    fake_server.script(Text('<tool_call>{"name": "read", "arguments": {"path": "a.py"}}</tool_call>'))
    provider = make(fake_server)
    request = ChatRequest(system="Base.", messages=[UserMessage(content="hi")], tools=default_tools().specs())
    first = await collect(provider, request)
    assert any(isinstance(e, ProviderNotice) and "dropped the tools" in e.text for e in first)
    assert any(isinstance(e, UsageEvent) for e in first)
    second = await collect(provider, request)
    assert "tools" not in fake_server.chat_requests[-1].json
    assert second[-1] == StopEvent(reason="tool_use")


async def test_a_prompt_count_that_includes_the_tools_changes_nothing(fake_server: FakeServer) -> None:
    from navtui.tools.registry import default_tools
    from tests.fakes import Usage

    fake_server.script(Text("Hello."), Usage(input=2584, output=3))  # Qwen's count: the template shows the tools
    fake_server.script(Text("Again."))
    provider = make(fake_server)
    request = ChatRequest(system="Base.", messages=[UserMessage(content="hi")], tools=default_tools().specs())
    events = await collect(provider, request)
    assert not any(isinstance(e, ProviderNotice) for e in events)
    await collect(provider, request)
    assert "tools" in fake_server.chat_requests[-1].json


async def test_a_prompt_served_from_the_servers_cache_still_counts_its_tools(fake_server: FakeServer) -> None:
    """OpenAI, vLLM and llama.cpp put the cached prefix in ``prompt_tokens_details.cached_tokens`` and count it in
    ``prompt_tokens``: a second turn whose system prompt and tools came from the cache is not a dropped tool set."""
    from navtui.tools.registry import default_tools
    from tests.fakes import Usage

    fake_server.script(Text("Hello."), Usage(input=2584, output=3, cache_read=2304))  # the prefix was cached
    fake_server.script(Text("Again."))
    provider = make(fake_server)
    request = ChatRequest(system="Base.", messages=[UserMessage(content="hi")], tools=default_tools().specs())
    events = await collect(provider, request)
    assert not any(isinstance(e, ProviderNotice) for e in events)
    await collect(provider, request)
    assert "tools" in fake_server.chat_requests[-1].json


async def test_a_server_still_loading_its_model_is_waited_for(fake_server: FakeServer, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """llama-server answers 503 "Loading model" for a minute on a busy CPU: that is a wait, not a failure."""
    from navtui.providers import openai
    from tests.fakes import HttpError

    monkeypatch.setattr(openai, "LOADING_POLL", 0.01)
    fake_server.script(HttpError(503, "Loading model"))
    fake_server.script(HttpError(503, "Loading model"))
    fake_server.script(Text("ready"))
    events = await collect(make(fake_server), ChatRequest(system="s", messages=[UserMessage(content="hi")]))
    assert "".join(e.text for e in events if e.type == "text_delta") == "ready"
    assert not any(isinstance(e, ProviderNotice) for e in events) and len(fake_server.chat_requests) == 3


async def test_an_unknown_window_is_asked_again(fake_server: FakeServer) -> None:
    provider = make(fake_server)
    assert (await provider.model_info()).context_window is None
    fake_server.set_llamacpp(n_ctx=2048)  # the server finished loading
    assert (await provider.model_info()).context_window == 2048


HOSTED = "http://inference.example.com/v1"  # a hosted API's address, reached through the fake server as HTTP proxy


def through_proxy(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests to any host go to ``server`` as to an HTTP proxy (httpx reads the environment): no name is looked up."""
    for name in ("http_proxy", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", server.url)


async def test_openais_own_models_have_their_published_window(
    fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hosted API's model list says nothing of windows (api.openai.com's, some hosts of gpt-oss): gpt-4o and its
    snapshots have a known one."""
    through_proxy(fake_server, monkeypatch)
    for model, window in [("gpt-4o-2024-08-06", 128_000), ("gpt-4.1-mini", 1_047_576), ("gpt-4", 8_192),
                          ("o3-mini", 200_000), ("gpt-5-mini", 400_000), ("openai/gpt-4o", 128_000),
                          ("openai/gpt-oss-120b", 131_072)]:  # fmt: skip
        info = await OpenAIProvider(model, HOSTED).model_info()
        assert (info.context_window, info.extra["window_source"]) == (window, "known window"), model
    assert {r.headers["host"] for r in fake_server.requests} == {"inference.example.com"}


async def test_a_local_server_that_reports_no_window_does_not_get_the_published_one(fake_server: FakeServer) -> None:
    """gpt-oss took 131,072 tokens from the table on a local server started with far fewer: compaction came too
    late and the server cut the conversation. The window is unknown there, with the model's as the most it can be."""
    info = await OpenAIProvider("gpt-oss-20b", fake_server.url + "/v1").model_info()
    assert (info.context_window, info.extra["window_source"]) == (None, None)
    assert info.extra["published_window"] == 131_072


@pytest.mark.parametrize(
    ("url", "local"),
    [("http://127.0.0.1:8080/v1", True), ("http://localhost:1234/v1", True), ("http://[::1]:8000/v1", True),
     ("http://192.168.1.20:8000/v1", True), ("http://100.101.2.3:8080/v1", True),  # Tailscale's shared range
     ("http://gpubox:8080/v1", True), ("http://studio.local:1234/v1", True), ("http://box.tail1a2b.ts.net/v1", True),
     ("https://api.openai.com/v1", False), ("https://api.groq.com/openai/v1", False),
     ("https://openrouter.ai/api/v1", False), ("https://8.8.8.8/v1", False)],
)  # fmt: skip
def test_local_urls_are_the_users_own_servers(url: str, local: bool) -> None:
    assert is_local_url(url) is local


async def test_a_window_the_server_reports_wins_over_the_known_one(fake_server: FakeServer) -> None:
    fake_server.set_model("gpt-4o", context_length=64000)  # a gateway serving a smaller deployment
    info = await OpenAIProvider("gpt-4o", fake_server.url + "/v1").model_info()
    assert (info.context_window, info.extra["window_source"]) == (64000, "/v1/models")


async def test_ollamas_openai_endpoint_gives_the_window_of_the_loaded_model(fake_server: FakeServer) -> None:
    fake_server.ollama_root = True
    fake_server.set_model("qwen3:4b", context_length=16384)  # in memory: /api/ps says how it was loaded
    info = await OpenAIProvider("qwen3:4b", fake_server.url + "/v1").model_info()
    assert (info.context_window, info.extra["window_source"], info.extra["server"]) == (
        16384,
        "Ollama /api/ps",
        "Ollama",
    )


async def test_ollamas_openai_endpoint_takes_the_modelfiles_num_ctx(fake_server: FakeServer) -> None:
    fake_server.ollama_root = True
    fake_server.set_model("coder:7b", parameters="num_ctx 12288\ntemperature 0.2", loaded=False)
    info = await OpenAIProvider("coder:7b", fake_server.url + "/v1").model_info()
    assert (info.context_window, info.extra["window_source"]) == (12288, "the Modelfile's num_ctx")


async def test_ollamas_openai_endpoint_loads_the_model_to_learn_the_window_it_runs(fake_server: FakeServer) -> None:
    """Neither /api/ps (not in memory) nor the Modelfile say: Ollama's default (OLLAMA_CONTEXT_LENGTH, or by the
    GPU's memory) was assumed to be 4096, and every session pruned and compacted at 4096. Loaded as /v1 will
    run it (no options), /api/ps says."""
    fake_server.ollama_root = True
    fake_server.set_model("coder:7b", context_length=65536, loaded=False)  # what /api/ps says once it is loaded
    info = await OpenAIProvider("coder:7b", fake_server.url + "/v1").model_info()
    assert (info.context_window, info.extra["window_source"]) == (65536, "Ollama /api/ps, after loading the model")
    assert "window_note" not in info.extra
    [load] = [r for r in fake_server.requests if r.path == "/api/chat"]
    assert load.json == {"model": "coder:7b", "messages": [], "stream": False}  # no num_ctx: the /v1 default
    again = await OpenAIProvider("coder:7b", fake_server.url + "/v1").model_info()
    assert again.context_window == 65536 and len([r for r in fake_server.requests if r.path == "/api/chat"]) == 1


async def test_ollamas_openai_endpoint_otherwise_assumes_its_default_and_says_so(fake_server: FakeServer) -> None:
    fake_server.ollama_root = True
    fake_server.set_model("coder:7b", loaded=False, fits_num_ctx=2048)  # the load is refused: nothing says
    info = await OpenAIProvider("coder:7b", fake_server.url + "/v1").model_info()
    assert info.context_window == 4096
    assert "-p ollama" in info.extra["window_note"] and "providers.context_window" in info.extra["window_note"]
