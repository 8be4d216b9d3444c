"""Compaction: the cut, the summarizer's input and prompts, and the manual / threshold / overflow paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from navtui.agent.budget import ContextLimits
from navtui.agent.compaction import (
    SPLIT_TURN_HEADER,
    SummaryBudget,
    is_overflow,
    plan_compaction,
    previous_summary,
    serialize,
    summary_message,
    write_summary,
)
from navtui.agent.context_requests import compact_now
from navtui.agent.file_list import FileOps, strip_files
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.session.manager import SessionManager
from tests.agent.context_fixtures import (
    RoutingServer,
    build_agent,
    collect,
    is_summary_request,
    ollama_provider,
    settings_with,
)
from tests.agent.history import history_is_valid
from tests.agent.scripted import ScriptedProvider, text
from tests.fakes.script import Text
from tests.fakes.script import ToolCall as ScriptCall

# ---------------------------------------------------------------- building conversations


def turn(index: int, tools: int, size: int = 40) -> list[Any]:
    """One assistant message with ``tools`` calls and their results (or a text answer when ``tools`` is 0)."""
    if tools == 0:
        return [AssistantMessage(content=[TextBlock(text=f"answer {index} " + "x" * size)])]
    calls = [ToolCall(id=f"c{index}_{k}", name="read", arguments={"path": f"f{index}_{k}.py"}) for k in range(tools)]
    out: list[Any] = [AssistantMessage(content=[TextBlock(text=f"step {index}"), *calls], stop_reason="tool_use")]
    out += [ToolResultMessage.of(call, "r" * size) for call in calls]
    return out


conversation = st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(1, 400)), min_size=1, max_size=25).map(
    lambda spec: [
        message
        for index, (user, tools, size) in enumerate(spec)
        for message in ([UserMessage(content=f"prompt {index}")] if user or index == 0 else [])
        + turn(index, tools, size)
    ]
)


@settings(max_examples=150, deadline=None)
@given(conversation, st.integers(0, 3000))
def test_the_cut_never_separates_a_call_from_its_result(messages: list[Any], keep: int) -> None:
    plan = plan_compaction(messages, keep)
    if plan is None:
        return
    kept = messages[plan.cut :]
    assert kept and not isinstance(kept[0], ToolResultMessage)
    assert history_is_valid([UserMessage(content="summary"), *kept])
    assert 0 < plan.cut < len(messages)
    if plan.turn_start is not None:
        assert isinstance(messages[plan.turn_start], UserMessage)
        assert not isinstance(messages[plan.cut], UserMessage)
        assert plan.history(messages) and plan.turn_prefix(messages)


def test_cut_keeps_about_keep_tokens_and_marks_a_split_turn() -> None:
    messages = [UserMessage(content="first task"), *turn(0, 1, 2000), UserMessage(content="second task")]
    for index in range(1, 6):
        messages += turn(index, 1, 2000)
    plan = plan_compaction(messages, keep_tokens=700)
    assert plan is not None
    kept = messages[plan.cut :]
    assert isinstance(kept[0], AssistantMessage) and len(kept) == 2  # the newest call and its result
    assert plan.turn_start == 3  # "second task" starts the turn that was cut in two
    assert plan.history(messages) == messages[:3]
    assert plan_compaction(messages[:1], 100) is None


def test_files_are_listed_cumulatively_and_stripped() -> None:
    messages = [
        AssistantMessage(
            content=[
                ToolCall(id="1", name="read", arguments={"path": "a.py"}),
                ToolCall(id="2", name="edit", arguments={"path": "a.py", "old_text": "x", "new_text": "y"}),
                ToolCall(id="3", name="write", arguments={"path": "new.py", "content": ""}),
                ToolCall(id="4", name="read", arguments={"path": "docs/b.md"}),
                ToolCall(id="5", name="shell", arguments={"command": "ls"}),
            ]
        )
    ]
    ops = FileOps()
    ops.add_calls(messages)
    block = ops.block()
    assert block == "<files>\na.py (RW)\nnew.py (Write)\ndocs/b.md (Read)\n</files>"
    assert ops.details() == {"readFiles": ["docs/b.md"], "modifiedFiles": ["a.py", "new.py"]}
    later = FileOps()
    later.add_listed(f"## Goal\nx\n\n{block}")
    assert later.block() == block
    assert strip_files(f"## Goal\nx\n\n{block}") == "## Goal\nx"
    many = FileOps(read={f"f{i:02}.py" for i in range(25)})
    assert many.block().count("(Read)") == 20 and "(5 more files omitted)" in many.block()


def test_pi_file_tags_are_taken_over_and_replaced_by_one_files_block() -> None:
    pi_summary = "## Goal\nx\n\n<read-files>\ndocs/b.md\n</read-files>\n\n<modified-files>\na.py\n</modified-files>"
    ops = FileOps(read={"a.py"})
    ops.add_listed(pi_summary)
    assert ops.block() == "<files>\na.py (RW)\ndocs/b.md (Read)\n</files>"
    assert strip_files(pi_summary) == "## Goal\nx"


def test_serialize_cuts_long_tool_results() -> None:
    call = ToolCall(id="1", name="read", arguments={"path": "big.py"})
    texts = serialize(
        [
            UserMessage(content="please"),
            AssistantMessage(content=[TextBlock(text="reading"), call]),
            ToolResultMessage.of(call, "z" * 10000),
        ],
        max_chars=50000,
    )
    assert texts[0] == "[User]: please"
    assert texts[1] == '[Assistant]: reading\n[Assistant tool calls]: read({"path": "big.py"})'
    assert texts[2].startswith("[Tool result] read: zzz") and len(texts[2]) < 2100


def test_summary_message_round_trips_with_the_session_framing() -> None:
    message = summary_message("## Goal\nship it")
    assert previous_summary([message, UserMessage(content="x")]) == "## Goal\nship it"
    assert previous_summary([UserMessage(content="hello")]) is None


async def test_big_histories_are_summarized_in_chunks_that_fit() -> None:
    messages: list[Any] = [UserMessage(content="task")]
    for index in range(30):
        messages += turn(index, 1, 1500)
    messages.append(UserMessage(content="latest"))
    limits = ContextLimits.for_window(4096)
    provider = ScriptedProvider(*[text(f"summary {i}") for i in range(20)])
    plan = plan_compaction(messages, 200)
    assert plan is not None
    summary, files = await write_summary(provider, messages, plan, SummaryBudget(limits), instructions="keep paths")
    assert len(provider.requests) > 2
    first, second = provider.requests[0].messages[0].text, provider.requests[1].messages[0].text
    assert "## Goal" in first and "<previous-summary>" not in first and "keep paths" in first
    assert "<previous-summary>\nsummary 0\n</previous-summary>" in second
    for request in provider.requests:
        assert not request.tools and request.max_tokens == limits.summary_tokens
        size = len(request.system) + len(request.messages[0].text)
        assert size // 4 + limits.summary_tokens <= limits.window
    assert summary.startswith(f"summary {len(provider.requests) - 1}")
    assert "f0_0.py (Read)" in summary and len(files.read) == 30


async def test_a_split_turn_gets_a_second_summary() -> None:
    messages = [UserMessage(content="old task"), *turn(0, 0), UserMessage(content="new task")]
    for index in range(1, 4):
        messages += turn(index, 1, 800)
    plan = plan_compaction(messages, 300)
    assert plan is not None and plan.turn_start == 2
    provider = ScriptedProvider(text("history summary"), text("turn start summary"))
    summary, _ = await write_summary(provider, messages, plan, SummaryBudget(ContextLimits.for_window(32768)))
    assert summary.startswith("history summary" + SPLIT_TURN_HEADER + "turn start summary")
    assert "beginning of a turn" in provider.requests[1].messages[0].text
    assert "[User]: new task" in provider.requests[1].messages[0].text


def test_overflow_errors_are_recognized() -> None:
    for message in (
        "Ollama returned HTTP 400: the input length exceeds the context length",
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        "prompt is too long: 210000 tokens > 200000 maximum",
    ):
        assert is_overflow(message)
    assert is_overflow("anything", "overflow")
    assert not is_overflow("Ollama returned HTTP 500: out of memory")


# ---------------------------------------------------------------- against the fake Ollama server


def _scripted_reads(server: Any, count: int, prefix: str = "c", words: int = 0) -> None:
    for index in range(count):
        thought = f"Reading file {index}." + " Some careful reasoning about it." * words
        server.script(Text(thought), ScriptCall("read", {"path": f"src/m{index}.py"}, id=f"{prefix}{index}"))


async def test_manual_compaction_keeps_the_newest_part_and_is_saved(tmp_path: Path) -> None:
    with RoutingServer() as server:
        server.set_model("coder", context_length=16384)
        session = SessionManager.create(tmp_path, root=tmp_path / "sessions")
        agent, runtime = build_agent(ollama_provider(server, "coder"), tmp_path, session=session, read_size=1500)
        agent.budget.window = 16384
        _scripted_reads(server, 6)
        server.script(Text("All six files read."))
        await collect(agent, "read the modules")
        before = list(agent.messages)
        events = [e async for e in compact_now(runtime, "focus on module names")]
        kinds = [e.type for e in events]
        assert kinds == ["compaction_started", "compaction_finished"]
        assert events[0].reason == "manual"
        summary = events[1].summary
        assert summary.startswith("## Goal") and "src/m0.py (Read)" in summary
        assert events[1].tokens_after < events[1].tokens_before
        summarizer = [r for r in server.chat_requests if is_summary_request(r)]
        assert len(summarizer) == 1 and "focus on module names" in summarizer[0].body.decode()
        kept = agent.messages[1:]
        assert kept == before[len(before) - len(kept) :] and not isinstance(kept[0], ToolResultMessage)

        server.script(Text("Continuing."))
        await collect(agent, "go on")
        sent = server.chat_requests[-1].json["messages"]
        assert sent[0]["role"] == "system"
        assert sent[1]["role"] == "user" and "compacted into the following summary" in sent[1]["content"]
        assert summary in sent[1]["content"]
        roles = {"user": "user", "assistant": "assistant", "toolResult": "tool"}
        assert [m["role"] for m in sent[2 : 2 + len(kept)]] == [roles[m.role] for m in kept]
        assert sent[2 + len(kept)] == {"role": "user", "content": "go on"}

        session.sync()
        entries = [e for e in SessionManager.open(session.path).entries if e.type == "compaction"]
        assert len(entries) == 1 and entries[0].summary == summary and entries[0].details["reason"] == "manual"
        assert set(entries[0].details["readFiles"]) <= {f"src/m{i}.py" for i in range(6)}
        resumed = SessionManager.open(session.path).build_context()
        assert [(m.role, m.text if hasattr(m, "text") else None) for m in resumed.messages] == [
            (m.role, m.text) for m in agent.messages
        ]


async def test_threshold_compaction_runs_after_pruning_before_the_request(tmp_path: Path) -> None:
    with RoutingServer() as server:
        server.set_model("coder", context_length=8192)
        agent, _ = build_agent(ollama_provider(server, "coder"), tmp_path, read_size=2400)
        agent.budget.window = 8192
        _scripted_reads(server, 16, words=40)
        server.script(Text("Done reading."))
        events = await collect(agent, "read everything")
        kinds = [e.type for e in events]
        assert "context_pruned" in kinds and "compaction_started" in kinds
        assert kinds.index("context_pruned") < kinds.index("compaction_started")
        started = next(e for e in events if e.type == "compaction_started")
        assert started.reason == "threshold"
        pruned = [
            m for m in agent.messages if isinstance(m, ToolResultMessage) and m.text.startswith("[output pruned:")
        ]
        assert pruned or server.summaries  # what was pruned may have been compacted since
        limits = ContextLimits.for_window(8192)
        for request in server.chat_requests:
            assert len(request.body) // 4 <= limits.hard_limit
            assert request.json["options"]["num_ctx"] == 8192
        assert events[-1].type == "run_finished" and events[-1].stop_reason == "stop"
        assert history_is_valid(agent.messages)


async def test_an_overflow_teaches_the_budget_that_tokens_were_undercounted(tmp_path: Path) -> None:
    agent, _ = build_agent(ScriptedProvider(), tmp_path)
    agent.budget.window = 32768
    failed = AssistantMessage(stop_reason="error", error_message="prompt is too long: 40000 tokens > 32768 maximum")
    agent.messages += [UserMessage(content="hello " * 100), failed]
    assert await agent.hooks.retry_after_error(agent, failed)
    assert agent.messages[-1].role == "user" and agent.budget.ratio > 1.0
    assert not await agent.hooks.retry_after_error(agent, failed)  # once per overflow
    other = AssistantMessage(stop_reason="error", error_message="Ollama returned HTTP 500: out of memory")
    assert not await agent.hooks.retry_after_error(agent, other)


async def test_strategy_off_only_prunes(tmp_path: Path) -> None:
    provider = ScriptedProvider(*[text("x") for _ in range(3)])
    agent, _ = build_agent(provider, tmp_path, settings=settings_with(compaction={"strategy": "off"}))
    agent.budget.window = 4096
    call = ToolCall(id="c1", name="read", arguments={"path": "a"})
    agent.messages += [
        UserMessage(content="go"),
        AssistantMessage(content=[call]),
        ToolResultMessage.of(call, "y" * 30000),
        AssistantMessage(content=[TextBlock(text="ok")]),
    ]
    events = [e async for e in agent.hooks.before_request(agent)]
    assert [e.type for e in events] == ["context_pruned"]
    assert agent.messages[2].text.startswith("[output pruned:")
    assert agent.budget.estimate(agent) < ContextLimits.for_window(4096).threshold


async def test_compaction_after_a_resume_updates_the_previous_summary(tmp_path: Path) -> None:
    with RoutingServer() as server:
        server.set_model("coder", context_length=16384)
        session = SessionManager.create(tmp_path, root=tmp_path / "sessions")
        agent, runtime = build_agent(ollama_provider(server, "coder"), tmp_path, session=session, read_size=1500)
        agent.budget.window = 16384
        _scripted_reads(server, 5)
        server.script(Text("Read five."))
        await collect(agent, "read")
        [e async for e in compact_now(runtime)]
        session.sync()

        reopened = SessionManager.open(session.path)
        context = reopened.build_context()
        resumed, runtime2 = build_agent(
            ollama_provider(server, "coder"), tmp_path, session=reopened, read_size=1500, messages=context.messages
        )
        resumed.budget.window = 16384
        _scripted_reads(server, 5, prefix="d")
        server.script(Text("Read five more."))
        await collect(resumed, "read more")
        events = [e async for e in compact_now(runtime2, None)]
        assert [e.type for e in events] == ["compaction_started", "compaction_finished"]
        later = [r.body.decode() for r in server.chat_requests if is_summary_request(r)][1:]
        update = next(body for body in later if "<previous-summary>" in body)
        assert "(#1)" in update  # the first summary, carried forward into the update prompt
        assert "src/m0.py (Read)" in events[-1].summary  # files from before the resume are still listed
        reopened.sync()
        final = SessionManager.open(session.path)
        compactions = [e for e in final.entries if e.type == "compaction"]
        assert len(compactions) == 2 and compactions[1].first_kept_entry_id is not None
        rebuilt = final.build_context().messages
        assert [(m.role, getattr(m, "text", None)) for m in rebuilt] == [(m.role, m.text) for m in resumed.messages]


async def test_an_interrupt_stops_a_running_compaction(tmp_path: Path) -> None:
    from tests.agent.scripted import Pause

    provider = ScriptedProvider([Pause(30), *text("never")])
    agent, _ = build_agent(provider, tmp_path)
    agent.budget.window = 4096
    for index in range(6):
        agent.messages += [UserMessage(content=f"task {index}"), AssistantMessage(content=[TextBlock(text="w" * 2400)])]
    before = list(agent.messages)
    seen: list[Any] = []
    async for event in agent.run("next"):
        seen.append(event)
        if event.type == "compaction_started":
            agent.abort()
    notices = [e.text for e in seen if e.type == "notice"]
    assert any("interrupted by the user" in n for n in notices)
    assert seen[-1].type == "run_finished" and seen[-1].stop_reason == "aborted"
    assert agent.messages[: len(before)] == before  # nothing was compacted
    assert provider.closed_streams >= 1
