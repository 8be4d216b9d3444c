"""A long scripted task on a small window: 50 tool turns on 8k, and no request ever exceeds the window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.agent.budget import ContextLimits
from navtui.session.manager import SessionManager
from tests.agent.context_fixtures import (
    RoutingServer,
    build_agent,
    collect,
    is_notes_request,
    is_summary_request,
    ollama_provider,
    settings_with,
)
from tests.agent.history import history_is_valid
from tests.fakes.script import Text, ToolCall

WINDOW = 8192
TURNS = 50


def _script_task(server: RoutingServer) -> None:
    """50 turns: varied thoughts, reads (some big) and writes with file contents in the arguments."""
    for index in range(TURNS):
        thought = f"Turn {index}: checking the next module." + " Thinking it through." * (index % 7) * 6
        if index % 5 == 4:
            content = f"# module {index}\n" + "value = compute()\n" * (20 + index % 3 * 30)
            call = ToolCall("write", {"path": f"src/out{index}.py", "content": content}, id=f"w{index}")
        else:
            call = ToolCall("read", {"path": f"src/mod{index}.py"}, id=f"r{index}")
        server.script(Text(thought), call)
    server.script(Text("All fifty steps are done."))


@pytest.mark.parametrize("mode", ["compact", "handover"])
async def test_fifty_tool_turns_on_an_8k_window_never_overflow(tmp_path: Path, mode: str) -> None:
    settings = settings_with(handover={"enabled": True}) if mode == "handover" else settings_with()
    with RoutingServer() as server:
        server.set_model("small-coder", context_length=WINDOW)
        session = SessionManager.create(tmp_path, root=tmp_path / "sessions")
        provider = ollama_provider(server, "small-coder")
        agent, runtime = build_agent(provider, tmp_path, session=session, settings=settings, read_size=3000)
        agent.budget.window = (await provider.model_info()).context_window
        assert agent.budget.window == WINDOW
        agent.max_turns = 200
        _script_task(server)
        events = await collect(agent, "refactor every module")
        await provider.aclose()

    assert events[-1].type == "run_finished" and events[-1].stop_reason == "stop"
    assert events[-1].text == "All fifty steps are done."
    assert server.pending() == 0  # every scripted turn was used: the task went to the end
    chats = server.chat_requests
    agent_turns = [r for r in chats if not is_summary_request(r) and not is_notes_request(r)]
    assert len(agent_turns) == TURNS + 1
    for request in chats:
        assert request.json["options"]["num_ctx"] == WINDOW
        assert len(request.body) // 4 <= WINDOW, f"a request of ~{len(request.body) // 4} tokens"
    limits = ContextLimits.for_window(WINDOW)
    sizes = [len(r.body) // 4 for r in agent_turns]
    assert max(sizes) <= limits.hard_limit
    kinds = [e.type for e in events]
    assert "context_pruned" in kinds
    if mode == "compact":
        assert kinds.count("compaction_finished") >= 1 and "handover" not in kinds
    else:
        assert kinds.count("handover") >= 1 and runtime.handover_count == kinds.count("handover")
    assert history_is_valid(agent.messages)

    # What the session rebuilds is what the model would see next, and it fits.
    session.sync()
    context = SessionManager.open(session.path).build_context()
    assert [m.role for m in context.messages] == [m.role for m in agent.messages]
    rebuilt = sum(len(json.dumps(m.to_json())) for m in context.messages) // 4
    print(f"\n{mode}: {len(chats)} requests, largest {max(sizes)} tokens, rebuilt context ~{rebuilt} tokens")
