"""Handover: the tool, the fresh context (same prefix, notes at the end), the session entry, resume, auto and /handover."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from navtui.agent.context_requests import request_handover
from navtui.agent.handover import CONTINUE_PREFIX, HandoverArgs, HandoverNotes
from navtui.core.messages import AssistantMessage, TextBlock, UserMessage
from navtui.session.manager import SessionManager
from tests.agent.context_fixtures import (
    NOTES,
    RoutingServer,
    build_agent,
    collect,
    is_notes_request,
    ollama_provider,
    settings_with,
)
from tests.agent.history import history_is_valid
from tests.agent.scripted import ScriptedProvider, calls, text
from tests.fakes.script import Text
from tests.fakes.script import ToolCall as ScriptCall

HANDOVER = {"handover": {"enabled": True}}
CALL = {"summary": "Read the config loader.", "next_steps": "Fix the bug in load().", "context": "See config.py:42."}
EXPECTED_CONTINUE = (
    "Continue the task. Here's what was done and what's next:\n\n"
    "Completed: Read the config loader.\nNext steps: Fix the bug in load().\nContext: See config.py:42."
)
EXPECTED_NOTES = (
    "Previous step summary: Read the config loader.\nNext steps: Fix the bug in load().\nContext: See config.py:42."
)


def test_notes_text_and_continue_message() -> None:
    notes = HandoverNotes.from_args(HandoverArgs(**CALL))
    assert notes.text == EXPECTED_NOTES
    assert notes.continue_message() == EXPECTED_CONTINUE
    short = HandoverNotes.from_args(HandoverArgs(summary="a", next_steps="b"))
    assert short.continue_message() == CONTINUE_PREFIX + "Completed: a\nNext steps: b"
    parsed = HandoverNotes.from_text("**Completed:** x\n**Next steps:** y\nContext: z")
    assert (parsed.summary, parsed.next_steps, parsed.context, parsed.free_text) == ("x", "y", "z", None)
    free = HandoverNotes.from_text("I read everything; tomorrow, edit a.py.")
    assert free.free_text and free.text == free.free_text
    assert free.continue_message(instructions="add tests", pending="and fix b.py").endswith(
        "Instructions from the user: add tests\n\nThe user's latest message (answer it now):\nand fix b.py"
    )


async def test_a_handover_call_restarts_the_context_with_the_same_prefix(tmp_path: Path, fake_server: Any) -> None:
    fake_server.set_model("coder", context_length=32768)
    session = SessionManager.create(tmp_path, root=tmp_path / "sessions")
    agent, runtime = build_agent(
        ollama_provider(fake_server, "coder"), tmp_path, session=session, settings=settings_with(**HANDOVER)
    )
    fake_server.script(Text("Let me look."), ScriptCall("read", {"path": "config.py"}, id="r1"))
    fake_server.script(ScriptCall("handover", CALL, id="h1"))
    fake_server.script(Text("Fixed load()."))
    events = await collect(agent, "fix the config loader")

    first, second, third = (r.json for r in fake_server.chat_requests)
    assert "handover" in [t["function"]["name"] for t in first["tools"]]
    assert "You are operating in handover mode." in first["messages"][0]["content"]
    old_system, new_system = second["messages"][0]["content"], third["messages"][0]["content"]
    assert new_system.startswith(old_system)  # byte-identical prefix: the server's KV cache still holds
    assert new_system[len(old_system) :] == f"\n\n<handover_notes>\n{EXPECTED_NOTES}\n</handover_notes>"
    assert third["messages"][1:] == [{"role": "user", "content": EXPECTED_CONTINUE}]
    assert third["tools"] == second["tools"]

    handover = next(e for e in events if e.type == "handover")
    assert (handover.count, handover.automatic, handover.notes) == (1, False, EXPECTED_NOTES)
    assert runtime.handover_count == 1
    assert events[-1].type == "run_finished" and events[-1].text == "Fixed load()."
    assert [m.role for m in agent.messages] == ["user", "assistant"]

    session.sync()
    reopened = SessionManager.open(session.path)
    entry = next(e for e in reopened.entries if e.type == "custom_message")
    assert entry.custom_type == "handover" and entry.content == EXPECTED_NOTES
    assert entry.details["count"] == 1 and entry.details["nextSteps"] == "Fix the bug in load()."
    kinds = [e.type if e.type != "message" else e.message.role for e in reopened.entries]
    assert kinds == ["message"] * 0 + ["user", "assistant", "toolResult", "assistant", "toolResult"] + [
        "custom_message",
        "user",
        "assistant",
    ]


async def test_resume_after_a_handover_sends_the_post_handover_context(tmp_path: Path, fake_server: Any) -> None:
    fake_server.set_model("coder", context_length=32768)
    session = SessionManager.create(tmp_path, root=tmp_path / "sessions")
    agent, _ = build_agent(
        ollama_provider(fake_server, "coder"), tmp_path, session=session, settings=settings_with(**HANDOVER)
    )
    fake_server.script(ScriptCall("handover", CALL, id="h1"))
    fake_server.script(Text("Fixed load()."))
    await collect(agent, "fix the config loader")
    session.sync()
    live_request = fake_server.chat_requests[-1].json

    reopened = SessionManager.open(session.path)
    context = reopened.build_context()
    assert context.handover_notes == EXPECTED_NOTES
    resumed, runtime = build_agent(
        ollama_provider(fake_server, "coder"),
        tmp_path,
        session=reopened,
        settings=settings_with(**HANDOVER),
        messages=list(context.messages),
        handover_notes=context.handover_notes,
    )
    assert runtime.handover_count == 1  # counted from the session
    fake_server.script(Text("Anything else?"))
    await collect(resumed, "thanks")
    sent = fake_server.chat_requests[-1].json
    assert sent["messages"][0] == live_request["messages"][0]  # the same system prompt with the same notes
    assert sent["messages"][1:] == [
        {"role": "user", "content": EXPECTED_CONTINUE},
        {"role": "assistant", "content": "Fixed load()."},
        {"role": "user", "content": "thanks"},
    ]


async def test_bad_handover_arguments_go_back_to_the_model(tmp_path: Path) -> None:
    provider = ScriptedProvider(calls(("handover", {"summary": "only this"})), text("ok"))
    agent, runtime = build_agent(provider, tmp_path, settings=settings_with(**HANDOVER))
    events = await collect(agent, "go")
    result = next(e for e in events if e.type == "tool_call_finished").result
    assert result.is_error and "next_steps" in result.text
    assert runtime.handover_count == 0 and not any(e.type == "handover" for e in events)
    assert len(provider.requests[1].messages) == 3


async def test_without_handover_enabled_there_is_no_tool_and_no_addition(tmp_path: Path) -> None:
    provider = ScriptedProvider(calls(("handover", CALL)), text("ok"))
    agent, runtime = build_agent(provider, tmp_path)
    events = await collect(agent, "go")
    assert "handover" not in [t.name for t in provider.requests[0].tools]
    assert "handover mode" not in provider.requests[0].system
    result = next(e for e in events if e.type == "tool_call_finished").result
    assert result.is_error and "Unknown tool 'handover'" in result.text
    assert runtime.handover_count == 0


async def test_auto_handover_fires_at_the_threshold(tmp_path: Path) -> None:
    window = 8192
    with RoutingServer() as server:
        server.set_model("coder", context_length=window)
        session = SessionManager.create(tmp_path, root=tmp_path / "sessions")
        agent, runtime = build_agent(
            ollama_provider(server, "coder"), tmp_path, session=session, settings=settings_with(**HANDOVER)
        )
        agent.budget.window = window
        for index in range(24):
            words = " I am thinking carefully about this module and what it does." * 20
            server.script(Text(f"Step {index}.{words}"), ScriptCall("read", {"path": f"m{index}.py"}, id=f"r{index}"))
        server.script(Text("All done."))
        events = await collect(agent, "read the modules")
        handovers = [e for e in events if e.type == "handover"]
        assert handovers and handovers[0].automatic and handovers[0].count == 1
        assert server.note_requests == len(handovers)
        notes_request = next(r for r in server.chat_requests if is_notes_request(r))
        at = server.chat_requests.index(notes_request)
        before = server.chat_requests[at - 1]
        # The notes were asked for with the same prefix and tools (cache reuse), once the context passed 0.8.
        assert notes_request.json["tools"] == before.json["tools"]
        assert notes_request.json["messages"][0] == before.json["messages"][0]
        assert len(notes_request.body) // 4 >= 0.8 * window * 0.7
        after = server.chat_requests[at + 1].json["messages"]
        system_notes = NOTES.replace("Completed:", "Previous step summary:")
        assert after[0]["content"].endswith(f"<handover_notes>\n{system_notes}\n</handover_notes>")
        assert after[1:] == [{"role": "user", "content": CONTINUE_PREFIX + NOTES}]
        for request in server.chat_requests:
            assert len(request.body) // 4 < window
        assert events[-1].text == "All done." and history_is_valid(agent.messages)
        assert runtime.handover_count == len(handovers)


async def test_handover_on_request_with_instructions_then_work_goes_on(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        text("Read it all."),
        text("Completed: the reading.\nNext steps: the writing.\nContext: none."),
        text("Writing now done."),
    )
    agent, runtime = build_agent(provider, tmp_path, settings=settings_with(compaction={"strategy": "compact"}))
    await collect(agent, "read")
    events = [e async for e in request_handover(runtime, "concentrate on the tests")]
    notes_request = provider.requests[1]
    assert notes_request.messages[-1].text.endswith("The user asks you to focus the notes on: concentrate on the tests")
    assert [m.role for m in notes_request.messages[:-1]] == ["user", "assistant"]
    kinds = [e.type for e in events]
    assert kinds[:2] == ["handover", "user_message"] and kinds[-1] == "run_finished"
    continued = provider.requests[2]
    assert continued.system.endswith(
        "<handover_notes>\nPrevious step summary: the reading.\nNext steps: the writing.\nContext: none.\n</handover_notes>"
    )
    assert continued.messages[0].text.endswith("Instructions from the user: concentrate on the tests")
    assert runtime.handover_count == 1


async def test_a_pending_prompt_survives_an_automatic_handover(tmp_path: Path) -> None:
    provider = ScriptedProvider(text("Completed: a\nNext steps: b"), text("ok"))
    agent, _ = build_agent(provider, tmp_path, settings=settings_with(**HANDOVER))
    agent.budget.window = 4096
    agent.messages += [UserMessage(content="old"), AssistantMessage(content=[TextBlock(text="z" * 12000)])]
    events = await collect(agent, "now fix b.py")
    assert any(e.type == "handover" and e.automatic for e in events)
    notes_request, continued = provider.requests
    assert "now fix b.py" not in str([m.text for m in notes_request.messages])
    assert continued.messages[0].text.endswith("The user's latest message (answer it now):\nnow fix b.py")


async def test_handover_with_nothing_done_is_refused(tmp_path: Path) -> None:
    agent, runtime = build_agent(ScriptedProvider(), tmp_path)
    events = [e async for e in request_handover(runtime)]
    assert [e.type for e in events] == ["notice"] and "Nothing to hand over" in events[0].text


async def test_runtime_hands_over_and_a_resume_continues_after_it(workspace: Path, fake_server: Any) -> None:
    from navtui.agent.runtime import LaunchOptions, Runtime

    model = "qwen2.5-coder:7b"
    fake_server.set_model(model, context_length=16384)
    (workspace / "config.py").write_text("def load():\n    return 1\n")
    options = dict(cwd=workspace, model=model, provider="ollama", base_url=fake_server.url, enable_handover=True)
    runtime = Runtime.create(LaunchOptions(**options, approval="yolo"))
    assert "handover" in runtime.tools.names()
    fake_server.script(ScriptCall("read", {"path": "config.py"}, id="r1"))
    fake_server.script(ScriptCall("handover", CALL, id="h1"))
    fake_server.script(Text("Fixed load()."))
    events = [e async for e in runtime.run("fix the config loader")]
    assert [e.type for e in events].count("handover") == 1
    status = runtime.status(with_git=False)
    assert status.handover_count == 1 and status.context_window == 16384
    session_id = runtime.session.session_id
    await runtime.aclose()

    resumed = Runtime.create(LaunchOptions(**options, resume=session_id))
    assert resumed.handover_count == 1
    fake_server.script(Text("You're welcome."))
    [e async for e in resumed.run("thanks")]
    await resumed.aclose()
    sent = fake_server.chat_requests[-1].json["messages"]
    assert sent[0]["content"].endswith(f"<handover_notes>\n{EXPECTED_NOTES}\n</handover_notes>")
    assert sent[1:] == [
        {"role": "user", "content": EXPECTED_CONTINUE},
        {"role": "assistant", "content": "Fixed load()."},
        {"role": "user", "content": "thanks"},
    ]
