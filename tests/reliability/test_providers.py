"""Provider and streaming scenarios P01-P16: the runtime (provider, agent, session) against the fake servers.

Most run for each provider. Retry schedules are read from a fake clock (the providers' ``RetryPolicy.sleep``),
never waited for. Every chat request the fake server receives is checked for a valid history (I2, conftest).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from navtui.agent.replay import INTERRUPTED_NOTE
from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import AgentError, Notice, RunFinished, TextDelta, ToolCallFinished
from navtui.core.messages import AssistantMessage
from navtui.session.manager import SessionManager
from tests.fakes import Drop, FakeServer, HttpError, RawResponse, Reset, Stall, Text, ToolCall
from tests.fakes.clock import FakeClock
from tests.reliability.conftest import CANARY, secrets_on_disk

MODELS = {"ollama": "qwen2.5-coder:7b", "openai": "qwen2.5-coder-7b", "anthropic": "claude-haiku-4-5"}


@pytest.fixture(params=list(MODELS))
def kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "t" * 40)
    return str(request.param)


@pytest.fixture
def settings(navtui_home: Path) -> Iterator[dict[str, Any]]:
    """The user settings file: what a test puts in it applies to the runtimes it then builds."""
    data: dict[str, Any] = {}
    yield data


class Harness:
    """A runtime on one provider of the fake server, with a fake clock for its retries."""

    def __init__(self, kind: str, server: FakeServer, workspace: Path, home: Path, settings: dict[str, Any]) -> None:
        (home / "settings.json").write_text(json.dumps(settings))
        options = LaunchOptions(cwd=workspace, provider=kind, base_url=server.url, model=MODELS[kind], approval="yolo")
        self.runtime = Runtime.create(options)
        self.clock = FakeClock()
        self.runtime.provider.retry.sleep = self.clock.sleep
        self.server = server

    async def run(self, prompt: str | None, *, abort_on_text: bool = False) -> list[Any]:
        events = []
        async for event in self.runtime.run(prompt):
            events.append(event)
            if abort_on_text and isinstance(event, TextDelta):
                self.runtime.abort()
        return events

    def replayed(self, request: int = -1) -> list[str]:
        """The roles and texts of one chat request's history, provider-neutral (same-role turns joined)."""
        body = self.server.chat_requests[request].json
        shown: list[tuple[str, str]] = []
        for message in body["messages"]:
            content = message.get("content")
            if isinstance(content, list):
                content = " ".join(str(b.get("text") or b.get("content") or b.get("type")) for b in content)
            role = message["role"]
            if role == "user" and isinstance(content, str):  # OpenAI-compatible: user turns merged, a blank line
                content = content.replace("\n\n", " ")  # between them (templates want the roles to alternate)
            if shown and shown[-1][0] == role and role == "user":
                shown[-1] = (role, f"{shown[-1][1]} {content}")
            elif role != "system":
                shown.append((role, str(content)))
        return [f"{role}: {text}" for role, text in shown]

    def saved(self) -> list[AssistantMessage]:
        session = SessionManager.open(self.runtime.session.path)
        return [e.message for e in session.entries if e.type == "message" and isinstance(e.message, AssistantMessage)]  # type: ignore[union-attr]


@pytest_asyncio.fixture
async def harness(kind: str, fake_server: FakeServer, workspace: Path, navtui_home: Path, settings: dict[str, Any]):
    made: list[Harness] = []

    def build() -> Harness:
        made.append(Harness(kind, fake_server, workspace, navtui_home, settings))
        return made[-1]

    yield build
    for each in made:  # also when the test failed half-way: no connection is left to the garbage collector
        await each.runtime.aclose()


def _errors(events: list[Any]) -> list[AgentError]:
    return [e for e in events if isinstance(e, AgentError)]


