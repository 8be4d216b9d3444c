"""The advisor: deltas in, advice out, never stalling the primary."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from navtui.agent.advisor import ADVISOR_PREFIX, Advisor, render_delta
from navtui.agent.advisor_control import AdvisorHooks
from navtui.agent.loop import SKIPPED_RESULT
from navtui.config.watchdog import expand_imports, load_watchdog_blocks
from navtui.core.events import AdvisorNote, ErrorEvent, Notice, ToolCallFinished
from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.tools.base import ToolContext, ToolRegistry
from navtui.tools.files.filestate import FileStateTracker
from navtui.tools.files.workspace import Workspace
from navtui.tools.shell.jobs import JobRegistry
from tests.agent.scripted import ScriptedProvider, calls, text
from tests.agent.test_loop import EchoTool, make_agent


def advisor_for(provider: ScriptedProvider, cwd: Path, steered: list[str], emitted: list[Any]) -> Advisor:
    ctx = ToolContext(Workspace(cwd), FileStateTracker(), JobRegistry(), cwd / "artifacts")
    return Advisor(
        provider, cwd=cwd, tools=ToolRegistry([EchoTool()]), ctx=ctx, steer=steered.append, emit=emitted.append
    )


async def drained(advisor: Advisor) -> None:
    for _ in range(200):
        if advisor.backlog == 0 and (advisor._drain_task is None or advisor._drain_task.done()):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("advisor did not drain")


def test_delta_renders_thinking_calls_results_and_skips_advisor_notes() -> None:
    call = ToolCall(id="1", name="read", arguments={"path": "a.py"})
    messages = [
        UserMessage(content="fix the bug"),
        AssistantMessage(content=[ThinkingBlock(thinking="maybe a.py"), TextBlock(text="Reading."), call]),
        ToolResultMessage.of(call, "x = 1"),
        UserMessage(content=f"{ADVISOR_PREFIX}\n- old note"),
    ]
    delta = render_delta(messages)
    assert "## User\nfix the bug" in delta and "Thinking: maybe a.py" in delta
    assert 'Tool call `read`: {"path": "a.py"}' in delta and "x = 1" in delta
    assert "old note" not in delta


def test_watchdog_files_load_farthest_first_with_imports(tmp_path: Path, navtui_home: Path) -> None:
    repo = tmp_path / "repo"
    sub = repo / "sub"
    (sub / ".navtui").mkdir(parents=True)
    (repo / ".git").mkdir()
    (navtui_home / "WATCHDOG.md").write_text("user watch")
    (repo / "WATCHDOG.md").write_text("repo watch @rules.md and `@literal.md`")
    (repo / "rules.md").write_text("never touch prod")
    (sub / ".navtui" / "WATCHDOG.md").write_text("sub watch")
    blocks = load_watchdog_blocks(sub)
    assert [b.split("<attention>\n")[1].split("\n</attention>")[0] for b in blocks] == [
        "user watch",
        "repo watch never touch prod and `@literal.md`",
        "sub watch",
    ]
    assert all(b.startswith("Especially pay attention to:\n<attention>") for b in blocks)


def test_watchdog_import_cycles_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("A @b.md")
    (tmp_path / "b.md").write_text("B @a.md")
    expanded = expand_imports("top @a.md", tmp_path, frozenset())
    assert expanded == "top A B @a.md"


def test_a_repositorys_watchdog_imports_nothing_from_outside_it(tmp_path: Path, navtui_home: Path, monkeypatch) -> None:
    """A repository's WATCHDOG.md (the advisor reads it, no tool call, no approval) may import its own files only:
    @~/.netrc, @/abs/path, @../.. and a link out of the repository stay text, as does a WATCHDOG.md that is itself
    such a link. The user's own ~/.navtui/WATCHDOG.md imports what it likes."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (home / ".netrc").write_text("machine example.com password hunter2-home")
    outside = tmp_path / "secret.txt"
    outside.write_text("hunter2-outside")
    repo = tmp_path / "repo"
    sub = repo / "sub"
    (sub / ".navtui").mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / "rules.md").write_text("never touch prod")
    (repo / "link.md").symlink_to(outside)
    (repo / "WATCHDOG.md").write_text(f"watch @rules.md @~/.netrc @{outside} @../secret.txt @link.md")
    (sub / "WATCHDOG.md").symlink_to(outside)  # the file itself links out
    (sub / ".navtui" / "WATCHDOG.md").write_text("sub watch @../../rules.md")  # the repository's own file: fine
    (navtui_home / "WATCHDOG.md").write_text(f"mine @{outside}")
    blocks = load_watchdog_blocks(sub)
    bodies = [b.split("<attention>\n")[1].split("\n</attention>")[0] for b in blocks]
    assert bodies == [
        "mine hunter2-outside",
        f"watch never touch prod @~/.netrc @{outside} @../secret.txt @link.md",
        "sub watch never touch prod",
    ]


def test_a_watchdog_import_of_a_named_pipe_is_left_as_text(tmp_path: Path) -> None:
    import os
    import threading

    (tmp_path / ".git").mkdir()
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "WATCHDOG.md").write_text("watch @pipe.md")
    found: list[list[str]] = []
    worker = threading.Thread(target=lambda: found.append(load_watchdog_blocks(tmp_path)), daemon=True)
    worker.start()
    worker.join(60)  # a hang guard, never reached by a passing run
    if worker.is_alive():  # let the blocked open return, so that the thread ends
        with open(tmp_path / "pipe.md", "w"):
            pass
        worker.join(60)
    assert found == [["Especially pay attention to:\n<attention>\nwatch @pipe.md\n</attention>"]]


