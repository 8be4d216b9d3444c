"""A protocol wrapper changes only how tool calls travel: the model list, downloads and the tokenizer are the
inner provider's (qwen2.5-coder:1.5b on Ollama is wrapped by default, and /models must still say what is loaded)."""

from __future__ import annotations

from navtui.config.settings import ProviderSettings, Settings
from navtui.core.messages import UserMessage
from navtui.providers.base import ChatRequest, ListedModel
from navtui.providers.ollama import OllamaProvider
from navtui.providers.openai import OpenAIProvider
from navtui.providers.registry import build_provider
from navtui.providers.textprovider import TextProtocolProvider
from navtui.providers.wrapped import WrappedProvider
from tests.fakes import HttpError, Text
from tests.fakes.clock import FakeClock
from tests.fakes.server import FakeServer
from tests.providers.support import collect, text_of

SMALL = "qwen2.5-coder:1.5b"  # auto wraps it (the edits protocol, providers/families.py)


async def test_a_wrapped_ollama_model_lists_what_is_loaded_and_can_pull(fake_server: FakeServer) -> None:
    fake_server.set_model(SMALL, context_length=8192)
    fake_server.set_model("llama3.2:3b", loaded=False, parameter_size="3.2B")
    fake_server.set_pullable("smollm2:135m", size=1_000_000, steps=2)
    provider = build_provider(Settings(), model=SMALL, provider="ollama", base_url=fake_server.url)
    try:
        assert isinstance(provider, WrappedProvider) and provider.can_pull
        listed = await provider.describe_models()
        assert [(m.name, m.loaded, m.context) for m in listed] == [(SMALL, True, 8192), ("llama3.2:3b", False, None)]
        assert listed[1] == ListedModel("llama3.2:3b", size=4_683_087_332, parameter_size="3.2B", quantization="Q4_K_M")
        steps = [p async for p in provider.pull("smollm2:135m")]
        assert steps[-1].done and "smollm2:135m" in await provider.list_models()
    finally:
        await provider.aclose()


async def test_a_text_protocol_model_counts_tokens_with_the_servers_tokenizer(fake_server: FakeServer) -> None:
    fake_server.set_llamacpp(n_ctx=2048)
    provider = TextProtocolProvider(OpenAIProvider("smollm2", fake_server.url + "/v1", ProviderSettings()))
    try:
        assert not provider.counts_tokens  # (the server is not asked yet)
        assert (await provider.model_info()).extra["tool_protocol"] == "text"
        assert await provider.count_tokens("x" * 30) == 10  # the fake tokenizer: 3 characters a token
        assert provider.counts_tokens
    finally:
        await provider.aclose()


async def test_a_wrapped_model_retries_by_the_inner_providers_policy(fake_server: FakeServer) -> None:
    # The agent asks again after an answer that broke off by ``provider.retry``: for a wrapped model that must be
    # the policy the inner provider retries by (the user's max_retries, the test's fake clock), not a default.
    fake_server.set_model(SMALL, context_length=8192)
    for _ in range(2):
        fake_server.script(HttpError(503, retry_headers=False))
    fake_server.script(Text("too late"))
    provider = TextProtocolProvider(OllamaProvider(SMALL, fake_server.url, ProviderSettings(max_retries=1)))
    clock = FakeClock()
    provider.retry.sleep = clock.sleep
    events = await collect(provider, ChatRequest(system="", messages=[UserMessage(content="hi")]))
    assert provider.retry.max_retries == 1 and len(clock.sleeps) == 1  # one retry, waited on the fake clock
    assert text_of(events) == "" and len(fake_server.chat_requests) == 2