def _notices(events: list[Any]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


# ---------------------------------------------------------------------------------------------------- P01
async def test_p01_stream_fin_mid_text_is_asked_again_and_the_fragment_never_replayed(harness, fake_server) -> None:
    fake_server.script(Text("Here "), Text("is half "), Text("an ans"), Drop())
    fake_server.script(Text("Here is the whole answer."))
    fake_server.script(Text("Sure."))
    h = harness()
    events = await h.run("explain")
    assert any("broke off" in n and "asking again" in n for n in _notices(events))
    assert events[-1].stop_reason == "stop" and events[-1].text == "Here is the whole answer."
    assert len(fake_server.chat_requests) == 2 and h.replayed(1) == h.replayed(0)  # the fragment is not sent
    assert 0.5 <= h.clock.sleeps[0] < 1.5  # backoff, not a hot loop
    saved = h.saved()
    assert [(m.stop_reason, m.text) for m in saved] == [
        ("error", "Here is half an ans"),
        ("stop", "Here is the whole answer."),
    ]
    await h.run("and then?")
    assert [line for line in h.replayed() if line.startswith("assistant")] == ["assistant: Here is the whole answer."]


async def test_p01_an_interrupted_answer_is_followed_by_a_note_that_it_was_cut_off(harness, fake_server) -> None:
    fake_server.script(Text("tok191 t"), Text("never sent", delay=30))
    fake_server.script(Text("Continuing."))
    h = harness()
    events = await h.run("count", abort_on_text=True)
    assert events[-1].stop_reason == "aborted"
    await h.run("next")
    assert h.replayed() == ["user: count", "assistant: tok191 t", f"user: {INTERRUPTED_NOTE} next"]


# ---------------------------------------------------------------------------------------------------- P02
async def test_p02_a_reset_mid_tool_call_runs_nothing_and_asks_again(harness, fake_server, workspace: Path) -> None:
    fake_server.script(Text("Writing it."), ToolCall("write", {"path": "out.txt", "content": "x" * 2000}), Reset())
    fake_server.script(Text("The write did not happen."))
    h = harness()
    events = await h.run("save the data")  # no file named: a missing one would be asked for (agent/asked_files.py)
    assert not (workspace / "out.txt").exists()
    assert not [e for e in events if isinstance(e, ToolCallFinished)]
    assert len(fake_server.chat_requests) == 2
    assert all(not m.tool_calls for m in h.saved())  # no executable call persisted


# ---------------------------------------------------------------------------------------------------- P03
async def test_p03_a_stall_mid_stream_times_out_and_is_asked_again_once(harness, fake_server, settings) -> None:
    settings["providers"] = {"stall_timeout": 0.3}
    fake_server.script(Text("thinking"), Stall(10))
    fake_server.script(Text("answer"))
    h = harness()
    events = await h.run("go")
    assert events[-1].text == "answer" and len(fake_server.chat_requests) == 2
    assert any("0.3 s" in n for n in _notices(events))


async def test_p03_a_slow_but_steady_stream_is_never_cut(harness, fake_server, settings) -> None:
    settings["providers"] = {"stall_timeout": 0.5, "request_timeout": 0.5}
    fake_server.script(*(Text(f"{i} ", delay=0.25) for i in range(8)))  # 2 s in all, 4x the stall timeout
    h = harness()
    events = await h.run("go")
    assert events[-1].stop_reason == "stop" and events[-1].text == "0 1 2 3 4 5 6 7 "
    assert len(fake_server.chat_requests) == 1


async def test_p03_a_server_that_never_answers_is_tried_twice_then_reported(harness, fake_server, settings) -> None:
    settings["providers"] = {"request_timeout": 0.3}
    fake_server.script(Stall(10))
    fake_server.script(Stall(10))
    h = harness()
    events = await h.run("go")
    assert len(fake_server.chat_requests) == 2  # read timeouts are retried once, not max_retries times
    [error] = _errors(events)
    assert "0 s" in error.message or "0.3 s" in error.message
    assert events[-1].stop_reason == "error"


# ---------------------------------------------------------------------------------------------------- P04-P07
async def test_p04_a_429_with_retry_after_waits_that_long_once(harness, fake_server) -> None:
    fake_server.script(HttpError(429, "slow down", error_type="rate_limit_error", retry_after=7))
    fake_server.script(Text("ok now"))
    h = harness()
    events = await h.run("go")
    assert h.clock.sleeps == [7.0] and events[-1].text == "ok now"
    assert any("retrying in 7.0 s" in n for n in _notices(events))


@pytest.mark.parametrize("status", [529, 503])
async def test_p05_overload_backs_off_exponentially_then_succeeds(harness, fake_server, status: int) -> None:
    for _ in range(3):
        fake_server.script(HttpError(status, "Overloaded", error_type="overloaded_error", retry_headers=False))
    fake_server.script(Text("back"))
    h = harness()
    events = await h.run("go")
    assert events[-1].text == "back" and len(fake_server.chat_requests) == 4
    for attempt, delay in enumerate(h.clock.sleeps):
        assert 0.5 * 2**attempt <= delay < 1.5 * 2**attempt, h.clock.sleeps
    assert len(h.clock.sleeps) == 3


async def test_p05_endless_overload_stops_at_the_limit_and_the_session_stays_usable(harness, fake_server) -> None:
    for _ in range(4):
        fake_server.script(HttpError(529, "Overloaded", error_type="overloaded_error", retry_headers=False))
    fake_server.script(Text("finally"))
    h = harness()
    events = await h.run("go")
    assert len(fake_server.chat_requests) == 4 and len(h.clock.sleeps) == 3  # max_retries (3) after the first
    [error] = _errors(events)
    assert "529" in error.message or "verloaded" in error.message
    events = await h.run(None)  # the prompt was kept: continue where it stopped
    assert events[-1].text == "finally" and h.replayed()[-1] == "user: go"


@pytest.mark.parametrize("status", [501, 505, 511])
async def test_p05_a_status_that_does_not_pass_is_not_retried(harness, fake_server, status: int) -> None:
    """A proxy's 501 Not Implemented (or 505, a captive portal's 511) answers the same however often it is asked:
    it was retried three times, with backoff, before the user heard of it."""
    fake_server.script(HttpError(status, "Not Implemented", error_type="api_error", retry_headers=False))
    fake_server.script(Text("never asked"))
    h = harness()
    events = await h.run("go")
    assert len(fake_server.chat_requests) == 1 and h.clock.sleeps == []
    [error] = _errors(events)
    assert str(status) in error.message and not any("retrying" in n for n in _notices(events))


async def test_p05_too_early_is_asked_again(harness, fake_server) -> None:
    """425 Too Early (RFC 8470: the request may be repeated) was taken for a permanent 4xx."""
    fake_server.script(HttpError(425, "Too Early", retry_headers=False))
    fake_server.script(Text("later"))
    h = harness()
    events = await h.run("go")
    assert events[-1].text == "later" and len(fake_server.chat_requests) == 2 and len(h.clock.sleeps) == 1


QUOTA = {
    "anthropic": HttpError(429, "This request would exceed your spend limit.", error_type="rate_limit_error"),
    "openai": HttpError(
        429, "You exceeded your current quota, please check your plan.", error_type="insufficient_quota"
    ),
}


@pytest.mark.parametrize("kind", list(QUOTA), indirect=True)
async def test_p06_a_quota_refusal_is_not_retried_and_says_so(harness, fake_server, kind: str) -> None:
    fake_server.script(QUOTA[kind])
    h = harness()
    events = await h.run("go")
    assert len(fake_server.chat_requests) == 1 and h.clock.sleeps == []
    [error] = _errors(events)
    assert "quota" in error.message.lower() or "spend limit" in error.message.lower()


async def test_p07_a_rejected_key_is_not_retried_names_the_variable_and_is_not_saved(
    harness, fake_server, navtui_home: Path, kind: str
) -> None:
    fake_server.script(HttpError(401, f"invalid x-api-key {CANARY}", error_type="authentication_error"))
    h = harness()
    events = await h.run("go")
    assert len(fake_server.chat_requests) == 1 and h.clock.sleeps == []
    [error] = _errors(events)
    variable = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "ollama": "OLLAMA_API_KEY"}[kind]
    assert variable in (error.hint or error.message)
    assert secrets_on_disk(navtui_home) == []


