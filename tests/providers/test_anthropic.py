"""The Anthropic provider (the real ``anthropic`` SDK) against the loopback fake server."""

from __future__ import annotations

import pytest

from navtui.config.settings import ProviderSettings
from navtui.core.errors import ProviderError
from navtui.core.events import StopEvent, ThinkingDelta, ToolCallEvent
from navtui.core.messages import ToolResultMessage, UserMessage
from navtui.providers.anthropic import AnthropicProvider
from navtui.providers.base import ChatRequest, ProviderNotice, parse_error
from tests.fakes import Done, HttpError, Text, Thinking, ToolCall, Usage
from tests.fakes.server import FakeServer
from tests.providers.support import TOOLS, assemble, collect, errors, kinds, text_of, usage_of

MODEL = "claude-haiku-4-5"


def make(server: FakeServer, **settings: object) -> AnthropicProvider:
    return AnthropicProvider(MODEL, server.url, ProviderSettings(**settings), api_key="sk-test")  # type: ignore[arg-type]


def ask(text: str = "hi", **kw: object) -> ChatRequest:
    return ChatRequest(system="You are navtui.", messages=[UserMessage(content=text)], tools=TOOLS, **kw)  # type: ignore[arg-type]


async def test_thinking_then_text_stream_in_order_with_signature(fake_server: FakeServer) -> None:
    fake_server.script(
        Thinking("Plan: ", signature="c2ln"), Thinking("answer."), Text("Hello"), Text("!"), Usage(40, 9)
    )
    events = await collect(make(fake_server), ask(think=True))
    assert kinds(events) == [
        "thinking_delta", "thinking_delta", "thinking_delta", "text_delta", "text_delta", "usage", "stop",
    ]  # fmt: skip
    thinking = [e for e in events if isinstance(e, ThinkingDelta)]
    assert "".join(e.text for e in thinking) == "Plan: answer." and thinking[-1].signature == "c2ln"
    assert text_of(events) == "Hello!"
    body = fake_server.chat_requests[-1].json
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert body["system"] == [{"type": "text", "text": "You are navtui.", "cache_control": {"type": "ephemeral"}}]
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


async def test_multi_tool_turn_round_trips_with_thinking_unchanged(fake_server: FakeServer) -> None:
    fake_server.script(
        Thinking("Read both.", signature="U0lH"), Text("Reading."),
        ToolCall("read", {"path": "a.py"}, id="toolu_A", pieces=4), ToolCall("read", {"path": "b.py"}, id="toolu_B"),
        Usage(100, 20, cache_read=80, cache_write=20),
    )  # fmt: skip
    provider = make(fake_server)
    first = await collect(provider, ask("compare", think=True))
    calls = [e.call for e in first if isinstance(e, ToolCallEvent)]
    assert [(c.id, c.arguments) for c in calls] == [("toolu_A", {"path": "a.py"}), ("toolu_B", {"path": "b.py"})]
    assert first[-1] == StopEvent(reason="tool_use")
    usage = usage_of(first)
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (100, 20, 80, 20)
    assert usage.cost is not None and usage.cost.total > 0

    history = [
        UserMessage(content="compare"),
        assemble(first),
        ToolResultMessage.of(calls[0], "A = 1"),
        ToolResultMessage.of(calls[1], "no such file", is_error=True),
    ]
    fake_server.script(Text("Done."))
    await collect(provider, ChatRequest(system="You are navtui.", messages=history, tools=TOOLS, think=True))
    sent = fake_server.chat_requests[-1].json["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Read both.", "signature": "U0lH"},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_A", "name": "read", "input": {"path": "a.py"}},
            {"type": "tool_use", "id": "toolu_B", "name": "read", "input": {"path": "b.py"}},
        ],
    }
    assert sent[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_A", "content": "A = 1"},
            {"type": "tool_result", "tool_use_id": "toolu_B", "content": "no such file", "is_error": True,
             "cache_control": {"type": "ephemeral"}},
        ],
    }  # fmt: skip


