"""The status line's facts and /context's numbers, read from an agent and its parts without a runtime."""

from __future__ import annotations

from pathlib import Path

from navtui.agent.status import context_usage, status_info
from navtui.core.messages import UserMessage
from navtui.tools.approval import ApprovalPolicy
from tests.agent.context_fixtures import build_agent, ollama_provider

MODEL = "qwen2.5-coder:7b"


async def test_context_usage_counts_messages_by_role_and_names_tools_and_context_files(
    fake_server, workspace: Path
) -> None:
    (workspace / "AGENTS.md").write_text("Answer briefly.\n")
    provider = ollama_provider(fake_server, MODEL)
    agent, _ = build_agent(provider, workspace, messages=[UserMessage(content="hello there, look at the parser")])
    usage = context_usage(workspace, agent, provider, agent.tools, mcp=None)
    assert usage.messages == {"user": 1, "assistant": 0, "toolResult": 0}
    assert usage.message_tokens["user"] > 0 and usage.message_tokens["assistant"] == 0
    assert {"read", "write"} <= set(usage.tools) and usage.system_tokens > 0
    assert usage.context_files == [str(workspace / "AGENTS.md")] and usage.mcp_tokens == {}
    await provider.aclose()


async def test_status_says_provider_approval_and_counters_without_asking_git(fake_server, workspace: Path) -> None:
    provider = ollama_provider(fake_server, MODEL)
    agent, _ = build_agent(provider, workspace)
    status = status_info(
        workspace,
        agent,
        provider,
        agent.ctx,
        ApprovalPolicy(mode="write"),
        session=None,
        mcp=None,
        handover_count=2,
        advisor_on=True,
        with_git=False,
    )
    assert (status.cwd, status.provider, status.model, status.approval) == (str(workspace), "ollama", MODEL, "write")
    assert (status.handover_count, status.advisor_on, status.session_name, status.mcp) == (2, True, None, None)
    assert (status.git_branch, status.tokens_in, status.tokens_out, status.cost) == (None, 0, 0, None)
    assert status.background_jobs == 0 and status.sandbox == ""
    await provider.aclose()