async def test_p07_a_key_quoted_by_the_server_is_not_shown(harness, fake_server) -> None:
    fake_server.script(HttpError(401, f"invalid x-api-key {CANARY}", error_type="authentication_error"))
    h = harness()
    events = await h.run("go")
    assert CANARY not in json.dumps([e.to_json() for e in events])


# ---------------------------------------------------------------------------------------------------- P08
async def test_p08_an_error_inside_a_200_stream_is_a_failure_never_an_answer(harness, fake_server) -> None:
    fake_server.script(Text("So far "), HttpError(529, "Overloaded", error_type="overloaded_error"))
    fake_server.script(Text("Recovered."))
    h = harness()
    events = await h.run("go")
    assert events[-1].text == "Recovered." and len(fake_server.chat_requests) == 2
    assert [m.stop_reason for m in h.saved()] == ["error", "stop"]


# ---------------------------------------------------------------------------------------------------- P12
GARBAGE = {
    "html-502": RawResponse(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html"),
    "empty-200": RawResponse(200, b"", content_type="application/json"),
    "not-json-200": RawResponse(200, b"Internal proxy says hello", content_type="application/json"),
    "wrong-content-type": RawResponse(200, b'{"unexpected": true}', content_type="text/plain"),
    "10mb-junk": RawResponse(200, b"\xde\xad\xbe\xef" * (10 * 1024 * 256), content_type="application/octet-stream"),
}


@pytest.mark.parametrize("garbage", list(GARBAGE))
async def test_p12_a_garbage_body_is_a_clear_error_not_a_crash(harness, fake_server, garbage: str) -> None:
    for _ in range(4):
        fake_server.script(GARBAGE[garbage])
    h = harness()
    events = await h.run("go")
    assert isinstance(events[-1], RunFinished) and events[-1].stop_reason == "error"
    [error] = _errors(events)
    assert 0 < len(error.message) < 1000 and "Traceback" not in error.message


# ---------------------------------------------------------------------------------------------------- P14
async def test_p14_duplicate_empty_and_reused_tool_call_ids_are_made_unique(harness, fake_server, workspace) -> None:
    (workspace / "a.txt").write_text("a\n")
    fake_server.script(ToolCall("read", {"path": "a.txt"}, id="dup"), ToolCall("read", {"path": "a.txt"}, id="dup"))
    fake_server.script(ToolCall("read", {"path": "a.txt"}, id="dup"))  # reused in the next turn
    fake_server.script(Text("read it three times"))
    h = harness()
    events = await h.run("read")
    assert events[-1].text == "read it three times"
    ids = [c.id for m in h.runtime.agent.messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    assert len(ids) == 3 and len(set(ids)) == 3 and all(ids)
    # and every request the server got had a valid pairing (I2, conftest)


# ---------------------------------------------------------------------------------------------------- P17
async def test_p17_a_server_that_restarts_mid_session_is_waited_for(harness, fake_server) -> None:
    """`systemctl restart ollama`, a llama-server relaunched with other flags: for a moment nothing listens. A
    server that answered before is retried (with notices) rather than reported as not running."""
    fake_server.script(Text("First answer."))
    fake_server.script(Text("Answered after the restart."))
    h = harness()
    assert (await h.run("one"))[-1].text == "First answer."
    fake_server.stop()  # the port is refused from now on

    async def back_up(seconds: float) -> None:  # the retry's wait: the server is up again when it ends
        await h.clock.sleep(seconds)
        if len(h.clock.sleeps) == 1:
            fake_server.start()  # on the same port

    h.runtime.provider.retry.sleep = back_up
    events = await h.run("two")
    assert events[-1].stop_reason == "stop" and events[-1].text == "Answered after the restart."
    assert len(h.clock.sleeps) == 1 and any("retrying in" in n for n in _notices(events))
    assert not _errors(events) and len(fake_server.chat_requests) == 2


async def test_p03_the_app_counts_the_seconds_a_silent_model_takes(make_app, fake_server) -> None:
    from navtui.widgets.status_line import StatusLine
    from tests.app.conftest import main_screen, settle, wait_for

    model = "qwen2.5-coder:7b"  # make_app's model, out of memory: Ollama loads it first, then reads the prompt
    fake_server.set_model(model, loaded=False)
    fake_server.load_delay = 2.5
    fake_server.script(Stall(2.5, resume=True), Text("slow but alive"))  # a long prompt read on a CPU: no bytes yet
    app = make_app()
    async with app.run_test(size=(120, 32)) as pilot:
        main_screen(app).submit("go")
        status = app.screen.query_one(StatusLine)
        await wait_for(pilot, lambda: f"loading {model} · 2 s (Esc stops)" in status.activity, seconds=10)
        await wait_for(pilot, lambda: "waiting for the model · 4 s (Esc stops)" in status.activity, seconds=10)
        await settle(app, pilot)
        assert not status.working and app.runtime.last_answer() == "slow but alive"
