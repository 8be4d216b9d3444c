"""Context reconstruction: compaction, handover, summaries, model state, and always a valid conversation."""

from __future__ import annotations

from navtui.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from navtui.session.context import (
    ABORTED_RESULT,
    BRANCH_PREFIX,
    COMPACTION_PREFIX,
    HANDOVER_OPENING,
    OPENING_NOTE,
    repair_conversation,
)
from navtui.session.manager import SessionManager
from tests.session.helpers import assistant, call, conversation_problems, result, user


def _texts(session: SessionManager, leaf: str | None = None) -> list[str]:
    return [m.text for m in session.build_context(leaf).messages]


def test_plain_history_is_sent_as_is(session: SessionManager) -> None:
    messages = [user("q"), assistant("", call("c1")), result("c1", "file"), assistant("answer")]
    for message in messages:
        session.append_message(message)
    context = session.build_context()
    assert context.messages == messages
    assert context.handover_notes is None and context.compaction is None
    assert context.leaf_id == session.leaf_id


def test_compaction_sends_summary_then_kept_entries_then_later_ones(session: SessionManager) -> None:
    session.append_message(user("old 1"))
    session.append_message(assistant("old 2"))
    kept = session.append_message(user("kept 1"))
    session.append_message(assistant("kept 2"))
    compaction = session.append_compaction("We did X.", kept, 5000, {"readFiles": ["a.py"]})
    session.append_message(user("after"))
    context = session.build_context()
    assert context.messages[0].text == f"{COMPACTION_PREFIX}We did X.\n</summary>"
    assert [m.text for m in context.messages[1:]] == ["kept 1", "kept 2", "after"]
    assert context.compaction is not None and context.compaction.id == compaction
    assert context.compaction.details == {"readFiles": ["a.py"]}


def test_only_the_latest_compaction_counts(session: SessionManager) -> None:
    first = session.append_message(user("one"))
    session.append_compaction("first summary", first, 10)
    second = session.append_message(user("two"))
    session.append_compaction("second summary", second, 20)
    session.append_message(user("three"))
    texts = _texts(session)
    assert "second summary" in texts[0] and not any("first summary" in t for t in texts)
    assert texts[1:] == ["two", "three"]


def test_a_first_kept_id_off_the_path_keeps_nothing_before_the_compaction(session: SessionManager) -> None:
    session.append_message(user("old"))
    session.append_compaction("summary", "ffffffff", 10)
    session.append_message(user("new"))
    assert _texts(session)[1:] == ["new"]


def test_a_handover_starts_the_context_afresh_with_its_notes(session: SessionManager) -> None:
    session.append_message(user("long task"))
    session.append_message(assistant("working"))
    session.append_custom_message("handover", "## Notes\nDone: A. Next: B.")
    session.append_message(user("Continue the task"))
    session.append_message(assistant("on it"))
    context = session.build_context()
    assert context.handover_notes == "## Notes\nDone: A. Next: B."
    assert [m.text for m in context.messages] == ["Continue the task", "on it"]


def test_a_context_right_after_a_handover_is_empty(session: SessionManager) -> None:
    session.append_message(user("task"))
    session.append_custom_message("handover", "notes")
    context = session.build_context()
    assert context.messages == [] and context.handover_notes == "notes"


def test_a_compaction_after_a_handover_keeps_the_notes(session: SessionManager) -> None:
    session.append_message(user("before"))
    session.append_custom_message("handover", "notes 1")
    kept = session.append_message(user("after handover"))
    session.append_compaction("summary", kept, 10)
    context = session.build_context()
    assert context.handover_notes == "notes 1"
    assert [m.text for m in context.messages[1:]] == ["after handover"]


def test_a_handover_after_a_compaction_wins(session: SessionManager) -> None:
    first = session.append_message(user("a"))
    session.append_compaction("summary", first, 10)
    session.append_custom_message("handover", "notes")
    session.append_message(user("continue"))
    context = session.build_context()
    assert context.compaction is None and _texts(session) == ["continue"]


