"""The tree row model: layout, filter modes, search, folding and one-line summaries."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from navtui.core.messages import AssistantMessage, TextBlock, UserMessage
from navtui.session.manager import SessionManager
from navtui.widgets.tree_rows import TreeModel, format_tool_call, short_time
from tests.app.tree_sessions import SessionWriter, two_branch_session


def model_for(path: Path) -> tuple[TreeModel, SessionManager]:
    session = SessionManager.open(path)
    active = {entry.id for entry in session.get_branch()}
    return TreeModel(session.get_tree(), session.leaf_id, active_ids=active), session


def texts(model: TreeModel) -> list[str]:
    return [model.describe(row).text for row in model.visible()]


def test_layout_indents_only_at_branch_points(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    model, _ = model_for(path)
    row = {entry_id: model.row(entry_id) for entry_id in ids.values()}
    assert (row[ids["u1"]].depth, row[ids["a2"]].depth) == (0, 0)
    assert (row[ids["u2"]].depth, row[ids["u2"]].connector, row[ids["u2"]].gutters) == (1, "├", (0,))
    assert (row[ids["a4"]].depth, row[ids["a4"]].connector, row[ids["a4"]].gutters) == (1, "", (0,))
    assert (row[ids["u3"]].connector, row[ids["u3"]].gutters) == ("└", ())
    assert row[ids["u2"]].segment_start and not row[ids["a4"]].segment_start
    # Children oldest first; the subtree of u2 ends where u3 starts.
    assert row[ids["u2"]].index < row[ids["u3"]].index == row[ids["u2"]].end


def test_default_filter_hides_bookkeeping_and_tool_only_answers(workspace: Path) -> None:
    path, _ = two_branch_session(workspace)
    model, _ = model_for(path)
    shown = texts(model)
    assert "Fix the failing parser test" in shown
    assert "read src/parser.py" in shown  # the tool result row names the call
    assert not any(text.startswith(("name:", "model:", "→")) for text in shown)
    model.filter_mode = "all"
    everything = texts(model)
    assert len(everything) == len(model.rows)
    assert "→ read src/parser.py" in everything and "model: qwen3:14b (ollama)" in everything


def test_filter_modes_cycle_in_order(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    model, session = model_for(path)
    session.append_label(ids["a4"], "guard")
    model.set_label(ids["a4"], "guard")
    seen = []
    for _ in range(5):
        seen.append((model.filter_mode, texts(model)))
        model.cycle_filter()
    assert [mode for mode, _ in seen] == ["default", "no-tools", "user-only", "labeled-only", "all"]
    assert model.filter_mode == "default"
    no_tools, user_only, labeled = seen[1][1], seen[2][1], seen[3][1]
    assert (
        "read src/parser.py" not in no_tools
        and "The parser indexes text[0] without checking for empty input." in no_tools
    )
    assert user_only == [
        "Fix the failing parser test",
        "Try a guard clause",
        "Rewrite the parser with a tokenizer instead",
        "Handle unicode too",
    ]
    assert labeled == ["Added a guard clause; the test passes now."]


def test_search_is_case_insensitive_and_needs_every_word(workspace: Path) -> None:
    path, _ = two_branch_session(workspace)
    model, _ = model_for(path)
    model.query = "GUARD try"
    assert texts(model) == ["Try a guard clause"]
    model.query = "tests/test_parser"  # tool arguments are searchable
    assert texts(model) == ["shell: pytest -q tests/test_parser.py"]
    model.query = "nothing matches this"
    assert texts(model) == []


def test_fold_hides_a_branch_and_search_still_finds_inside(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    model, _ = model_for(path)
    guard = model.row(ids["u2"])
    assert model.foldable(guard) and not model.foldable(model.row(ids["a4"]))
    assert model.fold(guard) and not model.fold(guard)
    shown = texts(model)
    assert "Try a guard clause" in shown and "Added a guard clause; the test passes now." not in shown
    model.query = "passes"
    assert texts(model) == ["Added a guard clause; the test passes now."]
    model.query = ""
    assert model.unfold(guard) and "Added a guard clause; the test passes now." in texts(model)


def test_the_active_mark_moves_to_the_nearest_shown_ancestor(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    model, _ = model_for(path)
    model.visible()
    assert model.rows[model.shown_leaf].id == ids["a7"]
    model.filter_mode = "user-only"
    model.visible()
    assert model.rows[model.shown_leaf].id == ids["u4"]
    active = {row.id for row in model.rows if row.active}
    assert ids["u3"] in active and ids["u2"] not in active


def test_a_branch_whose_first_entry_is_hidden_keeps_its_connector(workspace: Path) -> None:
    # After going back in the tree and /undo, the new branch starts with a checkpoint (a custom entry, hidden by
    # the default filter): its note showed with no "└", as if it went on from the branch left behind.
    writer = SessionWriter(workspace)
    answer = writer.assistant(writer.user(None, "fix add"), "Done.")
    writer.assistant(writer.user(answer, "rename the module"), "Renamed.")
    checkpoint = writer.entry(answer, "custom", customType="navtui-checkpoint", data={"kind": "undo"})
    note = writer.entry(checkpoint, "custom_message", customType="navtui-files-restored", content="undone")
    model, _ = model_for(writer.write())
    shown = {row.id: row for row in model.visible()}
    assert checkpoint not in shown and model.connector_of(shown[note]) == "└"
    assert [model.connector_of(row) for row in shown.values()] == ["", "", "├", "", "└"]
    model.filter_mode = "all"
    assert [model.connector_of(row) for row in model.visible()] == ["", "", "├", "", "└", ""]


def test_a_branch_whose_later_siblings_are_all_hidden_ends_there(workspace: Path) -> None:
    # A checkpoint or a model change recorded after going back in the tree is a later child of that point: the
    # filter hides it, and the branch above it still drew "├" and a "│" running down to nothing.
    writer = SessionWriter(workspace)
    answer = writer.assistant(writer.user(None, "fix add"), "Done.")
    u2 = writer.user(answer, "rename the module")
    a2 = writer.assistant(u2, "Renamed.")
    u3 = writer.user(a2, "and the tests")
    a3 = writer.assistant(u3, "Tests renamed.")
    writer.entry(a2, "model_change", provider="ollama", modelId="qwen3:14b")  # a later child of a2, hidden
    writer.entry(answer, "custom", customType="navtui-checkpoint", data={"kind": "undo"})  # of answer, hidden
    model, _ = model_for(writer.write())
    shown = {row.id: row for row in model.visible()}
    assert [model.connector_of(shown[key]) for key in (u2, a2, u3, a3)] == ["└", "", "└", ""]
    assert [model.gutters_of(shown[key]) for key in (u2, a2, u3, a3)] == [(), (), (), ()]
    model.filter_mode = "all"
    rows = {row.id: row for row in model.visible()}
    assert [model.connector_of(rows[key]) for key in (u2, a2, u3, a3)] == ["├", "", "├", ""]
    assert [model.gutters_of(rows[key]) for key in (u2, a2, u3, a3)] == [(0,), (0,), (0, 1), (0, 1)]


def test_several_roots_hang_off_an_invisible_branch(workspace: Path) -> None:
    writer = SessionWriter(workspace)
    first = writer.user(None, "one")
    writer.assistant(first, "answer one")
    writer.user(None, "two")
    model, _ = model_for(writer.write())
    roots = [row for row in model.rows if row.parent == -1]
    assert [(row.depth, row.connector, row.gutters) for row in roots] == [(1, "├", (0,)), (1, "└", ())]
    assert model.rows[1].gutters == (0,)  # "answer one" keeps the gutter down to "two"


def test_a_5000_entry_chain_flattens_without_recursion(workspace: Path) -> None:
    session = SessionManager.create(workspace)
    for number in range(2500):
        session.append_message(UserMessage(content=f"question {number}"))
        session.append_message(AssistantMessage(content=[TextBlock(text=f"answer {number}")]))
    model = TreeModel(session.get_tree(), session.leaf_id)
    rows = model.visible()
    assert len(rows) == 5000 and rows[-1].leaf and rows[0].end == 5000
    assert all(row.active for row in rows)


def test_tool_calls_read_as_one_short_line() -> None:
    assert format_tool_call("read", {"path": "a.py", "offset": 10, "limit": 20}) == "read a.py:10-29"
    assert format_tool_call("grep", {"pattern": "TODO"}) == "grep /TODO/ in ."
    assert format_tool_call("shell", {"command": "make\n  test"}) == "shell: make test"
    assert format_tool_call("custom", {"x": "y" * 80}).endswith("…")


def test_times_are_short_and_local() -> None:
    now = datetime(2025, 3, 5, 18, 0, tzinfo=UTC)
    assert short_time("2025-03-05T09:02:00.000Z", now) == "09:02"
    assert short_time("2025-01-02T09:02:00.000Z", now) == "Jan 02"
    assert short_time("2023-01-02T09:02:00.000Z", now) == "2023-01-02"
    assert short_time("garbage", now) == ""


def test_a_search_marks_the_leaf_only_when_it_matches(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    model, _ = model_for(path)
    model.query = "parser"
    model.visible()
    assert model.shown_leaf == -1
    model.query = "code points"
    model.visible()
    assert model.rows[model.shown_leaf].id == ids["a7"]


def long_session(cwd: Path, turns: int) -> tuple[Path, list[str]]:
    """``turns`` turns of prompt, tool call, result and answer in one chain; the ids of the tool results."""
    w = SessionWriter(cwd)
    parent: str | None = None
    results = []
    for turn in range(turns):
        parent = w.user(parent, f"step {turn}")
        parent = w.assistant(parent, calls=[(f"c{turn}", "read", {"path": f"src/mod{turn}.py"})])
        parent = w.tool(parent, f"c{turn}", "read", "def f(): ...")
        results.append(parent)
        parent = w.assistant(parent, f"answer {turn}")
    return w.write(), results


def test_the_rows_are_built_without_parsing_the_entries_only_drawn_rows_are_parsed(workspace: Path) -> None:
    path, results = long_session(workspace, 250)
    session = SessionManager.open(path)
    index = session._index
    model = TreeModel(session.get_tree(), session.leaf_id, active_ids=set(session.branch_ids()))
    shown = model.visible()
    assert index.lines_parsed == 0  # 1,000 rows, laid out, filtered and marked from ids and kinds alone
    assert len(model.rows) == 1000 and len(shown) == 750  # the answers that only call a tool are hidden
    assert [row.kind for row in model.rows[:4]] == ["user", "assistant-tools", "tool", "assistant"]

    # Drawing a screen of rows parses those rows, and a result row the answer above it (its call's name).
    drawn = [model.describe(row).text for row in shown[-30:]]
    assert "read src/mod240.py" in drawn and "answer 249" in drawn
    assert index.lines_parsed <= 30 + 10
    assert model.row(results[-1]) is not None and model.row(results[-1]).active  # type: ignore[union-attr]

    # A search reads every row (once).
    model.query = "mod17.py"
    assert [model.describe(row).text for row in model.visible()] == ["read src/mod17.py"]
