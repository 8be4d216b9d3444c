"""/undo and the tree's code question in the full app: files written by the real agent loop and tools against the
fake Ollama server, then put back with the keys."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from navtui.app.screens.main import MainScreen
from navtui.app.screens.restore import RestoreCodeScreen, UndoScreen
from navtui.app.screens.tree import TreeScreen
from navtui.checkpoints.history import checkpoint_of
from navtui.widgets.items import NoticeItem
from navtui.widgets.status_line import StatusLine
from navtui.widgets.transcript import Transcript
from tests.app.test_tree_pilot import make_app, screen_is, send, wait_for
from tests.fakes import Text, ToolCall

SIZE = (100, 32)
ORIGINAL = "def add(a, b):\n    return a + b\n"


def grace(screen: Any) -> None:
    screen._opened -= 1  # the modal ignores keys for its first 0.3 s; the test does not wait for that


async def write_turn(app: Any, pilot: Any, fake_server: Any, workspace: Path) -> None:
    # While the first walk of the workspace still runs (slow on a loaded machine), a prompt does not wait for its
    # own walk, whose checkpoint then comes after the prompt: the tree's "before the first prompt" has no code.
    await wait_for(pilot, lambda: not app.runtime.checkpoints.warming, "the first walk")
    fake_server.script(ToolCall("shell", {"command": "printf 'def add(a, b):\\n    return 0\\n' > calc.py"}))
    fake_server.script(ToolCall("write", {"path": "tests/test_calc.py", "content": "assert True\n"}))
    fake_server.script(Text("changed it"))
    await send(app, pilot, "break add")


def transcript_text(app: Any) -> str:
    items = app.screen.query_one(Transcript).items
    return "\n".join(item.text for item in items if isinstance(item, NoticeItem))


async def test_undo_shows_the_files_and_y_puts_them_back(fake_server: Any, workspace: Path) -> None:
    (workspace / "calc.py").write_text(ORIGINAL)
    app = make_app(fake_server, workspace)
    app.runtime.set_approval("yolo")
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(app, pilot, fake_server, workspace)
        await send(app, pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo dialog")
        dialog = app.screen
        assert [(line.what, line.path) for line in dialog.lines] == [("created", "tests/test_calc.py")]
        grace(dialog)
        await pilot.press("d")
        await wait_for(pilot, lambda: dialog.showing_diff, "the diff")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen) and not (workspace / "tests").exists())
        await send(app, pilot, "/undo")  # again: the turn before
        await wait_for(pilot, lambda: isinstance(app.screen, UndoScreen), "the second undo dialog")
        assert [(line.what, line.path) for line in app.screen.lines] == [("changed", "calc.py")]
        grace(app.screen)
        await pilot.press("y")
        await wait_for(pilot, lambda: (workspace / "calc.py").read_text() == ORIGINAL, "calc.py restored")
        await send(app, pilot, "/undo")
        await wait_for(pilot, lambda: "Nothing to undo" in transcript_text(app), "nothing to undo")
        notes = [e for e in app.runtime.session.entries if getattr(e, "custom_type", "") == "navtui-files-restored"]
        assert len(notes) == 2  # the model is told its files went back
        assert "calc.py" in app.runtime.agent.messages[-1].text


async def test_a_resumed_transcript_shows_where_files_were_put_back(fake_server: Any, workspace: Path) -> None:
    # Live, /undo says "Put back 1 file: ..."; the session keeps only a note for the model (not displayed), so the
    # resumed transcript showed the turn's changes as if they were still there.
    from navtui.app.session_view import transcript_items

    (workspace / "calc.py").write_text(ORIGINAL)
    app = make_app(fake_server, workspace)
    app.runtime.set_approval("yolo")
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(app, pilot, fake_server, workspace)
        await send(app, pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo dialog")
        grace(app.screen)
        await pilot.press("y")
        await wait_for(pilot, lambda: "Put back" in transcript_text(app), "the files put back")
        live = [item.text for item in app.screen.transcript.items if isinstance(item, NoticeItem)]
        resumed = [
            item.text for item in transcript_items(app.runtime.session.get_branch()) if isinstance(item, NoticeItem)
        ]
    said = "Put back 1 file: tests/test_calc.py."
    assert said in live and resumed == [said], (live, resumed)


async def test_a_hand_edit_is_marked_and_kept(fake_server: Any, workspace: Path) -> None:
    (workspace / "calc.py").write_text(ORIGINAL)
    app = make_app(fake_server, workspace)
    app.runtime.set_approval("yolo")
    async with app.run_test(size=SIZE) as pilot:
        fake_server.script(ToolCall("shell", {"command": "echo agent > calc.py && echo agent > notes.txt"}))
        fake_server.script(Text("done"))
        await send(app, pilot, "change both")
        (workspace / "calc.py").write_text("mine\n")
        await send(app, pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo dialog")
        assert app.screen.conflicts == ["calc.py"]
        grace(app.screen)
        await pilot.press("y")
        await wait_for(pilot, lambda: not (workspace / "notes.txt").exists(), "notes.txt removed")
        assert (workspace / "calc.py").read_text() == "mine\n"
        await wait_for(pilot, lambda: "Kept as you changed them: calc.py" in transcript_text(app), "the notice")


async def test_going_back_in_the_tree_offers_the_code_too(fake_server: Any, workspace: Path) -> None:
    (workspace / "calc.py").write_text(ORIGINAL)
    app = make_app(fake_server, workspace, branch_summary="never")
    app.runtime.set_approval("yolo")
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(app, pilot, fake_server, workspace)
        await pilot.press("escape", "escape")
        await screen_is(app, pilot, TreeScreen)
        await pilot.press("home", "enter")  # the first prompt: back to before it
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreCodeScreen), "the code question")
        assert sorted(line.path for line in app.screen.lines) == ["calc.py", "tests/test_calc.py"]
        await pilot.press("enter")  # conversation and code (the default)
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen) and not (workspace / "tests").exists())
        await wait_for(pilot, lambda: (workspace / "calc.py").read_text() == ORIGINAL, "calc.py restored")
        session = app.runtime.session
        assert [e.type for e in session.get_branch()] == ["model_change", "custom"]  # before the first prompt
        assert checkpoint_of(session.get_branch()[-1]).kind == "base"  # type: ignore[union-attr]


async def test_a_first_prompt_sent_during_the_first_walk_still_has_its_code(fake_server: Any, workspace: Path) -> None:
    (workspace / "calc.py").write_text(ORIGINAL)
    app = make_app(fake_server, workspace, branch_summary="never")
    app.runtime.set_approval("yolo")
    async with app.run_test(size=SIZE) as pilot:
        checkpoints = app.runtime.checkpoints
        await wait_for(pilot, lambda: not checkpoints.warming, "the first walk")
        gate = threading.Event()  # a first walk still going (a large repository), for as long as the test says
        checkpoints._warm = threading.Thread(target=gate.wait, daemon=True)
        checkpoints._warm.start()
        try:
            fake_server.script(ToolCall("shell", {"command": "printf 'def add(a, b):\\n    return 0\\n' > calc.py"}))
            fake_server.script(Text("changed it"))
            await send(app, pilot, "break add")
        finally:
            gate.set()
        types = [e.type for e in app.runtime.session.get_branch()]
        assert types[:3] == ["model_change", "message", "custom"]  # the base came after the prompt
        await pilot.press("escape", "escape")
        await screen_is(app, pilot, TreeScreen)
        await pilot.press("home", "enter")  # the first prompt: back to before it
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreCodeScreen), "the code question")
        assert [line.path for line in app.screen.lines] == ["calc.py"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: (workspace / "calc.py").read_text() == ORIGINAL, "calc.py restored")


async def test_code_only_keeps_the_conversation(fake_server: Any, workspace: Path) -> None:
    (workspace / "calc.py").write_text(ORIGINAL)
    app = make_app(fake_server, workspace, branch_summary="never")
    app.runtime.set_approval("yolo")
    async with app.run_test(size=SIZE) as pilot:
        await write_turn(app, pilot, fake_server, workspace)
        leaf_before = app.runtime.session.leaf_id
        await pilot.press("escape", "escape")
        await screen_is(app, pilot, TreeScreen)
        await pilot.press("home", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreCodeScreen), "the code question")
        await pilot.press("down", "down", "enter")  # code only
        await wait_for(pilot, lambda: (workspace / "calc.py").read_text() == ORIGINAL, "calc.py restored")
        session = app.runtime.session
        path_ids = [e.id for e in session.get_branch()]
        assert leaf_before in path_ids  # the conversation stayed; the restore is recorded after it
        assert checkpoint_of(session.get_branch()[-2]).kind == "restore"  # type: ignore[union-attr]


async def test_a_pi_session_has_nothing_to_undo(fake_server: Any, workspace: Path) -> None:
    from navtui.agent.runtime import LaunchOptions, Runtime
    from navtui.app.app import NavtuiApp

    pi_file = workspace.parent / "pi-session.jsonl"
    pi_file.write_bytes((Path(__file__).parents[1] / "session" / "fixtures" / "pi-v3.jsonl").read_bytes())
    options = LaunchOptions(cwd=workspace, provider="ollama", base_url=fake_server.url, resume=str(pi_file))
    app = NavtuiApp(Runtime.create(options), animate=False, check_provider=False, watch_themes=False)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/undo")
        await wait_for(pilot, lambda: "Nothing to undo" in transcript_text(app), "nothing to undo")
        assert not isinstance(app.screen, UndoScreen)


def git_repo(workspace: Path) -> None:
    """The workspace as a git repository with calc.py committed (the status line's git part has a state)."""
    import subprocess

    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "calc.py"], ["commit", "-q", "-m", "calc"]):
        subprocess.run(["git", *args], cwd=workspace, check=True, env={**env, "PATH": "/usr/bin:/bin"})


