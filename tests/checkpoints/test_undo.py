"""Undo: the files a turn changed go back byte for byte; hand edits since are named and kept unless overwritten."""

from __future__ import annotations

import os
from pathlib import Path

from navtui.checkpoints.history import checkpoint_of
from navtui.checkpoints.service import Checkpointer
from navtui.session.manager import SessionManager
from tests.checkpoints.conftest import state
from tests.session.helpers import assistant, call, result, user


def turn(session: SessionManager, checkpointer: Checkpointer, change: object) -> str | None:
    """One agent turn that calls a tool: ``change()`` is what the tool did to the files."""
    session.append_message(user("do it"))
    checkpointer.record_base(session)
    tool_call = call(f"c{len(session.entries)}", "shell", command="...")
    session.append_message(assistant("", tool_call))
    change()  # type: ignore[operator]
    session.append_message(result(tool_call.id, name="shell"))
    return checkpointer.record_turn(session)


def undo(session: SessionManager, checkpointer: Checkpointer, overwrite: set[str] | None = None) -> list[str]:
    proposal = checkpointer.propose_undo(session.get_branch())
    assert proposal is not None
    return checkpointer.apply(session, proposal, overwrite).restored


def test_every_kind_of_change_goes_back_byte_for_byte(project: Path, checkpointer: Checkpointer) -> None:
    session = SessionManager.create(project)
    before = state(project)

    def change() -> None:
        (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        (project / "run.sh").chmod(0o755)
        (project / "src" / "util.py").rename(project / "src" / "helpers.py")
        (project / "logo.bin").write_bytes(os.urandom(2048))
        (project / "a" / "b" / "c").mkdir(parents=True)
        (project / "a" / "b" / "c" / "new.txt").write_text("new\n")
        (project / "link").symlink_to("calc.py")

    assert turn(session, checkpointer, change) is not None
    proposal = checkpointer.propose_undo(session.get_branch())
    assert proposal is not None
    kinds = {c.path: c.kind for c in proposal.plan.files}
    assert kinds == {
        "a/b/c/new.txt": "created",
        "calc.py": "changed",
        "link": "created",
        "logo.bin": "changed",
        "run.sh": "mode",
        "src/helpers.py": "created",
        "src/util.py": "deleted",
    }
    checkpointer.apply(session, proposal)
    assert state(project) == before  # nested new folders gone too


def test_a_symlink_goes_back_as_a_link(project: Path, checkpointer: Checkpointer) -> None:
    (project / "current").symlink_to("src")
    session = SessionManager.create(project)
    turn(session, checkpointer, lambda: ((project / "current").unlink(), (project / "current").symlink_to("calc.py")))
    undo(session, checkpointer)
    assert (project / "current").is_symlink() and os.readlink(project / "current") == "src"


def test_repeated_undo_goes_further_back(project: Path, checkpointer: Checkpointer) -> None:
    session = SessionManager.create(project)
    calc = project / "calc.py"
    original = calc.read_bytes()
    turn(session, checkpointer, lambda: calc.write_text("one\n"))
    turn(session, checkpointer, lambda: calc.write_text("two\n"))
    assert undo(session, checkpointer) == ["calc.py"]
    assert calc.read_text() == "one\n"
    assert undo(session, checkpointer) == ["calc.py"]
    assert calc.read_bytes() == original
    assert checkpointer.propose_undo(session.get_branch()) is None
    kinds = [cp.kind for e in session.entries if (cp := checkpoint_of(e)) is not None]
    assert kinds == ["base", "turn", "turn", "undo", "undo"]


def test_a_hand_edit_since_the_checkpoint_is_named_and_kept(project: Path, checkpointer: Checkpointer) -> None:
    session = SessionManager.create(project)
    turn(session, checkpointer, lambda: ((project / "calc.py").write_text("agent\n"), (project / "new.py").touch()))
    (project / "calc.py").write_text("mine\n")
    proposal = checkpointer.propose_undo(session.get_branch())
    assert proposal is not None
    assert [c.path for c in proposal.plan.conflicts] == ["calc.py"]
    done = checkpointer.apply(session, proposal)
    assert done.restored == ["new.py"] and done.kept == ["calc.py"]
    assert (project / "calc.py").read_text() == "mine\n" and not (project / "new.py").exists()


def test_a_hand_edit_is_overwritten_when_the_user_says_so(project: Path, checkpointer: Checkpointer) -> None:
    session = SessionManager.create(project)
    original = (project / "calc.py").read_bytes()
    turn(session, checkpointer, lambda: (project / "calc.py").write_text("agent\n"))
    (project / "calc.py").write_text("mine\n")
    assert undo(session, checkpointer, overwrite={"calc.py"}) == ["calc.py"]
    assert (project / "calc.py").read_bytes() == original


def test_a_turn_cut_off_before_its_checkpoint_is_undone_from_the_base(
    project: Path, checkpointer: Checkpointer
) -> None:
    session = SessionManager.create(project)
    original = state(project)
    session.append_message(user("do it"))
    checkpointer.record_base(session)
    tool_call = call("c1", "write", path="calc.py")
    session.append_message(assistant("", tool_call))
    (project / "calc.py").write_text("half written\n")
    (project / "extra.py").write_text("x\n")
    session.sync()
    # the process dies here; a new one opens the file
    reopened = SessionManager.open(session.path)
    later = Checkpointer(project)
    proposal = later.propose_undo(reopened.get_branch())
    assert proposal is not None and sorted(c.path for c in proposal.plan.files) == ["calc.py", "extra.py"]
    later.apply(reopened, proposal)
    assert state(project) == original
    assert later.propose_undo(reopened.get_branch()) is None
    later.close()


def test_a_large_file_the_turn_changed_is_said_to_be_lost(project: Path, checkpointer: Checkpointer) -> None:
    (project / "big.bin").write_bytes(b"a" * 100_000)
    session = SessionManager.create(project)
    turn(session, checkpointer, lambda: (project / "big.bin").write_bytes(b"b" * 100_000))
    assert any("big.bin" in notice and "Not kept" in notice for notice in checkpointer.take_notices())
    proposal = checkpointer.propose_undo(session.get_branch())
    assert proposal is not None and [c.path for c in proposal.plan.lost] == ["big.bin"]


def test_a_turn_that_changed_nothing_records_nothing(project: Path, checkpointer: Checkpointer) -> None:
    session = SessionManager.create(project)
    assert turn(session, checkpointer, lambda: None) is None
    assert checkpointer.propose_undo(session.get_branch()) is None


def test_a_workspace_without_git(project: Path, checkpointer: Checkpointer) -> None:
    assert not (project / ".git").exists() and not any(p.name == ".git" for p in project.parents if p.exists())
    session = SessionManager.create(project)
    turn(session, checkpointer, lambda: (project / "calc.py").unlink())
    assert undo(session, checkpointer) == ["calc.py"] and (project / "calc.py").exists()


def test_the_next_run_after_a_cut_off_turn_records_its_checkpoint(project: Path, checkpointer: Checkpointer) -> None:
    session = SessionManager.create(project)
    original = (project / "calc.py").read_bytes()
    session.append_message(user("do it"))
    checkpointer.record_base(session)
    session.append_message(assistant("", call("c1", "write", path="calc.py")))
    (project / "calc.py").write_text("half written\n")
    # killed; the next run starts on the same session
    later = Checkpointer(project)
    session.append_message(user("go on"))
    later.record_base(session)
    turn(session, later, lambda: (project / "other.py").write_text("next turn\n"))
    assert undo(session, later) == ["other.py"]
    assert undo(session, later) == ["calc.py"]
    assert (project / "calc.py").read_bytes() == original
    later.close()


def test_deleting_a_session_lets_its_checkpoints_go(project: Path, checkpointer: Checkpointer) -> None:
    from navtui.checkpoints.service import prune_workspace

    session = SessionManager.create(project)
    original = (project / "calc.py").read_bytes()
    turn(session, checkpointer, lambda: (project / "calc.py").write_text("the turn's version\n"))
    session.sync()
    store = checkpointer.store
    kept = checkpointer.prune()
    assert kept == 0  # every object is named by the session (or is the workspace now)
    session.path.unlink()
    (project / "calc.py").write_bytes(original)
    with store._db:
        store._db.execute("UPDATE objects SET created = 0")  # older than the grace period
    assert prune_workspace(project) > 0  # type: ignore[operator]
    left = {row[0] for row in store._db.execute("SELECT hash FROM objects")}
    assert len(left) <= 6  # the workspace as it is now: 4 files, 1 folder, the root


def test_undo_never_writes_through_a_folder_turned_into_a_link(
    project: Path, checkpointer: Checkpointer, tmp_path: Path
) -> None:
    """After the turn's checkpoint, src/ becomes a link out of the workspace (a background job the model started can
    do that; the sandbox lets a command make links). The undo, which navtui runs itself, unsandboxed, wrote
    src/util.py's old bytes wherever the link pointed (~/.config/autostart: code run at the next login). It is
    left unwritten and named instead."""
    import shutil

    outside = tmp_path / "autostart"
    outside.mkdir()
    session = SessionManager.create(project)
    turn(session, checkpointer, lambda: (project / "src" / "util.py").unlink())
    shutil.rmtree(project / "src")
    (project / "src").symlink_to(outside)
    proposal = checkpointer.propose_undo(session.get_branch())
    assert proposal is not None
    done = checkpointer.apply(session, proposal)
    assert list(outside.iterdir()) == []
    assert done.failed == [("src/util.py", "a folder on its way (src) is a link now; not written through it")]
    assert done.restored == []


def test_undo_never_changes_a_mode_through_a_file_turned_into_a_link(
    project: Path, checkpointer: Checkpointer, tmp_path: Path
) -> None:
    """The turn made run.sh executable; while the undo dialog was open, a background job put a link to the user's
    SSH key in its place. The undo set the mode through the link: the key (0600) became readable by everyone
    (0644). The link is left alone and named."""
    key = tmp_path / "id_ed25519"
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    key.chmod(0o600)
    script = project / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o644)
    session = SessionManager.create(project)
    turn(session, checkpointer, lambda: script.chmod(0o755))
    proposal = checkpointer.propose_undo(session.get_branch())
    assert proposal is not None
    script.unlink()
    script.symlink_to(key)
    done = checkpointer.apply(session, proposal)
    assert key.stat().st_mode & 0o777 == 0o600
    assert done.failed == [("run.sh", "it is a link now; not changed through it")] and done.restored == []
