"""Ollama's model lifecycle: a cold model is loaded (and said to be) before the chat, /api/ps and /api/tags make
the model list, /api/pull streams a download."""

from __future__ import annotations

import pytest

from navtui.core.errors import ProviderError
from navtui.core.events import ErrorEvent, ModelLoading, TextDelta
from navtui.providers.base import ListedModel, PullProgress
from tests.fakes import Text
from tests.fakes.server import FakeServer
from tests.providers.support import collect, text_of
from tests.providers.test_ollama import MODEL, ask, make


async def test_a_cold_model_is_loaded_first_and_the_wait_is_announced(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL, context_length=16384, loaded=False)
    fake_server.load_delay = 0.3
    fake_server.script(Text("hello"))
    events = await collect(make(fake_server), ask())
    loading = [e for e in events if isinstance(e, ModelLoading)]
    assert [(e.model, e.done) for e in loading] == [(MODEL, False), (MODEL, True)]
    assert loading[1].seconds is not None and loading[1].seconds >= 0.3  # the load's time, not the answer's
    assert events.index(loading[1]) < next(i for i, e in enumerate(events) if isinstance(e, TextDelta))
    load, chat = fake_server.chat_requests
    assert load.json["messages"] == [] and load.json["options"]["num_ctx"] == 16384  # as the chat will ask
    assert chat.json["messages"][-1]["content"] == "hi" and text_of(events) == "hello"


async def test_a_model_in_memory_is_asked_nothing_more(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL)
    fake_server.script(Text("one"))
    fake_server.script(Text("two"))
    provider = make(fake_server)
    for _ in range(2):
        events = await collect(provider, ask())
        assert not any(isinstance(e, ModelLoading) for e in events)
    assert len(fake_server.chat_requests) == 2 and all(r.json["messages"] for r in fake_server.chat_requests)
    fake_server.unload(MODEL)  # Ollama let it go (keep_alive ran out): the next turn loads it again
    fake_server.script(Text("three"))
    events = await collect(provider, ask())
    assert [e.done for e in events if isinstance(e, ModelLoading)] == [False, True]


async def test_a_load_that_times_out_says_so(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL)
    fake_server.script(Text("warm"))
    await collect(make(fake_server), ask())  # the model's facts (/api/show) are known: only the load meets 0.3 s
    fake_server.unload(MODEL)
    fake_server.load_delay = 600  # never reached: the fake stops the load when the test ends
    events = await collect(make(fake_server, request_timeout=0.3), ask())
    [error] = [e for e in events if isinstance(e, ErrorEvent)]
    assert "did not finish loading" in error.message and "request_timeout" in (error.hint or "")
    assert not any(isinstance(e, TextDelta) for e in events)
    assert [r.path for r in fake_server.requests].count("/api/show") == 1


async def test_the_model_list_puts_what_is_in_memory_first_with_its_size_and_context(fake_server: FakeServer) -> None:
    fake_server.set_model("llama3.2:3b", loaded=False, parameter_size="3.2B")
    fake_server.set_model(MODEL, context_length=40960)
    listed = await make(fake_server).describe_models()
    assert [(m.name, m.loaded) for m in listed] == [(MODEL, True), ("llama3.2:3b", False)]
    warm, cold = listed
    assert (warm.memory, warm.context) == (5_000_000_000, 40960)
    assert cold == ListedModel("llama3.2:3b", size=4_683_087_332, parameter_size="3.2B", quantization="Q4_K_M")


async def test_pull_streams_progress_then_the_model_is_installed(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL)
    fake_server.set_pullable("smollm2:135m", size=1_000_000_000, steps=4)
    provider = make(fake_server)
    steps = [p async for p in provider.pull("smollm2:135m")]
    assert steps[0] == PullProgress(status="pulling manifest") and steps[-1].done
    big = [p for p in steps if p.total == 1_000_000_000]
    assert [p.fraction for p in big] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert [p.status for p in steps[-3:]] == ["verifying sha256 digest", "writing manifest", "success"]
    assert "smollm2:135m" in await provider.list_models()


async def test_pulling_a_name_ollama_does_not_know_fails_with_its_reason(fake_server: FakeServer) -> None:
    with pytest.raises(ProviderError, match="file does not exist"):
        async for _ in make(fake_server).pull("no-such-model"):
            pass