async def test_the_status_line_sees_the_files_undo_and_a_shell_command_changed(
    fake_server: Any, workspace: Path
) -> None:
    # The git part of the status line ("main *1 ?1") was asked for after a turn only: after /undo put calc.py
    # back it still said it was changed, and after "!touch" it did not count the new file.
    (workspace / "calc.py").write_text(ORIGINAL)
    git_repo(workspace)
    app = make_app(fake_server, workspace)
    app.runtime.set_approval("yolo")
    async with app.run_test(size=SIZE) as pilot:
        status = app.screen.query_one(StatusLine)
        await wait_for(pilot, lambda: not app.runtime.checkpoints.warming, "the first walk")
        fake_server.script(ToolCall("shell", {"command": "echo changed > calc.py"}))
        fake_server.script(Text("changed it"))
        await send(app, pilot, "change calc.py")
        await wait_for(pilot, lambda: status.data.git_unstaged == 1, "calc.py counted as changed")
        await send(app, pilot, "/undo")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoScreen), "the undo dialog")
        grace(app.screen)
        await pilot.press("y")
        await wait_for(pilot, lambda: (workspace / "calc.py").read_text() == ORIGINAL, "calc.py restored")
        await wait_for(pilot, lambda: status.data.git_unstaged == 0, "calc.py no longer counted as changed")
        assert status.data.git_branch is not None and not status.data.git_dirty
        await send(app, pilot, "!touch notes.txt")
        await wait_for(pilot, lambda: status.data.git_untracked == 1, "notes.txt counted as untracked")


