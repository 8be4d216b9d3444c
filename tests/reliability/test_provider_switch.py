"""One conversation across providers (the runtime and the real clients against the fake): what one provider left
in history (signed and redacted thinking, its tool-call ids, images) goes to the next as a history it accepts."""

from __future__ import annotations

import json
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import RunFinished
from navtui.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.fakes import FakeServer, Text
from tests.fakes.server import FakeServer as _Server  # noqa: F401 - the type the fixture gives

MODELS = {"ollama": "qwen2.5-coder:7b", "openai": "qwen2.5-coder-7b", "anthropic": "claude-haiku-4-5"}
PNG = "iVBORw0KGgo="


@pytest.fixture
def endpoints(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every provider's default endpoint is the fake, so /model NAME reaches it as a user's would reach theirs."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "t" * 40)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_server.url + "/v1")
    monkeypatch.setenv("OLLAMA_HOST", fake_server.url)


def history_from(kind: str) -> list[Any]:
    """A finished tool turn as ``kind`` leaves it: its ids, its thinking, an image in a tool result."""
    call_id = {"ollama": "call_0", "openai": "chatcmpl-tool-9f2c.1", "anthropic": "toolu_01A09q90qw90lq917835lq9"}[kind]
    thinking: list[Any] = []
    if kind == "anthropic":
        thinking = [ThinkingBlock(thinking="Look first.", thinking_signature="EqQBCkYIARgC"),
                    ThinkingBlock(thinking="", thinking_signature="EmwKAhgBEgy3va", redacted=True)]  # fmt: skip
    elif kind == "ollama":
        thinking = [ThinkingBlock(thinking="Look first.")]
    call = ToolCall(id=call_id, name="read", arguments={"path": "demo.py"})
    result = ToolResultMessage.of(call, "def add(a, b):\n    return a - b\n[image: image/png, 8 B]")
    result.content.append(ImageBlock(data=PNG))
    return [
        UserMessage(content="what does demo.py do?"),
        AssistantMessage(
            content=[*thinking, TextBlock(text="Reading it."), call],
            provider=kind,
            model=MODELS[kind],
            stop_reason="tool_use",
        ),  # fmt: skip
        result,
        AssistantMessage(content=[TextBlock(text="It subtracts.")], provider=kind, model=MODELS[kind]),
    ]


@pytest.mark.parametrize("to", list(MODELS))
@pytest.mark.parametrize("source", list(MODELS))
async def test_a_conversation_goes_on_with_another_provider(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, endpoints: None, source: str, to: str
) -> None:
    fake_server.set_model(MODELS["ollama"], capabilities=("completion", "tools", "vision"))
    fake_server.set_model(MODELS["openai"], capabilities=("completion", "tools", "vision"))
    fake_server.set_model(MODELS["anthropic"])
    options = LaunchOptions(cwd=workspace, model=MODELS[source], provider=source, approval="yolo", ephemeral=True)
    runtime = Runtime.create(options)
    try:
        for message in history_from(source):
            runtime.agent.add_message(message)
        if to != source:
            await runtime.switch_model(MODELS[to], to)
        fake_server.script(Text("Fixed it."))
        events = [event async for event in runtime.run("now fix it")]
        assert isinstance(events[-1], RunFinished) and events[-1].text == "Fixed it.", events[-3:]
        assert fake_server.invalid_requests() == []
        sent = json.dumps(fake_server.chat_requests[-1].json)
        assert "It subtracts." in sent and "now fix it" in sent and PNG in sent  # the image reached the model
        if to == "anthropic":
            assert ("EqQBCkYIARgC" in sent) == (source == "anthropic")  # a signature only Claude made goes back
        else:
            assert "EqQBCkYIARgC" not in sent and "EmwKAhgBEgy3va" not in sent
    finally:
        await runtime.aclose()


@pytest.mark.parametrize(("main", "advisor"), [("ollama", "anthropic"), ("anthropic", "openai"), ("openai", "ollama")])
async def test_the_advisor_on_another_provider_reviews_the_primarys_turn(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, endpoints: None, main: str, advisor: str
) -> None:
    from navtui.core.events import AdvisorNote
    from tests.fakes import ToolCall as CallStep

    options = LaunchOptions(cwd=workspace, model=MODELS[main], provider=main, approval="yolo", ephemeral=True)
    runtime = Runtime.create(options)
    runtime.settings.advisor.sync_backlog = 1  # the turn's end waits for the review: its note is in this run
    try:
        runtime.start_advisor(MODELS[advisor])
        fake_server.script(Text("Done: nothing to change."), model=MODELS[main])
        fake_server.script(Text("Ran it: fine."), model=MODELS[main])  # the answer to the steering
        fake_server.script(
            CallStep("advise", {"note": "no test was run", "severity": "concern"}), model=MODELS[advisor]
        )
        events = [event async for event in runtime.run("check demo.py")]
        assert isinstance(events[-1], RunFinished)
        assert [e.note for e in events if isinstance(e, AdvisorNote)] == ["no test was run"]
        paths = {r.path for r in fake_server.chat_requests}
        primary = [r for r in fake_server.chat_requests if r.model == MODELS[main]]
        assert len(paths) == 2 and "no test was run" in json.dumps(primary[-1].json)  # the concern steered it
        assert fake_server.invalid_requests() == []  # each reached by its own wire format
    finally:
        await runtime.aclose()


@pytest.mark.parametrize(("source", "to"), list(permutations(MODELS, 2)))
async def test_a_session_resumed_on_another_provider_goes_on(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, endpoints: None, source: str, to: str
) -> None:
    """The session file, not memory: what one provider's run recorded (thinking, its ids, a tool's output) is read
    back and sent to another as a valid history."""
    from tests.fakes import Thinking
    from tests.fakes import ToolCall as CallStep

    (workspace / "demo.py").write_text("def add(a, b):\n    return a - b\n")
    first = Runtime.create(LaunchOptions(cwd=workspace, model=MODELS[source], provider=source, approval="yolo"))
    try:
        fake_server.script(Thinking("Look first.", signature="EqQBCkYIARgC"), Text("Reading."),
                           CallStep("read", {"path": "demo.py"}))  # fmt: skip
        fake_server.script(Text("It subtracts."))
        events = [event async for event in first.run("what does demo.py do?")]
        assert isinstance(events[-1], RunFinished) and events[-1].text == "It subtracts."
    finally:
        await first.aclose()
    resumed = Runtime.create(
        LaunchOptions(cwd=workspace, model=MODELS[to], provider=to, approval="yolo", continue_session=True)
    )
    try:
        fake_server.script(Text("Fixed it."))
        events = [event async for event in resumed.run("now fix it")]
        assert isinstance(events[-1], RunFinished) and events[-1].text == "Fixed it.", events[-3:]
        assert fake_server.invalid_requests() == []
        sent = json.dumps(fake_server.chat_requests[-1].json)
        assert "It subtracts." in sent and "return a - b" in sent and "EqQBCkYIARgC" not in sent
    finally:
        await resumed.aclose()