async def test_turn_delta_and_watchdog_reach_the_advisor(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "WATCHDOG.md").write_text("Watch for edits to migrations.")
    advisor_model = ScriptedProvider(text("ok"))
    advisor = advisor_for(advisor_model, tmp_path, [], [])
    primary_messages = [UserMessage(content="add a column"), AssistantMessage(content=[TextBlock(text="Done.")])]
    advisor.on_turn_end(primary_messages)
    await drained(advisor)
    request = advisor_model.requests[0]
    assert "Watch for edits to migrations." in request.system
    assert "add a column" in request.messages[0].text and "Done." in request.messages[0].text
    assert {s.name for s in request.tools} == {"advise"}  # echo is not read/grep/find: filtered out
    # The next update carries only what is new.
    primary_messages.append(UserMessage(content="now tests"))
    advisor.on_turn_end(primary_messages)
    await drained(advisor)
    assert "now tests" in advisor_model.requests[1].messages[-1].text
    assert "add a column" not in advisor_model.requests[1].messages[-1].text


async def test_nit_is_batched_into_the_primary_next_request(tmp_path: Path) -> None:
    advisor_model = ScriptedProvider(calls(("advise", {"note": "name the constant"})), text("ok"))
    advisor = advisor_for(advisor_model, tmp_path, [], [])
    primary = ScriptedProvider(calls(("echo", {"value": "1"})), text("done"))
    agent = make_agent(primary, tmp_path, EchoTool(), hooks=AdvisorHooks(lambda: advisor))
    events = []
    async for event in agent.run("go"):
        events.append(event)
        if event.type == "turn_finished":
            advisor.on_turn_end(agent.messages)
            await drained(advisor)
    second = primary.requests[1].messages
    assert second[-1].text == f"{ADVISOR_PREFIX}\n- name the constant"
    assert [e.note for e in events if isinstance(e, AdvisorNote)] == ["name the constant"]


async def test_concern_steers_and_skips_remaining_tools(tmp_path: Path) -> None:
    steered: list[str] = []
    emitted: list[Any] = []
    advisor_model = ScriptedProvider(calls(("advise", {"note": "wrong file", "severity": "concern"})), text("ok"))
    advisor = advisor_for(advisor_model, tmp_path, steered, emitted)
    primary = ScriptedProvider(calls(("echo", {"value": "1"}), ("echo", {"value": "2"})), text("redirected"))
    agent = make_agent(primary, tmp_path, EchoTool())
    advisor._steer = agent.steer
    async for event in agent.run("go"):
        if isinstance(event, ToolCallFinished) and event.call.id == "c0":
            advisor.on_turn_end(agent.messages)
            await drained(advisor)
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert results[1].text == SKIPPED_RESULT
    assert primary.requests[-1].messages[-1].text == f"{ADVISOR_PREFIX}\n- [concern] wrong file"
    assert emitted == [AdvisorNote(note="wrong file", severity="concern")]


async def test_three_failures_drop_the_backlog_with_a_warning(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr("navtui.agent.advisor.RETRY_DELAY", 0.01)
    failing = [ErrorEvent(message="advisor down", kind="connection")]
    emitted: list[Any] = []
    advisor_model = ScriptedProvider(failing, failing, failing, text("ok"))
    advisor = advisor_for(advisor_model, tmp_path, [], emitted)
    advisor.on_turn_end([UserMessage(content="a")])
    await drained(advisor)
    assert len(advisor_model.requests) == 3
    assert advisor.backlog == 0 and advisor.agent.messages == []  # failed exchanges do not pile up
    assert any(isinstance(e, Notice) and "dropped its backlog" in e.text for e in emitted)
    advisor.on_turn_end([UserMessage(content="a"), UserMessage(content="b")])
    await drained(advisor)
    assert len(advisor_model.requests) == 4  # it recovers on the next update


async def test_sync_backlog_waits_but_is_capped(tmp_path: Path) -> None:
    from tests.agent.scripted import Pause

    advisor_model = ScriptedProvider([Pause(5), *text("ok")])
    advisor = advisor_for(advisor_model, tmp_path, [], [])
    advisor.on_turn_end([UserMessage(content="a")])
    loop = asyncio.get_running_loop()
    start = loop.time()
    await advisor.wait_for_catch_up(1, cap=0.2)
    assert advisor.backlog == 1  # still behind: the primary went on after the cap
    assert loop.time() - start < 4
    advisor.reset()
    assert advisor.backlog == 0 and advisor.cursor == 0


async def test_status_and_dump_report_the_advisor_itself(tmp_path: Path) -> None:
    from navtui.core.events import StopEvent, TextDelta, UsageEvent
    from navtui.core.messages import Usage

    advisor_model = ScriptedProvider(
        [TextDelta(text="ok"), UsageEvent(usage=Usage(input=321, output=7)), StopEvent(reason="stop")]
    )
    advisor = advisor_for(advisor_model, tmp_path, [], [])
    assert advisor.dump() == "Advisor has no history yet."
    advisor.on_turn_end([UserMessage(content="hello")])
    await drained(advisor)
    status = advisor.status_text()
    assert "input 321, output 7" in status and "scripted/scripted-model" in status
    assert "hello" in advisor.dump() and "# System prompt" in advisor.dump(raw=True)
