"""Tree navigation, branch summaries, /branch and labels on a real Runtime talking to the fake Ollama server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.app import tree_actions
from navtui.core.errors import NavtuiError
from navtui.core.messages import UserMessage
from navtui.session.entries import BranchSummaryEntry, MessageEntry
from navtui.session.listing import list_sessions
from navtui.session.manager import SessionManager
from tests.fakes import HttpError, Text, ToolCall

MODEL = "qwen2.5-coder:7b"


@pytest.fixture
async def runtime(fake_server: Any, workspace: Path) -> Any:
    rt = Runtime.create(LaunchOptions(cwd=workspace, provider="ollama", base_url=fake_server.url, model=MODEL))
    yield rt
    await rt.aclose()


async def ask(rt: Runtime, prompt: str) -> None:
    async for _ in rt.run(prompt):
        pass


def user_entry(session: SessionManager, text: str) -> str:
    for entry in session.entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage) and entry.message.text == text:
            return entry.id
    raise AssertionError(f"no user message {text!r}")


def sent_texts(request: Any) -> str:
    return json.dumps(request.json["messages"])


@pytest.fixture
async def two_branches(runtime: Runtime, fake_server: Any, workspace: Path) -> Runtime:
    """first question -> (read a tool) first answer; then two answers to it: "second" and "alternative"."""
    (workspace / "a.py").write_text("print('hi')\n")
    fake_server.script(ToolCall("read", {"path": "a.py"}))
    fake_server.script(Text("first answer"))
    await ask(runtime, "first question")
    fake_server.script(Text("second answer"))
    await ask(runtime, "second question")
    plan = await tree_actions.navigate(runtime, user_entry(runtime.session, "second question"))
    assert plan.prefill == "second question"
    fake_server.script(Text("alternative answer"))
    await ask(runtime, "alternative question")
    return runtime


async def test_two_branches_share_the_first_answer(two_branches: Runtime) -> None:
    session = two_branches.session
    second = session.get_entry(user_entry(session, "second question"))
    alternative = session.get_entry(user_entry(session, "alternative question"))
    assert second.parent_id == alternative.parent_id
    assert [entry.id for entry in session.children(second.parent_id)] == [second.id, alternative.id]


async def test_first_user_message_prefills_and_the_next_request_drops_the_abandoned_branch(
    two_branches: Runtime, fake_server: Any
) -> None:
    rt = two_branches
    result = await tree_actions.navigate(rt, user_entry(rt.session, "first question"))
    assert result.moved and result.prefill == "first question"
    assert rt.agent.messages == []  # the context was rebuilt from the new leaf (before the first message)
    fake_server.script(Text("fresh answer"))
    await ask(rt, "first question, asked differently")
    sent = sent_texts(fake_server.chat_requests[-1])
    assert "first question, asked differently" in sent
    for gone in ("first answer", "second question", "alternative question", "alternative answer"):
        assert gone not in sent
    assert len(rt.session.get_tree()) == 1  # the new question is a sibling under the session's first entry


async def test_selecting_an_answer_makes_it_the_leaf(two_branches: Runtime, fake_server: Any) -> None:
    rt = two_branches
    session = rt.session
    second_answer = session.children(user_entry(session, "second question"))[0].id
    result = await tree_actions.navigate(rt, second_answer)
    assert result.prefill is None and session.leaf_id == second_answer
    fake_server.script(Text("ok"))
    await ask(rt, "continue")
    sent = sent_texts(fake_server.chat_requests[-1])
    assert "second answer" in sent and "alternative" not in sent


async def test_selecting_the_current_leaf_does_nothing(two_branches: Runtime) -> None:
    session = two_branches.session
    leaf, count = session.leaf_id, len(session.entries)
    result = await tree_actions.navigate(two_branches, leaf)
    assert not result.moved and session.leaf_id == leaf and len(session.entries) == count


async def test_branch_summary_is_written_at_the_new_position_and_sent_next(
    two_branches: Runtime, fake_server: Any
) -> None:
    rt = two_branches
    session = rt.session
    target = user_entry(session, "second question")
    plan = tree_actions.plan_navigation(session, target)
    assert plan.can_summarize
    assert [e.id for e in plan.abandoned][-1] == session.leaf_id  # the alternative branch, up to the old leaf
    fake_server.script(Text("## Goal\nTried the alternative question."))
    result = await tree_actions.navigate(rt, target, summarize=True, instructions="mention the answer")
    summary = session.get_entry(result.summary_id)
    assert isinstance(summary, BranchSummaryEntry)
    assert summary.parent_id == plan.new_leaf_id and session.leaf_id == summary.id
    assert "Tried the alternative question." in summary.summary
    request = fake_server.chat_requests[-1].json
    assert not request.get("tools")  # a plain request, no tools
    prompt = request["messages"][-1]["content"]
    assert "<conversation>" in prompt and "alternative answer" in prompt and "mention the answer" in prompt
    fake_server.script(Text("ok"))
    await ask(rt, "second question again")
    sent = sent_texts(fake_server.chat_requests[-1])
    assert "Tried the alternative question." in sent and "alternative answer" not in sent


async def test_a_failed_summary_leaves_the_leaf_where_it_was(two_branches: Runtime, fake_server: Any) -> None:
    rt = two_branches
    leaf = rt.session.leaf_id
    fake_server.script(HttpError(400, "model exploded"))
    with pytest.raises(NavtuiError, match="summary"):
        await tree_actions.navigate(rt, user_entry(rt.session, "first question"), summarize=True)
    assert rt.session.leaf_id == leaf


async def test_branch_writes_a_second_file_with_the_path_up_to_the_message(
    two_branches: Runtime, fake_server: Any
) -> None:
    rt = two_branches
    first = rt.session
    first_path, first_bytes = first.path, first.path.read_bytes()
    result = tree_actions.branch(rt, user_entry(first, "alternative question"))
    assert result.prefill == "alternative question"
    assert rt.session is result.session and result.path != first_path and result.path.exists()
    assert result.session.header.parent_session == str(first_path)
    texts = [e.message.text for e in result.session.entries if isinstance(e, MessageEntry)]
    assert "first answer" in texts and "second question" not in texts and "alternative question" not in texts
    fake_server.script(Text("branched answer"))
    await ask(rt, "alternative question, in the new file")
    assert first_path.read_bytes() == first_bytes  # the first file is untouched
    reopened = SessionManager.open(result.path)
    assert any(isinstance(e, MessageEntry) and e.message.text == "branched answer" for e in reopened.entries)
    assert "second question" not in sent_texts(fake_server.chat_requests[-1])


async def test_branch_needs_a_user_message(two_branches: Runtime) -> None:
    session = two_branches.session
    with pytest.raises(NavtuiError, match="user|message"):
        tree_actions.branch_session(session, session.leaf_id)


async def test_branch_from_the_very_first_message_starts_an_empty_session(workspace: Path) -> None:
    session = SessionManager.create(workspace)
    first = session.append_message(UserMessage(content="hello"))
    result = tree_actions.branch_session(session, first)
    assert result.prefill == "hello"
    assert not any(isinstance(e, MessageEntry) for e in result.session.entries)
    assert result.session.name == "hello (branch)"
    assert result.session.header.parent_session == str(session.path)


async def test_a_branch_is_named_apart_from_the_session_it_came_from(two_branches: Runtime) -> None:
    rt = two_branches
    original = rt.session
    question = user_entry(original, "alternative question")
    first = tree_actions.branch_session(original, question).session
    assert first.name == "first question (branch)"
    second = tree_actions.branch_session(original, question).session
    assert second.name == "first question (branch 2)"  # /resume must still tell the two forks apart
    original.set_name("parser work")
    assert tree_actions.branch_session(original, question).session.name == "parser work (branch)"
    fork_of_fork = tree_actions.branch_session(first, user_entry(first, "first question")).session
    assert fork_of_fork.name.endswith("(branch 3)") and "(branch) (branch" not in fork_of_fork.name
    listed = {summary.name for summary in list_sessions(Path(original.header.cwd))}
    assert {"parser work", "parser work (branch)", "first question (branch)", "first question (branch 2)"} <= listed


async def test_labels_set_and_clear(two_branches: Runtime) -> None:
    rt = two_branches
    leaf = rt.session.leaf_id
    target, label = tree_actions.label_leaf(rt, "  good   version ")
    assert (target, label) == (leaf, "good version") and rt.session.label_of(leaf) == "good version"
    # The leaf is now the label entry; labelling again still targets the answer, not the label entry.
    target, label = tree_actions.label_leaf(rt, "")
    assert target == leaf and label is None and rt.session.label_of(leaf) is None


async def test_navigation_while_the_agent_runs_is_refused(two_branches: Runtime, monkeypatch: Any) -> None:
    monkeypatch.setattr(type(two_branches), "running", property(lambda self: True))
    with pytest.raises(NavtuiError, match="working"):
        await tree_actions.navigate(two_branches, user_entry(two_branches.session, "first question"))
