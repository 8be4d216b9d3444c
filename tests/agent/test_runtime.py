"""The runtime: one session's provider, tools, session file and agent, driven against the fake server."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.app.commands.advisor import advisor_reply
from navtui.app.commands.builtin import context_report
from navtui.core.errors import NavtuiError
from navtui.core.events import AdvisorNote, RunFinished
from tests.agent.history import history_is_valid
from tests.fakes import Text, ToolCall

MODEL = "qwen2.5-coder:7b"


def make_runtime(workspace: Path, url: str, **kwargs: object) -> Runtime:
    options = LaunchOptions(cwd=workspace, provider="ollama", base_url=url, model=MODEL, **kwargs)  # type: ignore[arg-type]
    return Runtime.create(options)


async def run(rt: Runtime, prompt: str | None) -> list[object]:
    return [event async for event in rt.run(prompt)]


async def test_switch_model_keeps_history_and_the_server_of_the_same_kind(fake_server, workspace: Path) -> None:
    rt = make_runtime(workspace, fake_server.url)
    fake_server.script(Text("first"))
    await run(rt, "hello")
    await rt.switch_model("llama3.2")
    assert rt.provider.name == "ollama" and rt.provider.base_url == fake_server.url
    fake_server.script(Text("second"))
    await run(rt, "again")
    request = fake_server.chat_requests[-1].json
    assert request["model"] == "llama3.2"
    assert [m["content"] for m in request["messages"][1:]] == ["hello", "first", "again"]
    await rt.switch_model("claude-test-model")
    assert rt.provider.name == "anthropic" and rt.provider.base_url != fake_server.url
    changes = [e.resolved for e in rt.session.entries if e.type == "model_change"]  # type: ignore[union-attr]
    assert changes == [("ollama", MODEL), ("ollama", "llama3.2"), ("anthropic", "claude-test-model")]
    await rt.aclose()


def open_descriptors_of(path: Path) -> list[str]:
    fds = Path("/proc/self/fd")
    found = []
    for fd in fds.iterdir():
        try:
            if Path(fd.readlink()) == path:
                found.append(fd.name)
        except OSError:
            continue  # closed meanwhile (the listing's own descriptor)
    return found


async def test_a_closed_runtime_leaves_its_session_file_closed(fake_server, workspace: Path) -> None:
    # Runtime.aclose synced the session but kept its file open: a process that runs several runtimes (a test
    # suite held ~350 session files open by its end) leaked one descriptor each.
    rt = make_runtime(workspace, fake_server.url)
    fake_server.script(Text("a"))
    await run(rt, "one")
    path = rt.session.path.resolve()
    assert open_descriptors_of(path)  # written to, so open
    await rt.aclose()
    assert open_descriptors_of(path) == []
    assert b'"one"' in path.read_bytes() and b'"a"' in path.read_bytes()


async def test_clear_starts_a_new_root_and_new_starts_a_new_file(fake_server, workspace: Path) -> None:
    rt = make_runtime(workspace, fake_server.url)
    fake_server.script(Text("a"))
    await run(rt, "one")
    first_path = rt.session.path
    rt.clear()
    fake_server.script(Text("b"))
    await run(rt, "two")
    assert [m["content"] for m in fake_server.chat_requests[-1].json["messages"][1:]] == ["two"]
    assert rt.session.path == first_path
    rt.new_session()
    assert rt.session.path != first_path and rt.agent.messages == []
    await rt.aclose()


async def test_status_and_context_report(fake_server, workspace: Path) -> None:
    fake_server.set_model(MODEL, context_length=8192)
    rt = make_runtime(workspace, fake_server.url, approval="write")
    assert (await rt.check_provider()).ok
    fake_server.script(ToolCall("ls", {"path": "."}))
    fake_server.script(Text("empty dir"))
    events = await run(rt, "what is here")
    assert isinstance(events[-1], RunFinished)
    status = rt.status(with_git=False)
    assert status.model == MODEL and status.provider == "ollama" and status.context_window == 8192
    assert status.approval == "write" and status.tokens_out > 0 and status.context_tokens > 0
    report = context_report(rt.context_usage())
    assert "window: 8192" in report and "tool results 1" in report
    assert rt.last_answer() == "empty dir"
    assert history_is_valid(rt.agent.messages)
    with pytest.raises(NavtuiError, match="Unknown approval mode"):
        rt.set_approval("maybe")
    await rt.aclose()


async def test_check_provider_explains_a_missing_model(fake_server, workspace: Path) -> None:
    fake_server.set_model("other-model")
    rt = make_runtime(workspace, fake_server.url)
    status = await rt.check_provider()
    assert not status.ok and status.hint == "/models pull qwen2.5-coder:7b downloads it"
    await rt.aclose()


async def test_advisor_command_through_the_runtime(fake_server, workspace: Path, navtui_home: Path) -> None:
    rt = make_runtime(workspace, fake_server.url)
    message = await advisor_reply(rt, "on")
    assert "no model is assigned" in message and not rt.advisor_on
    assert "enabled (ollama:advisor-model)" in await advisor_reply(rt, "on advisor-model")
    (workspace / "WATCHDOG.md").write_text("Watch the migrations.")
    rt.advisor.system_prompt = rt.advisor._system_prompt()
    rt.advisor.agent.system_prompt = rt.advisor.system_prompt
    fake_server.script(ToolCall("advise", {"note": "add a test", "severity": "nit"}), model="advisor-model")
    fake_server.script(Text("ok"), model="advisor-model")
    fake_server.script(Text("primary done"), model=MODEL)
    await run(rt, "change the schema")
    for _ in range(200):
        if rt.advisor.backlog == 0 and rt.advisor.nits:
            break
        import asyncio

        await asyncio.sleep(0.01)
    advisor_requests = [r for r in fake_server.chat_requests if r.model == "advisor-model"]
    assert "change the schema" in advisor_requests[0].json["messages"][-1]["content"]
    assert "Watch the migrations." in advisor_requests[0].json["messages"][0]["content"]
    fake_server.script(Text("noted"), model=MODEL)
    events = await run(rt, "next")
    assert any(isinstance(e, AdvisorNote) and e.note == "add a test" for e in events)
    primary = [r for r in fake_server.chat_requests if r.model == MODEL][-1].json["messages"]
    assert any("Advisor (a senior reviewer" in m["content"] and "add a test" in m["content"] for m in primary)
    status = await advisor_reply(rt, "status")
    assert "Advisor is enabled (ollama/advisor-model)" in status and "Spend: input" in status
    assert "change the schema" in await advisor_reply(rt, "dump")
    assert await advisor_reply(rt, "off") == "Advisor disabled."
    assert '"enabled": false' in (navtui_home / "settings.json").read_text()
    await rt.aclose()


async def test_missing_api_key_opens_and_explains(workspace: Path) -> None:
    from navtui.core.events import AgentError

    rt = Runtime.create(LaunchOptions(cwd=workspace, model="claude-test-model"))
    assert rt.provider.name == "anthropic"
    status = await rt.check_provider()
    assert not status.ok and "No Anthropic API key" in status.message and "ANTHROPIC_API_KEY" in (status.hint or "")
    events = await run(rt, "hi")
    errors = [e for e in events if isinstance(e, AgentError)]
    assert errors and "No Anthropic API key" in errors[0].message
    await rt.aclose()


async def test_approval_mode_is_one_policy_for_agent_and_tools(fake_server, workspace: Path) -> None:
    outside = workspace.parent / "outside.txt"
    outside.write_text("secret plans")
    rt = make_runtime(workspace, fake_server.url)
    assert rt.ctx.approval is rt.policy is rt.agent.policy
    fake_server.script(ToolCall("read", {"path": str(outside)}))
    fake_server.script(Text("ok"))
    await run(rt, "read it")  # ask mode, no prompt possible: refused, and the reason names the real cause
    refusal = fake_server.chat_requests[1].json["messages"][-1]["content"]
    assert "outside the workspace" in refusal and "secret plans" not in refusal
    rt.set_approval("yolo")
    assert rt.ctx.approval.mode == "yolo"
    fake_server.script(ToolCall("read", {"path": str(outside)}))
    fake_server.script(Text("ok"))
    await run(rt, "read it now")
    assert "secret plans" in fake_server.chat_requests[-1].json["messages"][-1]["content"]
    await rt.aclose()
