"""A resumed session's older messages stay in the session's lines (``ContextMessages``) until the first request.

What the agent does with them must not change: the status figures, the pruning, the summary requests and the
compaction entry of a resumed session equal those of the same session with every message held. Real session
files, the fake Ollama server."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path
from typing import Any

import pytest

from navtui.agent.context_requests import compact_now
from navtui.agent.status import context_usage
from navtui.core.context_messages import ContextMessages
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.session import context as context_module
from navtui.session.manager import SessionManager
from tests.agent.context_fixtures import RoutingServer, build_agent, collect, is_summary_request, ollama_provider
from tests.agent.history import history_is_valid
from tests.fakes.script import Text

WINDOW = 16384


def write_session(root: Path, *, turns: int = 40, compacted: bool = False) -> Path:
    """A session of ``turns`` turns (a prompt, a read and its result, an answer) whose context is ~4x the window,
    with what the context repairs or converts: a call never answered, an empty answer, a custom message."""
    session = SessionManager.create(root, root=root / "sessions")
    first_kept = None
    for index in range(turns):
        prompt_id = session.append_message(UserMessage(content=f"prompt {index}: " + "look into it " * 20))
        if index == turns // 4:
            first_kept = prompt_id
        call = ToolCall(id=f"c{index}", name="read", arguments={"path": f"src/m{index}.py"})
        session.append_message(AssistantMessage(content=[TextBlock(text=f"Reading {index}."), call]))
        if index == 3:  # the run was torn down here: repair answers the call ("aborted")
            session.append_message(UserMessage(content="where were we?"))
            continue
        session.append_message(ToolResultMessage.of(call, f"line {index} of the module\n" * 60))
        if index == 5:
            session.append_message(AssistantMessage(content=[TextBlock(text="  ")]))  # empty: dropped
        if index == 7:
            session.append_custom_message("note", "a note the user pinned", display=True)
        session.append_message(AssistantMessage(content=[TextBlock(text=f"Module {index} reads files. " * 8)]))
    if compacted:
        session.append_compaction("## Goal\nAn earlier summary.", first_kept, 30000, {"readFiles": ["src/m0.py"]})
        for index in range(turns, turns + 4):
            session.append_message(UserMessage(content=f"prompt {index}"))
            session.append_message(AssistantMessage(content=[TextBlock(text=f"Answer {index}. " * 30)]))
    session.close()
    return session.path


async def resume(
    path: Path, workspace: Path, *, hold: bool, reply: str = "Done.", manual: bool = False
) -> dict[str, Any]:
    """Resume a copy of ``path``, send one prompt (or ``/compact`` first), and record what the agent did."""
    copy = workspace / "sessions" / path.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, copy)
    with RoutingServer() as server:
        server.set_model("coder", context_length=WINDOW)
        session = SessionManager.open(copy)
        messages = session.build_context().messages
        assert isinstance(messages, ContextMessages)
        if hold:
            messages.hold()
        agent, runtime = build_agent(
            ollama_provider(server, "coder"), workspace, session=session, read_size=1500, messages=messages
        )
        agent.budget.window = WINDOW
        lazy = agent.messages.lazy_count if isinstance(agent.messages, ContextMessages) else 0
        usage = context_usage(workspace, agent, agent.provider, agent.tools, mcp=None)
        status = (agent.budget.estimate(agent), dict(usage.messages), dict(usage.message_tokens))
        events: list[Any] = []
        if manual:
            events += [e async for e in compact_now(runtime, "keep module names")]
        server.script(Text(reply))
        events += await collect(agent, "go on")
        session.sync()
        compactions = [e for e in SessionManager.open(copy).entries if e.type == "compaction"]
        return {
            "lazy": lazy,
            "status": status,
            "events": [_event(e) for e in events],
            "requests": [r.json for r in server.chat_requests],
            "summaries": sum(is_summary_request(r) for r in server.chat_requests),
            "compaction": [(c.summary, c.first_kept_entry_id, c.tokens_before, c.details) for c in compactions],
            "messages": [{k: v for k, v in m.to_json().items() if k != "timestamp"} for m in agent.messages],
            "valid": history_is_valid(list(agent.messages)),
        }


def _event(event: Any) -> Any:
    kind = event.type
    if kind == "context_pruned":
        return (kind, event.results, event.tokens_saved)
    if kind == "compaction_started":
        return (kind, event.reason, event.tokens_before)
    if kind == "compaction_finished":
        return (kind, event.summary, event.tokens_before, event.tokens_after)
    if kind == "notice":
        return (kind, event.text)
    return kind


@pytest.mark.parametrize(
    ("compacted", "held_tokens"),
    [(False, None), (True, None), (False, 300)],
    ids=["never-compacted", "compacted-before", "cut-among-the-lines"],
)
async def test_a_resumed_session_compacts_on_its_first_prompt_as_it_would_with_every_message_held(
    tmp_path: Path, compacted: bool, held_tokens: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if held_tokens is not None:  # the newest held are fewer than compaction keeps: the cut falls among the lines
        monkeypatch.setattr(context_module, "HELD_TOKENS", held_tokens)
    path = write_session(tmp_path / "src", turns=60 if compacted else 40, compacted=compacted)
    lazy = await resume(path, tmp_path / "lazy", hold=False)
    held = await resume(path, tmp_path / "held", hold=True)
    assert lazy["lazy"] > 20 and held["lazy"] == 0  # most of the context stayed in its lines
    assert lazy["status"] == held["status"]
    kinds = [e[0] if isinstance(e, tuple) else e for e in lazy["events"]]
    assert "compaction_finished" in kinds and kinds[-1] == "run_finished"
    assert lazy["summaries"] >= 1
    for key in ("events", "requests", "compaction", "messages"):
        assert lazy[key] == held[key], key
    assert lazy["compaction"][-1][1] is not None  # the kept part is named by its first entry
    assert lazy["valid"]
    assert lazy["requests"][-1]["messages"][-1] == {"role": "user", "content": "go on"}


async def test_a_manual_compact_of_a_resumed_session_reads_what_it_needs(tmp_path: Path) -> None:
    path = write_session(tmp_path / "src", turns=24)
    lazy = await resume(path, tmp_path / "lazy", hold=False, manual=True)
    held = await resume(path, tmp_path / "held", hold=True, manual=True)
    assert lazy["lazy"] > 0
    for key in ("status", "events", "requests", "compaction", "messages"):
        assert lazy[key] == held[key], key
    assert lazy["events"][0][:2] == ("compaction_started", "manual")


def test_the_older_messages_are_read_from_their_lines_and_equal_the_held_ones(tmp_path: Path) -> None:
    path = write_session(tmp_path, turns=30)
    messages = SessionManager.open(path).build_context().messages
    assert isinstance(messages, ContextMessages)
    held = list(SessionManager.open(path).build_context().messages)
    gc.collect()
    assert 0 < messages.lazy_count < len(messages)
    assert messages == held and list(reversed(messages)) == held[::-1]
    assert messages[3:9] == held[3:9] and messages[-1] == held[-1]
    assert messages.tokens() == sum(messages.tokens(i, i + 1) for i in range(len(messages)))
    aborted = messages[14]  # what repair made for the call never answered (held: no line gives it)
    assert (
        isinstance(aborted, ToolResultMessage) and aborted.text.startswith("Aborted") and aborted.tool_call_id == "c3"
    )
    copy = messages.copy()
    copy[0] = UserMessage(content="changed")
    del copy[1:3]
    assert messages == held and copy[1:] == held[3:]  # a copy changes alone
    messages.hold()
    assert messages.lazy_count == 0 and messages == held


async def test_a_resumed_runtime_compacts_on_its_first_prompt_and_answers(navtui_home: Path, workspace: Path) -> None:
    from navtui.agent.runtime import LaunchOptions, Runtime

    path = write_session(workspace.parent / "src", turns=40)
    with RoutingServer() as server:
        server.set_model("coder", context_length=WINDOW)
        rt = Runtime.create(
            LaunchOptions(cwd=workspace, resume=str(path), base_url=server.url, model="coder", provider="ollama")
        )
        assert (await rt.check_provider()).ok and rt.agent.budget.window == WINDOW
        messages = rt.agent.messages
        assert isinstance(messages, ContextMessages) and messages.lazy_count > 20
        before = rt.status(with_git=False).context_tokens
        assert before > WINDOW  # the status line's figure counts every message, read or not
        server.script(Text("Here is where we are."))
        events = [event async for event in rt.run("go on")]
        kinds = [event.type for event in events]
        assert kinds.index("compaction_started") < kinds.index("compaction_finished") < kinds.index("run_finished")
        assert kinds.index("context_pruned") < kinds.index("compaction_started")  # old tool outputs went first
        started = next(event for event in events if event.type == "compaction_started")
        assert rt.last_answer() == "Here is where we are." and server.summaries >= 1
        assert len(server.chat_requests[-1].body) // 4 < WINDOW
        assert isinstance(rt.agent.messages, ContextMessages) and rt.agent.messages.lazy_count == 0
        assert rt.status(with_git=False).context_tokens < before
        await rt.aclose()
    reopened = SessionManager.open(path)
    compaction = next(entry for entry in reversed(reopened.entries) if entry.type == "compaction")
    assert compaction.tokens_before == started.tokens_before
    assert compaction.first_kept_entry_id in reopened.branch_ids()
    assert reopened.build_context().messages[-1].text == "Here is where we are."