async def test_diff_shows_the_working_trees_changes_since_the_last_commit(fake_server: Any, workspace: Path) -> None:
    # Codex's /diff: what changed in the repository (staged or not, and the new files), read before a commit.
    # navtui had no way to see it but asking the model, or /undo's d for the last turn only.
    from rich.text import Text as RichText

    from navtui.app.screens.text_view import TextViewScreen
    from tests.app.conftest import rendered_text

    (workspace / "calc.py").write_text(ORIGINAL)
    git_repo(workspace)
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (workspace / "new_module.py").write_text("x = 1\n")
    app = make_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/diff")
        await wait_for(pilot, lambda: isinstance(app.screen, TextViewScreen), "the diff view")
        await pilot.pause()
        body = app.screen.query_one("#text-view-body")
        shown = rendered_text(body)
        assert "-    return a + b" in shown and "+    return a - b" in shown, shown
        assert "new_module.py" in shown and "+x = 1" in shown, shown
        assert isinstance(body.content, RichText) and any(span.style for span in body.content.spans)  # coloured
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        (workspace / "calc.py").write_text(ORIGINAL)
        (workspace / "new_module.py").unlink()
        await send(app, pilot, "/diff")
        await wait_for(pilot, lambda: "No changes since the last commit" in transcript_text(app), "nothing to show")
    outside = workspace.parent / "not-a-repo"
    outside.mkdir()
    app = make_app(fake_server, outside)
    async with app.run_test(size=SIZE) as pilot:
        await send(app, pilot, "/diff")
        await wait_for(pilot, lambda: "not a git repository" in transcript_text(app), "no repository")


async def test_diff_names_a_large_new_file_instead_of_reading_it_whole(workspace: Path) -> None:
    # A data set or a log left untracked: git's diff of it from nothing was read whole into memory (60 MB of CSV:
    # 330 MB resident, 2 million lines split in the event loop), to show its first 20,000 lines.
    from navtui.app.commands.checkpoints import working_tree_diff

    (workspace / "calc.py").write_text(ORIGINAL)
    git_repo(workspace)
    (workspace / "small.py").write_text("y = 2\n")
    (workspace / "data.csv").write_text("1,row of data\n" * (1024 * 1024 // 14 + 1))  # just over 1 MB
    diff = await working_tree_diff(workspace)
    assert diff is not None and "+y = 2" in diff, diff
    assert "row of data" not in diff and "new file data.csv, 1 MB: not shown" in diff, diff[:300]
