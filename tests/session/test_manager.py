"""The tree: appends follow the leaf, branching moves it, labels and names resolve, copies keep the path."""

from __future__ import annotations

import pytest

from navtui.core.errors import NavtuiError
from navtui.session.entries import BranchSummaryEntry, LabelEntry, MessageEntry
from navtui.session.manager import SessionManager
from tests.session.helpers import assistant, user


def _ids(entries: list) -> list[str]:
    return [entry.id for entry in entries]


def test_appends_chain_from_the_leaf(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    b = session.append_message(assistant("b"))
    assert session.leaf_id == b
    assert session.get_entry(b).parent_id == a  # type: ignore[union-attr]
    assert _ids(session.get_branch()) == [a, b]


def test_branch_moves_only_the_pointer(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    b = session.append_message(assistant("b"))
    size = session.path.stat().st_size
    session.branch(a)
    assert session.path.stat().st_size == size
    c = session.append_message(assistant("c"))
    assert _ids(session.get_branch()) == [a, c]
    assert _ids(session.get_branch(b)) == [a, b]
    assert _ids(session.children(a)) == [b, c]


def test_reset_leaf_starts_a_new_root(session: SessionManager) -> None:
    session.append_message(user("a"))
    session.reset_leaf()
    assert session.get_branch() == [] and session.build_context().messages == []
    root = session.append_message(user("fresh"))
    assert session.get_entry(root).parent_id is None  # type: ignore[union-attr]
    assert len(session.get_tree()) == 2
    assert _ids(session.children(None)) == [session.entries[0].id, root]


def test_branch_with_summary_attaches_the_summary_at_the_new_position(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    b = session.append_message(assistant("b"))
    session.append_message(user("abandoned idea"))
    summary_id = session.branch_with_summary(b, "Tried X; it failed.")
    summary = session.get_entry(summary_id)
    assert isinstance(summary, BranchSummaryEntry) and summary.parent_id == b and summary.from_id == b
    assert _ids(session.get_branch()) == [a, b, summary_id]
    root_summary = session.get_entry(session.branch_with_summary(None, "from the top"))
    assert isinstance(root_summary, BranchSummaryEntry)
    assert root_summary.parent_id is None and root_summary.from_id == "root"


def test_unknown_ids_are_clear_errors(session: SessionManager) -> None:
    session.append_message(user("a"))
    with pytest.raises(NavtuiError, match="No entry 'ffffffff'"):
        session.branch("ffffffff")
    with pytest.raises(NavtuiError):
        session.get_branch("ffffffff")
    with pytest.raises(NavtuiError):
        session.append_label("ffffffff", "x")


def test_tree_orders_children_oldest_first_and_resolves_labels(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    b = session.append_message(assistant("b"))
    session.branch(a)
    c = session.append_message(assistant("c"))
    session.append_label(b, "first try")
    session.append_label(c, "second")
    session.append_label(c, None)
    [root] = session.get_tree()
    assert root.entry.id == a
    assert [child.entry.id for child in root.children] == [b, c]
    assert root.children[0].label == "first try" and root.children[1].label is None
    assert session.label_of(b) == "first try" and session.label_of(c) is None


def test_name_comes_from_the_latest_session_info(session: SessionManager) -> None:
    assert session.name is None
    session.append_message(user("hello"))
    assert session.set_name("  Refactor auth  ") is not None
    assert session.set_name("Refactor auth") is None  # unchanged: nothing written
    assert session.name == "Refactor auth"
    assert SessionManager.open(session.path).name == "Refactor auth"
    session.set_name(None)
    assert SessionManager.open(session.path).name is None


def test_a_name_is_one_line(session: SessionManager) -> None:
    # /name with a new line typed in the prompt (alt+enter): the Markdown export's title was cut in two.
    session.append_message(user("hello"))
    session.set_name("Refactor\nauth\t flow ")
    assert SessionManager.open(session.path).name == "Refactor auth flow"
    assert session.set_name(" \n ") is not None and session.name is None  # only whitespace clears it


def test_reopen_restores_entries_labels_and_leaf(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    b = session.append_message(assistant("b"))
    session.append_label(a, "start")
    reopened = SessionManager.open(session.path)
    assert [e.to_json() for e in reopened.entries] == [e.to_json() for e in session.entries]
    assert reopened.leaf_id == session.leaf_id and reopened.label_of(a) == "start"
    assert reopened.session_id == session.session_id and reopened.cwd == session.cwd
    assert isinstance(reopened.get_entry(b), MessageEntry)


def test_create_branched_session_copies_the_path_without_touching_the_original(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    session.append_label(a, "start")
    b = session.append_message(assistant("b"))
    session.append_message(user("not copied"))
    original = session.path.read_bytes()
    copy = session.create_branched_session(b)
    assert session.path.read_bytes() == original
    assert copy.path.parent == session.path.parent and copy.path != session.path
    assert copy.header.parent_session == str(session.path)
    reopened = SessionManager.open(copy.path)
    kinds = [(e.type, e.id if not isinstance(e, LabelEntry) else e.target_id) for e in reopened.entries]
    assert kinds == [("message", a), ("message", b), ("label", a)]
    assert reopened.get_entry(b).parent_id == a  # type: ignore[union-attr]  # the label entry was skipped
    assert reopened.label_of(a) == "start" and reopened.leaf_id == copy.leaf_id
    assert [m.text for m in reopened.build_context().messages] == ["a", "b"]


def test_display_items_include_every_entry_on_the_path(session: SessionManager) -> None:
    a = session.append_message(user("a"))
    b = session.append_message(assistant("b"))
    c = session.append_compaction("summary", a, 1000)
    d = session.append_custom_message("handover", "notes")
    session.branch(a)
    session.append_message(assistant("other"))
    assert _ids(session.display_items(d)) == [a, b, c, d]


def test_custom_entries_are_state_not_context(session: SessionManager) -> None:
    session.append_message(user("a"))
    session.append_custom("my-extension", {"count": 1})
    assert [m.text for m in session.build_context().messages] == ["a"]
    assert SessionManager.open(session.path).entries[-1].to_json()["data"] == {"count": 1}


def test_a_session_branched_from_one_with_a_damaged_header_gets_a_cwd(tmp_path, monkeypatch) -> None:
    import json

    from navtui.agent.session_control import SessionControl

    path = tmp_path / "broken.jsonl"
    path.write_bytes(
        b'{"type":"sess\n{"type":"message","id":"00000001","parentId":null,"message":{"role":"user","content":"hi"}}\n'
    )
    damaged = SessionManager.open(path)
    assert damaged.read_only_reason and damaged.header.cwd == ""  # how the reading code sees it
    run_in = tmp_path / "project"
    run_in.mkdir()
    continued, moved = SessionControl.writable(damaged, run_in)  # -c, -r, /resume of a read-only session
    assert moved and continued.path != path
    header = json.loads(continued.path.read_text().splitlines()[0])
    assert header["type"] == "session" and header["cwd"] == str(run_in)  # not ""
    assert SessionManager.open(continued.path).header.cwd == str(run_in)
    monkeypatch.chdir(run_in)
    copy = damaged.create_branched_session("00000001")  # no cwd given: the one navtui runs in
    assert json.loads(copy.path.read_text().splitlines()[0])["cwd"] == str(run_in)
