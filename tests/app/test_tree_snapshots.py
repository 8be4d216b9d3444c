"""How the tree screen and the resume picker look (pytest-textual-snapshot; fixed clock, UTC, fixed ids)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from navtui.app.screens.sessions import SessionPickerScreen
from navtui.app.screens.tree import TreeScreen
from navtui.session.manager import SessionManager
from tests.app.tree_sessions import NOW, HostApp, SessionWriter, two_branch_session

SIZE = (100, 30)


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def tree_app(workspace: Path, *, labels: bool = False) -> tuple[HostApp, dict[str, str]]:
    path, ids = two_branch_session(workspace)
    session = SessionManager.open(path)
    if labels:
        session.append_label(ids["a4"], "guard works")
        session.append_label(ids["u3"], "tokenizer")
    return HostApp(TreeScreen(session, now=NOW)), ids


def test_tree_default_filter(snap_compare: Any, workspace: Path) -> None:
    app, _ = tree_app(workspace)
    assert snap_compare(app, terminal_size=SIZE)


def test_tree_all_filter(snap_compare: Any, workspace: Path) -> None:
    app, _ = tree_app(workspace)
    assert snap_compare(app, press=["ctrl+o"] * 4, terminal_size=SIZE)


def test_tree_labels_and_a_folded_branch(snap_compare: Any, workspace: Path) -> None:
    app, _ = tree_app(workspace, labels=True)
    # home, then down to "Try a guard clause" (the first branch) and fold it.
    assert snap_compare(app, press=["home", "down", "down", "down", "left"], terminal_size=SIZE)


def test_tree_search(snap_compare: Any, workspace: Path) -> None:
    app, _ = tree_app(workspace)
    assert snap_compare(app, press=[*"parser"], terminal_size=SIZE)


def test_resume_picker(snap_compare: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(workspace.parent))
    parser, _ = two_branch_session(workspace)
    writer = SessionWriter(workspace, "fedcba9876543210")
    writer.assistant(writer.user(None, "Add a --verbose flag\nand keep quiet the default"), "Done.")
    verbose = writer.write(name="2025-03-04T09-00-00-000Z_fedcba9876543210.jsonl")
    for path, age in ((parser, 300), (verbose, 3 * 86400)):
        os.utime(path, (NOW.timestamp() - age,) * 2)
    app = HostApp(SessionPickerScreen(workspace, now=NOW))

    async def loaded(pilot: Any) -> None:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 16), run_before=loaded)


def test_tree_labeled_only_without_labels_says_what_to_do(snap_compare: Any, workspace: Path) -> None:
    app, _ = tree_app(workspace)
    assert snap_compare(app, press=["ctrl+o"] * 3, terminal_size=SIZE)


def test_branch_summary_dialog_shows_the_tree_behind(snap_compare: Any, workspace: Path) -> None:
    from navtui.app.screens.branch_summary import BranchSummaryScreen

    app, _ = tree_app(workspace)

    async def ask(pilot: Any) -> None:
        await pilot.pause()
        app.push_screen(BranchSummaryScreen(3))
        await pilot.pause()

    assert snap_compare(app, run_before=ask, terminal_size=SIZE)