async def test_truncated_tool_json_is_a_parse_error_not_a_short_call(fake_server: FakeServer) -> None:
    fake_server.script(ToolCall("write", raw_arguments='{"path": "a.py", "content": "def f'))
    events = await collect(make(fake_server), ask())
    (call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert "incomplete" in (parse_error(call) or "")


async def test_529_is_retried_then_succeeds(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(529, "Overloaded"))
    fake_server.script(HttpError(529, "Overloaded"))
    fake_server.script(Text("Back."))
    events = await collect(make(fake_server), ask())
    notices = [e for e in events if isinstance(e, ProviderNotice)]
    assert len(notices) == 2 and "overloaded" in notices[0].text and "attempt 1/3" in notices[0].text
    assert text_of(events) == "Back." and not errors(events)
    assert len(fake_server.chat_requests) == 3


async def test_retries_stop_at_max_retries(fake_server: FakeServer) -> None:
    for _ in range(3):
        fake_server.script(HttpError(429, "rate limited"))
    events = await collect(make(fake_server, max_retries=2), ask())
    assert kinds(events) == ["notice", "notice", "error"]
    assert events[-1].status == 429 and not events[-1].retryable  # the tries ran out: not worth asking again
    assert len(fake_server.chat_requests) == 3


async def test_spend_limit_429_is_not_retried(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(429, "You have reached your specified API usage limits (spend limit)."))
    events = await collect(make(fake_server), ask())
    (error,) = events
    assert error.kind == "quota" and not error.retryable and "spend limit" in (error.hint or "")
    assert len(fake_server.chat_requests) == 1


async def test_credit_balance_400_is_not_retried(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(400, "Your credit balance is too low to access the Anthropic API."))
    (error,) = await collect(make(fake_server), ask())
    assert error.kind == "quota" and len(fake_server.chat_requests) == 1


async def test_http_error_is_one_clear_error(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(401, "invalid x-api-key"))
    (error,) = await collect(make(fake_server), ask())
    assert error.kind == "auth" and error.status == 401 and "invalid x-api-key" in error.message


@pytest.mark.parametrize(
    "message",
    [
        "prompt is too long: 208310 tokens > 200000 maximum",
        # the prompt fits, the prompt and the output limit (with the thinking budget) do not
        "input length and `max_tokens` exceed context limit: 197000 + 16384 > 200000, decrease input length or "
        "`max_tokens` and try again",
    ],
)
async def test_a_context_overflow_is_an_overflow_not_a_plain_400(fake_server: FakeServer, message: str) -> None:
    """What Anthropic answers when the conversation no longer fits: the agent compacts on ``overflow``."""
    fake_server.script(HttpError(400, message))
    (error,) = await collect(make(fake_server), ask())
    assert error.kind == "overflow" and error.status == 400 and message in error.message
    assert len(fake_server.chat_requests) == 1


async def test_a_key_without_permission_says_which_key(fake_server: FakeServer, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """403 permission_error: the key works but may not use this model or workspace; the hint names the variable."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("NAVTUI_API_KEY", "sk-from-navtui")
    fake_server.script(HttpError(403, "Your API key does not have permission to use the specified resource."))
    (error,) = await collect(AnthropicProvider(MODEL, fake_server.url), ask())
    assert error.kind == "auth" and error.status == 403 and "permission" in error.message
    assert "NAVTUI_API_KEY" in (error.hint or "")
    fake_server.script(HttpError(401, "invalid x-api-key"))
    (error,) = await collect(AnthropicProvider(MODEL, fake_server.url), ask())
    assert error.kind == "auth" and "NAVTUI_API_KEY" in (error.hint or "")


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/"])
async def test_base_url_with_or_without_v1(fake_server: FakeServer, suffix: str) -> None:
    """The SDK adds ``/v1/messages`` itself: a base URL ending in ``/v1`` (as OpenAI-compatible ones do) reached
    ``/v1/v1/messages`` and was told the model does not exist."""
    fake_server.script(Text("ok"))
    provider = AnthropicProvider(MODEL, fake_server.url + suffix, api_key="sk-test")
    assert text_of(await collect(provider, ask())) == "ok"
    assert fake_server.chat_requests[-1].path == "/v1/messages"


async def test_a_refusal_is_an_error_that_says_how_to_go_on(fake_server: FakeServer) -> None:
    """Claude 4's streaming classifiers end a reply with stop_reason "refusal" and no words of their own
    (``stop_details`` may explain); Claude keeps refusing while the refused turn stays in the conversation."""
    explanation = "This request was declined because it could enable cyber harm."
    fake_server.script(
        Text("Here is how to"), Done("refusal", explanation=explanation, category="cyber"), Usage(28, 106)
    )
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "usage", "error"]
    assert usage_of(events).output == 106  # billed up to the refusal
    error = events[-1]
    assert error.kind == "refusal" and not error.retryable and explanation in error.message
    assert "Esc twice" in (error.hint or "") and "/new" in (error.hint or "")
    assert len(fake_server.chat_requests) == 1
    fake_server.script(Done("refusal"))  # nothing streamed, no details: still said
    (error,) = [e for e in await collect(make(fake_server), ask()) if e.type == "error"]
    assert error.kind == "refusal" and "declined" in error.message


async def test_overloaded_event_mid_stream_after_text_is_not_retried(fake_server: FakeServer) -> None:
    fake_server.script(Text("Some text"), HttpError(529, "Overloaded"))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["text_delta", "error"] and "overloaded" in events[-1].message
    assert len(fake_server.chat_requests) == 1  # text already reached the user: no silent re-run


async def test_model_info_from_models_endpoint_or_default(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL, context_length=150_000)
    assert (await make(fake_server).model_info()).context_window == 150_000
    other = AnthropicProvider("claude-opus-4-6", fake_server.url, api_key="k")
    assert (await other.model_info()).context_window == 200_000


async def test_a_local_anthropic_endpoint_without_the_model_listed_says_the_window_is_assumed(
    fake_server: FakeServer,
) -> None:
    """A local server speaking /v1/messages that does not list the model: 200k is said as an assumption."""
    info = await make(fake_server).model_info()
    assert info.context_window == 200_000 and info.extra["window_source"] is None
    assert "assuming 200,000" in info.extra["window_note"] and "providers.context_window" in info.extra["window_note"]


async def test_a_local_anthropic_endpoint_takes_the_window_from_the_server_or_the_setting(
    fake_server: FakeServer,
) -> None:
    fake_server.set_llamacpp(n_ctx=8192)  # llama-server answers /v1/messages too
    info = await make(fake_server).model_info()
    assert (info.context_window, info.extra["window_source"], info.extra.get("window_note")) == (8192, "/props", None)
    other = AnthropicProvider("claude-opus-4-6", fake_server.url, ProviderSettings(context_window=32000), api_key="k")
    info = await other.model_info()
    assert (info.context_window, info.extra["window_source"]) == (32000, "providers.context_window")


async def test_ollamas_anthropic_endpoint_gives_the_loaded_context(fake_server: FakeServer) -> None:
    fake_server.ollama_root = True
    fake_server.set_model("qwen3-coder:30b", context_length=65536)
    info = await AnthropicProvider("qwen3-coder:30b", fake_server.url, api_key="ollama").model_info()
    assert (info.context_window, info.extra["server"]) == (65536, "Ollama")


async def test_a_refused_key_is_said_at_the_start(fake_server: FakeServer) -> None:
    """The model list (asked for the window) answers 401 to a wrong key: the start-up check says so, rather than
    passing with the default window and the first prompt failing."""
    fake_server.require_key = "sk-right"
    with pytest.raises(ProviderError) as caught:
        await AnthropicProvider("claude-opus-4-6", fake_server.url, api_key="sk-wrong").model_info()
    assert caught.value.kind == "auth" and "invalid x-api-key" in caught.value.message
    fake_server.set_model("claude-opus-4-6", context_length=150_000)
    info = await AnthropicProvider("claude-opus-4-6", fake_server.url, api_key="sk-right").model_info()
    assert info.context_window == 150_000


async def test_missing_key_is_a_clear_error_when_used() -> None:
    provider = AnthropicProvider(MODEL)  # constructing never fails: the app must still open
    with pytest.raises(ProviderError) as caught:
        await provider.model_info()
    assert caught.value.kind == "auth" and "export ANTHROPIC_API_KEY=" in (caught.value.hint or "")
    events = await collect(provider, ask())
    errors = [e for e in events if e.type == "error"]
    assert len(errors) == 1 and "No Anthropic API key" in errors[0].message


def test_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NAVTUI_API_KEY", "from-env")
    assert AnthropicProvider(MODEL)._key == "from-env"


async def test_a_bearer_token_alone_is_a_credential(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gateways in front of Anthropic's API take ``ANTHROPIC_AUTH_TOKEN`` (``Authorization: Bearer``), with
    ``ANTHROPIC_BASE_URL``, as Claude Code and the SDK read them."""
    for name in ("ANTHROPIC_API_KEY", "NAVTUI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "gateway-token")
    fake_server.script(Text("through the gateway"))
    provider = AnthropicProvider(MODEL, fake_server.url)
    assert text_of(await collect(provider, ask())) == "through the gateway"
    headers = fake_server.chat_requests[-1].headers
    assert headers["authorization"] == "Bearer gateway-token" and "x-api-key" not in headers
    await provider.aclose()


async def test_deprecated_model_is_a_notice_not_a_stderr_warning(
    fake_server: FakeServer, recwarn: pytest.WarningsRecorder
) -> None:
    provider = AnthropicProvider("claude-sonnet-4-5", fake_server.url, api_key="k")
    events = await collect(provider, ask())
    assert kinds(events)[0] == "notice" and "deprecated" in events[0].text
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]
    again = await collect(provider, ask())
    assert "notice" not in kinds(again)


def test_adaptive_thinking_for_models_that_want_it() -> None:
    from navtui.providers.anthropic_convert import build_params

    params = build_params(ask(think=True), "claude-opus-4-6", ProviderSettings())
    assert params["thinking"] == {"type": "adaptive"}


async def test_a_stream_cut_after_its_stop_reason_is_a_complete_answer(fake_server: FakeServer) -> None:
    """message_delta carried the stop reason; only message_stop was lost (a proxy closing early): the answer and
    its call stand, not asked again (a second run of the whole prompt), as OpenAI's finish_reason without [DONE]."""
    import json

    from tests.fakes.script import RawResponse

    def event(kind: str, **data: object) -> bytes:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()

    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL, "content": [],
               "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 1}}  # fmt: skip
    use = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}
    parts = (
        event("message_start", message=message),
        event("content_block_start", index=0, content_block=use),
        event("content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '{"path": "a.py"}'}),
        event("content_block_stop", index=0),
        event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 9}),
    )
    fake_server.script(RawResponse(status=200, content_type="text/event-stream", parts=parts))
    events = await collect(make(fake_server), ask())
    assert kinds(events) == ["tool_call", "usage", "stop"] and events[-1] == StopEvent(reason="tool_use")
    assert len(fake_server.chat_requests) == 1
