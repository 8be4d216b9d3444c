"""Unexpected stop: announced-but-not-done turns are nudged (at most 3 times), real answers are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.agent.unexpected_stop import MAX_NUDGES, StopWatch, classify, model_says_unfinished
from navtui.core.events import ErrorEvent, StopEvent, TextDelta
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall
from tests.agent.scripted import ScriptedProvider, calls, text

NUDGE = [
    "I'll now edit the config file.",
    "Let me run the tests to confirm the fix.",
    "I found the bug in `parser.py`. Next, I will update the tokenizer.",
    "Now I'll read `src/main.py` to understand the entry point.",
    "The first step is done.\n\nLet me check the remaining call sites:",
    "I'm going to refactor the helper into its own module.",
    "Okay, the import is fixed. Now let's run the full test suite.",
    "I need to look at the failing test first.",
    "First, I'll search for every use of `load_config`.",
    "Let me take a look at the logs...",
    "I\u2019ll apply the same change to the other two handlers.",
    "Time to run `pytest -x` again.",
    "Good, that compiles. I will now write the unit tests for it.",
]
ANSWER = [
    "I've completed the task: the parser now handles empty input and all 42 tests pass.",
    "Done. The bug was an off-by-one error in `slice_range`; I fixed it and added a regression test.",
    "Should I also update the documentation?",
    "Would you like me to run the benchmarks as well?",
    "Let me know if you want any further changes.",
    "The function returns `None` when the key is missing, so the caller must check it.",
    "All tests pass and the linter is clean.",
    "If you'd like, I can add type hints to the rest of the module.",
    "Here is the fixed function:\n\n```python\ndef add(a, b):\n    return a + b\n```",
    "You can run the tests with `pytest -q`.",
    "Summary of changes:\n- renamed `foo` to `bar`\n- updated the two call sites",
    "This change is going to make startup faster.",
    "I'll wait for your go-ahead before deleting the old files.",
    "The answer is 42.",
]


@pytest.mark.parametrize("final", NUDGE)
def test_announced_work_is_a_candidate(final: str) -> None:
    assert classify(AssistantMessage(content=[TextBlock(text=final)])) == "announced"


@pytest.mark.parametrize("final", ANSWER)
def test_real_answers_are_not_nudged(final: str) -> None:
    assert classify(AssistantMessage(content=[TextBlock(text=final)])) is None


def test_table_is_big_enough() -> None:
    assert len(NUDGE) + len(ANSWER) >= 20


def test_truncated_empty_and_tool_turns() -> None:
    cut = AssistantMessage(content=[TextBlock(text="Here is the full list of")], stop_reason="length")
    assert classify(cut) == "truncated"
    assert classify(AssistantMessage(content=[])) == "empty"
    with_call = AssistantMessage(
        content=[TextBlock(text="I'll read it."), ToolCall(id="1", name="read", arguments={"path": "a"})],
        stop_reason="tool_use",
    )
    assert classify(with_call) is None
    assert classify(AssistantMessage(content=[TextBlock(text="I'll fix it")], stop_reason="error")) is None
    assert classify(AssistantMessage(content=[TextBlock(text="I'll fix it")], stop_reason="aborted")) is None


def test_an_answer_cut_off_in_a_loop_is_not_asked_to_go_on() -> None:
    # SmolLM2-135M on the eval's explain task, cut off at 1,024 tokens three times over (the run timed out).
    said = "The function slugify function is only defined in the `text.py` file. "
    looping = AssistantMessage(content=[TextBlock(text="Your code is not correct. " + said * 12)], stop_reason="length")
    assert classify(looping) is None
    long_list = "\n".join(f"- item {n}: a different line of the list" for n in range(60))
    assert classify(AssistantMessage(content=[TextBlock(text=long_list)], stop_reason="length")) == "truncated"


async def test_at_most_three_nudges_then_a_reset_by_progress() -> None:
    watch = StopWatch()
    announcing = AssistantMessage(content=[TextBlock(text="Let me run the tests.")])
    nudges = [await watch.check(announcing) for _ in range(MAX_NUDGES + 1)]
    assert [n.message.endswith(f"Attempt {i}/3") for i, n in enumerate(nudges[:3], 1)] == [True] * 3
    assert "Continue now." in nudges[0].message and "1/3" in nudges[0].notice
    assert nudges[3] is None
    watch.reset()
    again = await watch.check(announcing)
    assert again is not None and again.message.endswith("Attempt 1/3")
    assert await watch.check(AssistantMessage(content=[TextBlock(text="All done.")])) is None
    assert watch.attempts == 0


async def test_off_never_nudges() -> None:
    assert await StopWatch("off").check(AssistantMessage(content=[])) is None


async def test_model_check_decides_what_the_heuristic_lets_through() -> None:
    unsure = AssistantMessage(content=[TextBlock(text="Proceeding with the migration of the schema.")])
    assert classify(unsure) is None
    yes = ScriptedProvider(text("YES"))
    nudge = await StopWatch("model").check(unsure, yes)
    assert nudge is not None and "Attempt 1/3" in nudge.message
    assert yes.requests[0].max_tokens == 16 and not yes.requests[0].tools
    assert "Proceeding with the migration" in yes.requests[0].messages[0].text
    assert await StopWatch("model").check(unsure, ScriptedProvider(text("No."))) is None
    failing = ScriptedProvider([ErrorEvent(message="boom"), StopEvent(reason="error")])
    assert await model_says_unfinished(failing, "x") is None
    assert await model_says_unfinished(ScriptedProvider([TextDelta(text="maybe")]), "x") is None


async def test_the_loop_nudges_visibly_and_gives_up_after_three(tmp_path: Path) -> None:
    from tests.agent.context_fixtures import build_agent, collect

    provider = ScriptedProvider(
        calls(("read", {"path": "a.py"})),
        text("I'll now edit a.py."),
        text("Let me edit it."),
        text("I will now edit the file."),
        text("I'm going to edit it now."),
    )
    agent, _ = build_agent(provider, tmp_path)
    events = await collect(agent, "fix a.py")
    notices = [e.text for e in events if e.type == "notice"]
    nudges = [e.text for e in events if e.type == "user_message" and e.kind == "nudge"]
    assert len(nudges) == 3 and [n[-3:] for n in nudges] == ["1/3", "2/3", "3/3"]
    assert len(notices) == 3
    assert len(provider.requests) == 5
    assert events[-1].type == "run_finished" and events[-1].stop_reason == "stop"
