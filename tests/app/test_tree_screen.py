"""The tree screen and the branch summary dialog, driven by keys in a small host app."""

from __future__ import annotations

from pathlib import Path

from navtui.app.screens.branch_summary import BranchSummaryScreen, SummaryChoice
from navtui.app.screens.tree import TreeScreen
from navtui.session.entries import LabelEntry
from navtui.session.manager import SessionManager
from navtui.widgets.tree_view import TreeView
from tests.app.test_tree_rows import long_session
from tests.app.tree_sessions import NOW, HostApp, two_branch_session


def cursor_id(app: HostApp) -> str:
    return app.screen.query_one(TreeView).cursor_row.id


def shown_ids(app: HostApp) -> list[str]:
    return [row.id for row in app.screen.query_one(TreeView).rows]


async def test_keys_move_the_cursor(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    app = HostApp(TreeScreen(SessionManager.open(path), now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        assert cursor_id(app) == ids["a7"]  # opens on the leaf
        await pilot.press("up")
        assert cursor_id(app) == ids["u4"]
        await pilot.press("home")
        assert cursor_id(app) == ids["u1"]
        await pilot.press("up")  # wraps
        assert cursor_id(app) == ids["a7"]
        await pilot.press("pageup")
        assert cursor_id(app) == ids["u1"]
        await pilot.press("pagedown")
        assert cursor_id(app) == ids["a7"]
        await pilot.press("end", "down")
        assert cursor_id(app) == ids["u1"]


async def test_it_opens_on_the_shown_leaf_when_the_leaf_itself_is_hidden(workspace: Path) -> None:
    # A resumed session whose last entry the filter hides (a model or thinking-level change, /advisor's setting)
    # opened the tree on its first row, far from "← active".
    path, ids = two_branch_session(workspace)
    session = SessionManager.open(path)
    session.append_model_change("ollama", "llama3.2:3b")
    session.append_thinking_level_change("low")
    session.sync()
    app = HostApp(TreeScreen(SessionManager.open(path), now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        assert cursor_id(app) == ids["a7"]
        await pilot.press("ctrl+o", "ctrl+o", "ctrl+o", "ctrl+o", "end")  # "all": the leaf itself shows
        assert cursor_id(app) == session.leaf_id
        await pilot.press("ctrl+o")  # back to "default": the cursor's row is hidden, its nearest shown ancestor
        assert cursor_id(app) == ids["a7"]


async def test_left_and_right_fold_and_jump_between_branches(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    app = HostApp(TreeScreen(SessionManager.open(path), now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("left")  # the leaf cannot fold: jump back to the start of its branch
        assert cursor_id(app) == ids["u3"]
        await pilot.press("left")  # a branch start folds
        assert cursor_id(app) == ids["u3"] and ids["a7"] not in shown_ids(app)
        await pilot.press("ctrl+left")  # folded: jump to the previous branch start
        assert cursor_id(app) == ids["u2"]
        await pilot.press("ctrl+left")
        assert ids["a4"] not in shown_ids(app)
        await pilot.press("right")
        assert ids["a4"] in shown_ids(app)
        await pilot.press("right")  # unfolded: jump to the next branch start
        assert cursor_id(app) == ids["u3"]
        await pilot.press("ctrl+right")
        assert ids["a7"] in shown_ids(app)


async def test_typing_filters_and_esc_clears_then_closes(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    app = HostApp(TreeScreen(SessionManager.open(path), now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"guardx")
        assert shown_ids(app) == []
        await pilot.press("backspace")
        assert shown_ids(app) == [ids["u2"], ids["a4"]]
        search = str(app.screen.query_one("#tree-search").render())
        assert "guard" in search
        await pilot.press("escape")
        assert len(shown_ids(app)) == 11 and isinstance(app.screen, TreeScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, TreeScreen) and app.results == [None]


async def test_ctrl_o_cycles_the_filter_modes(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    app = HostApp(TreeScreen(SessionManager.open(path), now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        status = app.screen.query_one("#tree-status")
        assert str(status.render()).endswith("filter: default")
        await pilot.press("ctrl+o", "ctrl+o")
        assert str(status.render()).endswith("filter: user only")
        assert shown_ids(app) == [ids["u1"], ids["u2"], ids["u3"], ids["u4"]]
        await pilot.press("ctrl+o", "ctrl+o")
        assert str(status.render()) == "15/16 · filter: all" and len(shown_ids(app)) == 16


async def test_shift_l_labels_the_selected_entry_and_empty_clears(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    session = SessionManager.open(path)
    app = HostApp(TreeScreen(session, now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("up", "L")
        await pilot.press(*"before-L", "enter")  # typing in the label field does not reach the tree
        assert session.label_of(ids["u4"]) == "before-L"
        assert app.screen.query_one(TreeView).cursor_row.label == "before-L"
        await pilot.press("ctrl+o", "ctrl+o", "ctrl+o")  # labeled only
        assert shown_ids(app) == [ids["u4"]]
        await pilot.press("shift+l", "backspace", "enter")
        assert session.label_of(ids["u4"]) is None
    labels = [e for e in SessionManager.open(path).entries if isinstance(e, LabelEntry)]
    assert [(e.target_id, e.label) for e in labels] == [(ids["u4"], "before-L"), (ids["u4"], None)]


async def test_esc_cancels_a_label_edit(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    session = SessionManager.open(path)
    app = HostApp(TreeScreen(session, now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("L", *"nope", "escape")
        assert session.label_of(ids["a7"]) is None and isinstance(app.screen, TreeScreen)
        await pilot.press("x")  # typing searches again
        assert app.screen.model.query == "x"


async def test_enter_dismisses_with_the_entry(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    app = HostApp(TreeScreen(SessionManager.open(path), now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("home", "enter")
        assert app.results == [ids["u1"]]


async def test_branch_mode_only_takes_user_messages(workspace: Path) -> None:
    path, ids = two_branch_session(workspace)
    app = HostApp(TreeScreen(SessionManager.open(path), mode="branch", now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        assert shown_ids(app) == [ids["u1"], ids["u2"], ids["u3"], ids["u4"]]
        await pilot.press("ctrl+o", "ctrl+o", "end", "enter")  # all entries: the leaf is an answer
        assert app.results == [] and isinstance(app.screen, TreeScreen)
        await pilot.press("up", "enter")
        assert app.results == [ids["u4"]]


async def test_summary_dialog_choices() -> None:
    for keys, expected in (
        (["enter"], SummaryChoice(False)),
        (["down", "enter"], SummaryChoice(True)),
        (["down", "down", "enter", *"only the errors", "enter"], SummaryChoice(True, "only the errors")),
        (["escape"], None),
        (["down", "down", "enter", "escape", "escape"], None),
    ):
        app = HostApp(BranchSummaryScreen(3))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press(*keys)
            assert app.results == [expected], keys


async def test_the_screen_opens_on_a_long_session_parsing_only_the_rows_it_draws(workspace: Path) -> None:
    path, _ = long_session(workspace, 250)
    session = SessionManager.open(path)
    app = HostApp(TreeScreen(session, now=NOW))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(TreeView)
        assert len(view.rows) == 750 and view.cursor_row.id == session.leaf_id
        assert "answer 249" in "\n".join(view.render_line(y).text for y in range(view.size.height))
        # Of 1,000 entries: the rows drawn (at the top before the cursor's scroll, then at the leaf) and the
        # answers above the tool results among them.
        assert 0 < session._index.lines_parsed <= 4 * view.size.height
