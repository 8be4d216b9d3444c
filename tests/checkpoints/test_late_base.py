"""A base recorded after its prompt (the run started while the first walk of a large workspace was still going):
the tree finds the code "before the prompt" below the point, by the point the base names (``at``)."""

from __future__ import annotations

from pathlib import Path

from navtui.checkpoints.history import checkpoint_of, code_at, latest
from navtui.checkpoints.service import Checkpointer
from navtui.session.manager import SessionManager
from tests.session.helpers import assistant, call, result, user


def late_run(session: SessionManager, checkpointer: Checkpointer, change: object) -> tuple[str | None, str | None]:
    """A run whose base walk ends after the prompt; (the point it started from, the late base's id)."""
    start = session.get_branch()
    point = session.leaf_id
    session.append_message(user("do it"))
    base_id = checkpointer.record(session, checkpointer.base_checkpoint(start, late=True))
    tool_call = call(f"c{len(session.entries)}", "shell", command="...")
    session.append_message(assistant("", tool_call))
    change()  # type: ignore[operator]
    session.append_message(result(tool_call.id, name="shell"))
    checkpointer.record_turn(session)
    session.append_message(assistant("done"))
    return point, base_id


def test_the_code_before_a_first_prompt_is_its_late_base(project: Path, checkpointer: Checkpointer) -> None:
    session = SessionManager.create(project)
    calc = project / "calc.py"
    original = calc.read_text()
    point, base_id = late_run(session, checkpointer, lambda: calc.write_text("broken\n"))
    assert point is None and base_id is not None
    base = checkpoint_of(session.get_entry(base_id))  # type: ignore[arg-type]
    assert base is not None and base.kind == "base" and base.at == ""  # the session's start
    ws = checkpointer.workspace
    assert latest([], ws) is None  # what the tree found before: no code before the first prompt
    assert code_at([], ws, session.children) == base
    prompt = session.get_branch()[0]
    assert code_at(session.get_branch(prompt.id), ws, session.children) == base  # the prompt itself: the same code
    proposal = checkpointer.propose_restore(session.get_branch(), [], session.children)
    assert proposal is not None
    checkpointer.apply(session, proposal)
    assert calc.read_text() == original


def test_hand_edits_before_a_later_process_run_are_its_code(project: Path, checkpointer: Checkpointer) -> None:
    calc = project / "calc.py"
    session = SessionManager.create(project)
    checkpointer.record_base(session)  # a run that waited for its walk: before its prompt, on the path
    session.append_message(user("first"))
    session.append_message(assistant("ok"))
    calc.write_text("by hand\n")  # between the processes
    point, base_id = late_run(session, checkpointer, lambda: calc.write_text("by the model\n"))
    target = session.get_branch(point)
    assert latest(target, checkpointer.workspace) is not None  # the first run's base: without the hand edit
    late = code_at(target, checkpointer.workspace, session.children)
    assert late is not None and late.entry_id == base_id and late.at == point
    proposal = checkpointer.propose_restore(session.get_branch(), target, session.children)
    assert proposal is not None
    checkpointer.apply(session, proposal)
    assert calc.read_text() == "by hand\n"


def test_a_base_is_only_for_the_points_it_names(project: Path, checkpointer: Checkpointer) -> None:
    calc = project / "calc.py"
    session = SessionManager.create(project)
    first = checkpointer.record_base(session)
    prompt = session.append_message(user("first"))
    answer = session.append_message(assistant("ok"))
    calc.write_text("edit one\n")
    point, base_id = late_run(session, checkpointer, lambda: calc.write_text("model\n"))
    assert point == answer
    ws = checkpointer.workspace
    # The first prompt's code is its own base: the late base below it names a later point (the answer).
    found = code_at(session.get_branch(prompt), ws, session.children)
    assert found is not None and found.entry_id == first
    found = code_at(session.get_branch(answer), ws, session.children)
    assert found is not None and found.entry_id == base_id
    # A base that names no point (written before ``at`` existed, or not late) is not taken from below a point.
    data = checkpoint_of(session.get_entry(base_id)).data()  # type: ignore[arg-type, union-attr]
    session.branch(answer)
    del data["at"]
    session.append_message(user("again"))
    session.append_custom("navtui-checkpoint", data)
    session.branch(answer)
    found = code_at(session.get_branch(answer), ws, session.children)
    assert found is not None and found.entry_id == base_id  # still the one that names the point
    # Another workspace's late base is not this one's code.
    assert code_at(session.get_branch(answer), "/elsewhere", session.children) is None
