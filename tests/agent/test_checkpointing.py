"""Checkpoints taken by a real run: the runtime's write, edit and shell tools against the fake server."""

from __future__ import annotations

from pathlib import Path

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.checkpoints.history import checkpoint_of
from navtui.core.events import Notice, TurnFinished
from navtui.core.messages import UserMessage
from tests.fakes import Text, ToolCall

MODEL = "qwen2.5-coder:7b"


def make_runtime(workspace: Path, url: str) -> Runtime:
    return Runtime.create(LaunchOptions(cwd=workspace, provider="ollama", base_url=url, model=MODEL, approval="yolo"))


async def run(rt: Runtime, prompt: str) -> list[object]:
    return [event async for event in rt.run(prompt)]


async def test_a_turn_that_wrote_files_has_a_checkpoint_and_undo_puts_them_back(fake_server, workspace: Path) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    rt = make_runtime(workspace, fake_server.url)
    fake_server.script(ToolCall("read", {"path": "calc.py"}))
    fake_server.script(ToolCall("write", {"path": "calc.py", "content": "def add(a, b):\n    return a - b\n"}))
    fake_server.script(ToolCall("shell", {"command": "mkdir -p out/deep && echo built > out/deep/log.txt && rm -f x"}))
    fake_server.script(Text("done"))
    events = await run(rt, "break it")
    turns = [e for e in events if isinstance(e, TurnFinished)]
    assert [t.checkpoint is not None for t in turns] == [False, True, True, False]  # reading changes nothing
    session = rt.session
    assert session is not None
    kinds = [(cp.kind, cp.entry_id) for e in session.entries if (cp := checkpoint_of(e)) is not None]
    assert [k for k, _ in kinds] == ["base", "turn", "turn"]
    assert [i for _, i in kinds[1:]] == [t.checkpoint for t in turns[1:3]]
    assert rt.checkpoints is not None
    checkpointer = rt.checkpoints.checkpointer
    proposal = checkpointer.propose_undo(session.get_branch())
    assert proposal is not None and [c.path for c in proposal.plan.files] == ["out/deep/log.txt"]
    checkpointer.apply(session, proposal)
    assert not (workspace / "out").exists()
    proposal = checkpointer.propose_undo(session.get_branch())
    assert proposal is not None and [(c.path, c.kind) for c in proposal.plan.files] == [("calc.py", "changed")]
    checkpointer.apply(session, proposal)
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    await rt.aclose()


async def test_a_file_too_large_to_keep_is_said_once(fake_server, workspace: Path, navtui_home: Path) -> None:
    settings = navtui_home / "settings.json"
    settings.write_text('{"checkpoints": {"max_file_kb": 1}}')
    rt = make_runtime(workspace, fake_server.url)
    fake_server.script(ToolCall("write", {"path": "big.txt", "content": "x" * 5000}))
    fake_server.script(Text("done"))
    notices = [e.text for e in await run(rt, "write a big file") if isinstance(e, Notice)]
    assert [n for n in notices if "big.txt" in n] == [
        "Not kept in checkpoints (larger than 1 KB): big.txt (4.9 KB); /undo cannot put them back "
        "(checkpoints.max_file_kb)."
    ]
    fake_server.script(ToolCall("write", {"path": "small.txt", "content": "y"}))
    fake_server.script(Text("done"))
    assert not [e for e in await run(rt, "again") if isinstance(e, Notice) and "big.txt" in e.text]
    await rt.aclose()


async def test_while_the_first_walk_runs_the_run_starts_and_tools_wait_for_it(workspace: Path) -> None:
    import threading

    from navtui.agent.checkpointing import TurnCheckpoints
    from navtui.config.settings import CheckpointSettings
    from navtui.core.messages import ToolCall as Call
    from navtui.session.manager import SessionManager

    (workspace / "a.py").write_text("x = 1\n")
    checkpoints = TurnCheckpoints(workspace, CheckpointSettings())
    still_walking = threading.Event()
    checkpoints._warm = threading.Thread(target=still_walking.wait)  # a first walk of a large repository
    checkpoints._warm.start()
    session = SessionManager.create(workspace)
    await checkpoints.record_before_run(session)  # does not wait
    session.append_message(UserMessage(content="go"))
    await checkpoints.intercept_tool(None, Call(id="c1", name="write", arguments={}))  # type: ignore[arg-type]
    kinds = [cp.kind for e in session.entries if (cp := checkpoint_of(e)) is not None]
    assert kinds == ["base"]  # recorded before the tool runs
    still_walking.set()
    checkpoints._warm.join()
    assert await checkpoints.after_run() == []
    checkpoints.close()