def test_branch_summaries_and_custom_messages_join_as_user_text(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    session.append_message(assistant("b"))
    session.branch_with_summary(a, "Tried B; reverted.")
    session.append_custom_message("advisor", "Check the tests.", display=False)
    session.append_custom_message("index_context", "src/a.py: def main()")
    context = session.build_context()
    assert [m.role for m in context.messages] == ["user"] * 4
    assert context.messages[1].text == f"{BRANCH_PREFIX}Tried B; reverted.\n</summary>"
    assert [m.text for m in context.messages[2:]] == ["Check the tests.", "src/a.py: def main()"]


def test_model_and_thinking_state_come_from_the_latest_changes(session: SessionManager) -> None:
    session.append_message(user("a"))
    session.append_message(assistant("b"))  # answered by ollama/qwen3
    context = session.build_context()
    assert (context.provider, context.model, context.thinking_level) == ("ollama", "qwen3", "off")
    session.append_model_change("anthropic", "claude-sonnet-4-5")
    session.append_model_change("openai", "advisor-model", role="advisor")
    session.append_thinking_level_change("high")
    session.append_thinking_level_change("low")
    context = session.build_context()
    assert (context.provider, context.model, context.thinking_level) == ("anthropic", "claude-sonnet-4-5", "low")
    assert len(context.messages) == 2  # none of these are messages


def test_a_dangling_tool_call_gets_a_synthetic_aborted_result(session: SessionManager) -> None:
    session.append_message(user("q"))
    session.append_message(assistant("", call("c1"), call("c2", "shell", command="ls")))
    session.append_message(result("c1"))
    session.append_message(user("why did you stop?"))
    messages = session.build_context().messages
    assert conversation_problems(messages) == []
    synthetic = messages[3]
    assert isinstance(synthetic, ToolResultMessage)
    assert (synthetic.tool_call_id, synthetic.tool_name, synthetic.is_error) == ("c2", "shell", True)
    assert synthetic.text == ABORTED_RESULT
    assert messages[4].text == "why did you stop?"


def test_a_leaf_on_an_unanswered_call_is_answered_too(session: SessionManager) -> None:
    session.append_message(user("q"))
    session.append_message(assistant("", call("c1"), stop_reason="aborted"))
    messages = session.build_context().messages
    assert conversation_problems(messages) == [] and isinstance(messages[-1], ToolResultMessage)


def test_repair_turns_orphans_into_text_and_drops_empty_answers() -> None:
    repaired = repair_conversation(
        [
            result("gone", "output of a compacted call"),
            assistant("", stop_reason="aborted"),
            user("q"),
            assistant("", call("c1")),
            result("zz", "stray"),
            result("c1"),
        ]
    )
    assert conversation_problems(repaired) == []
    assert isinstance(repaired[0], UserMessage) and "output of a compacted call" in repaired[0].text
    assert [type(m).__name__ for m in repaired] == [
        "UserMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "UserMessage",
    ]
    assert "stray" in repaired[-1].text


def test_a_context_that_would_open_with_the_assistant_gets_an_opening_note(session: SessionManager) -> None:
    session.append_message(assistant("hello"))
    messages = session.build_context().messages
    assert messages[0].text == OPENING_NOTE and isinstance(messages[1], AssistantMessage)
    session.append_custom_message("handover", "notes")
    session.append_message(assistant("resuming"))
    assert session.build_context().messages[0].text == HANDOVER_OPENING


def test_valid_conversations_come_back_unchanged() -> None:
    messages = [user("q"), assistant("", call("a"), call("b")), result("b"), result("a"), assistant("done")]
    assert repair_conversation(messages) == messages


def test_context_at_an_earlier_leaf(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    session.append_message(assistant("b"))
    assert _texts(session, a) == ["a"]
