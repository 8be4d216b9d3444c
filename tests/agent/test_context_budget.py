"""The context budget: window limits, calibration by usage, pruning and the emergency trim."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.agent.budget import ContextLimits, estimate_message_tokens
from navtui.agent.pruning import is_pruned, placeholder, prune_tool_outputs, trim_to_fit
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, Usage, UserMessage
from tests.agent.context_fixtures import build_agent, collect
from tests.agent.scripted import ScriptedProvider, calls, text


@pytest.mark.parametrize(
    ("window", "reserve", "keep", "threshold"),
    [
        (200_000, 30_000, 20_000, 170_000),  # omp: 15% of the window
        (100_000, 16_384, 20_000, 83_616),  # omp: the 16384 floor
        (65_536, 16_384, 13_107, 49_152),  # the two rules meet at 64k
        (32_768, 8_192, 6_553, 24_576),
        (8_192, 2_048, 1_638, 6_144),
        (4_096, 1_024, 819, 3_072),
    ],
)
def test_limits_scale_with_the_window(window: int, reserve: int, keep: int, threshold: int) -> None:
    limits = ContextLimits.for_window(window)
    assert (limits.reserve, limits.keep_recent, limits.threshold) == (reserve, keep, threshold)
    assert limits.threshold < limits.hard_limit < window
    assert limits.summary_tokens <= limits.reserve


def test_settings_override_reserve_and_keep() -> None:
    limits = ContextLimits.for_window(32_768, reserve_tokens=4000, keep_recent_tokens=3000)
    assert (limits.reserve, limits.keep_recent) == (4000, 3000)
    assert ContextLimits.for_window(8192, reserve_tokens=100_000).reserve == 4096  # never more than half


async def test_usage_calibrates_the_estimate(tmp_path: Path) -> None:
    provider = ScriptedProvider(text("hi", usage=(5000, 10)))
    agent, _ = build_agent(provider, tmp_path)
    raw = agent.budget.estimate(agent)
    await collect(agent, "hello there")
    assert agent.budget.estimate(agent) == 5010  # the server's count, exactly
    assert agent.budget.ratio > 1.0
    agent.budget.reset()
    assert agent.budget.estimate(agent) > raw * 2  # the learnt ratio applies to estimates after a reset


async def test_a_cache_hit_count_is_not_taken_for_the_prompt_size(tmp_path: Path) -> None:
    agent, _ = build_agent(ScriptedProvider(), tmp_path)
    agent.messages.append(UserMessage(content="x" * 40000))
    agent.messages.append(AssistantMessage(content=[TextBlock(text="ok")]))
    before = agent.budget.estimate(agent)
    agent.budget.observe(Usage(input=12, output=3), agent)  # Ollama counting only the uncached tail
    assert agent.budget.estimate(agent) == before and agent.budget.ratio == 1.0


def _history(results: int, size: int) -> list[object]:
    messages: list[object] = [UserMessage(content="task")]
    for index in range(results):
        call = ToolCall(id=f"c{index}", name="read", arguments={"path": f"f{index}"})
        messages += [AssistantMessage(content=[call]), ToolResultMessage.of(call, f"{index}:" + "o" * size)]
    return messages


def test_pruning_blanks_the_oldest_outputs_and_protects_the_newest() -> None:
    messages = _history(6, 2000)
    result = prune_tool_outputs(messages, protect_tokens=1000, min_savings=100)
    results = [m for m in result.messages if isinstance(m, ToolResultMessage)]
    assert [is_pruned(m) for m in results] == [True, True, True, True, False, False]
    assert results[0].text == placeholder(501) and results[0].tool_call_id == "c0"
    assert result.results == 4 and result.tokens_saved > 1800
    assert [orig.tool_call_id for orig, _ in result.replaced] == ["c3", "c2", "c1", "c0"]
    assert not is_pruned(messages[2])  # the originals (what the session holds) are untouched
    again = prune_tool_outputs(result.messages, protect_tokens=1000, min_savings=100)
    assert again.results == 0


def test_pruning_waits_for_worthwhile_savings_and_skips_small_outputs() -> None:
    assert prune_tool_outputs(_history(6, 2000), protect_tokens=1000, min_savings=50_000).results == 0
    assert prune_tool_outputs(_history(6, 100), protect_tokens=0, min_savings=0).results == 0


def test_trim_to_fit_shrinks_oldest_first_and_keeps_the_newest() -> None:
    messages = [
        UserMessage(content="a" * 40000),
        AssistantMessage(content=[ToolCall(id="w", name="write", arguments={"path": "x", "content": "c" * 40000})]),
        ToolResultMessage.of(ToolCall(id="w", name="write"), "done"),
        UserMessage(content="b" * 4000),
    ]
    before = sum(estimate_message_tokens(m) for m in messages)
    result = trim_to_fit(messages, 15000)
    after = sum(estimate_message_tokens(m) for m in result.messages)
    assert before - after >= 15000
    assert "tokens trimmed to fit the context window" in result.messages[0].text
    assert result.messages[3] is messages[3]
    assert result.messages[0].text.startswith("aaa") and result.messages[0].text.endswith("aaa")


async def test_pruning_is_visible_and_happens_before_the_request(tmp_path: Path) -> None:
    replies = [calls(("read", {"path": f"f{i}"}), prefix=f"c{i}_") for i in range(8)]
    provider = ScriptedProvider(*replies, text("done"))
    agent, _ = build_agent(provider, tmp_path, read_size=4000)
    agent.budget.window = 8192
    events = await collect(agent, "read")
    pruned = [e for e in events if e.type == "context_pruned"]
    assert pruned and all(p.tokens_saved > 0 for p in pruned)
    index = events.index(pruned[0])
    assert events[index + 1].type == "turn_started"  # it ran right before a model request
    last = provider.requests[-1].messages
    assert any(isinstance(m, ToolResultMessage) and is_pruned(m) for m in last)
    assert not is_pruned(last[-1])  # the newest output is protected
    assert not any(e.type == "compaction_started" for e in events)


async def test_unknown_window_means_no_maintenance(tmp_path: Path) -> None:
    provider = ScriptedProvider(calls(("read", {"path": "a"})), text("done"))
    agent, _ = build_agent(provider, tmp_path, read_size=100000)
    events = await collect(agent, "read")
    assert not any(e.type in ("context_pruned", "compaction_started") for e in events)


async def test_a_window_the_system_prompt_fills_stops_the_run_with_what_to_change(tmp_path: Path) -> None:
    """Seen: 1,831 prompt tokens in a 2k window were sent anyway, with exit 0. Now nothing is sent."""
    from tests.agent.context_fixtures import settings_with

    replies = [calls(("read", {"path": f"f{i}"}), prefix=f"c{i}_") for i in range(4)]
    provider = ScriptedProvider(*replies, text("done"))
    agent, _ = build_agent(provider, tmp_path, settings=settings_with(handover={"enabled": True}), read_size=50)
    agent.system_prompt = "rules " * 900  # ~1350 tokens in a 1024-token window
    agent.budget.window = 1024
    events = await collect(agent, "go")
    assert not any(e.type in ("handover", "compaction_started") for e in events)
    (error,) = [e for e in events if e.type == "error"]
    assert "1024" in error.message and "system prompt and tools" in error.message
    assert "ctx-size" in (error.hint or "") and "providers.context_window" in (error.hint or "")
    assert provider.requests == [] and events[-1].stop_reason == "error"


def test_a_result_the_model_has_not_seen_is_never_blanked_only_cut_at_a_line() -> None:
    """Seen with the 1.5B at 4k: a 300-line read was blanked before the model saw it; it then overwrote the file."""
    call = ToolCall(id="r1", name="read", arguments={"path": "config.py"})
    lines = "\n".join(f"{n:>6}\tOPTION_{n:03d} = {n * 7 % 101}" for n in range(1, 301))
    messages = [UserMessage(content="task"), AssistantMessage(content=[call]), ToolResultMessage.of(call, lines)]
    assert prune_tool_outputs(messages, protect_tokens=0, min_savings=0).results == 0
    trimmed = trim_to_fit(messages, 1000)
    text = trimmed.messages[-1].text
    kept = text.splitlines()[:-1]
    assert kept == lines.splitlines()[: len(kept)] and 20 < len(kept) < 300  # whole lines from the top
    assert text.splitlines()[-1].startswith(f"[cut to fit the model's context window after line {len(kept)}:")
    assert f"offset={len(kept) + 1}" in text and "do not write the whole file" in text
