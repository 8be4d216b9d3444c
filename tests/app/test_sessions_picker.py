"""The /resume session picker: listing, filtering, opening, all directories, rename and delete."""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import DataTable

from navtui.app.screens.sessions import SessionPickerScreen, relative_time
from navtui.session.manager import SessionManager
from tests.app.tree_sessions import NOW, HostApp, SessionWriter, two_branch_session


def make_sessions(workspace: Path, other: Path) -> dict[str, Path]:
    parser, _ = two_branch_session(workspace)
    writer = SessionWriter(workspace, "fedcba9876543210")
    writer.assistant(writer.user(None, "Add a --verbose flag"), "Done.")
    verbose = writer.write(name="2025-03-04T09-00-00-000Z_fedcba9876543210.jsonl")
    elsewhere = SessionWriter(other, "aaaabbbbccccdddd")
    elsewhere.user(None, "A question somewhere else")
    far = elsewhere.write()
    for path, age in ((parser, 300), (verbose, 3 * 86400), (far, 60)):
        os.utime(path, (NOW.timestamp() - age,) * 2)
    return {"parser": parser, "verbose": verbose, "far": far}


def names(app: HostApp) -> list[str]:
    return [summary.name for summary in app.screen.shown]


async def loaded(app: HostApp, pilot) -> None:  # type: ignore[no-untyped-def]
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_lists_this_directory_newest_first_and_opens_with_enter(workspace: Path, tmp_path: Path) -> None:
    paths = make_sessions(workspace, tmp_path / "other")
    app = HostApp(SessionPickerScreen(workspace, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await loaded(app, pilot)
        assert names(app) == ["Fix the failing parser test", "Add a --verbose flag"]
        table = app.screen.query_one(DataTable)
        assert [str(cell) for cell in table.get_row_at(0)][1:] == ["5m ago", "16", "qwen2.5-coder:7b"]
        await pilot.press("down", "enter")
    assert app.results == [paths["verbose"]]


async def test_typing_filters_and_ctrl_a_shows_every_directory(workspace: Path, tmp_path: Path) -> None:
    make_sessions(workspace, tmp_path / "other")
    app = HostApp(SessionPickerScreen(workspace, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await loaded(app, pilot)
        await pilot.press(*"VERB")
        assert names(app) == ["Add a --verbose flag"]
        await pilot.press("backspace", "backspace", "backspace", "backspace")
        await pilot.press("ctrl+a")
        await loaded(app, pilot)
        assert names(app) == ["A question somewhere else", "Fix the failing parser test", "Add a --verbose flag"]
        assert "all directories" in app.screen.query_one("#picker-box").border_title
        await pilot.press("escape")
    assert app.results == [None]


async def test_rename_writes_the_name_into_the_file(workspace: Path, tmp_path: Path) -> None:
    paths = make_sessions(workspace, tmp_path / "other")
    app = HostApp(SessionPickerScreen(workspace, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await loaded(app, pilot)
        await pilot.press("down", "ctrl+r", *"verbose flag", "enter")
        await loaded(app, pilot)
        assert "verbose flag" in names(app)
    assert SessionManager.open(paths["verbose"]).name == "verbose flag"


async def test_rename_of_the_open_session_goes_through_its_manager(workspace: Path, tmp_path: Path) -> None:
    paths = make_sessions(workspace, tmp_path / "other")
    current = SessionManager.open(paths["parser"])
    app = HostApp(SessionPickerScreen(workspace, current=current, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await loaded(app, pilot)
        await pilot.press("ctrl+r", "ctrl+u", *"parser work", "enter")
        await loaded(app, pilot)
    assert current.name == "parser work"
    current.sync()
    assert SessionManager.open(paths["parser"]).name == "parser work"


async def test_delete_asks_first(workspace: Path, tmp_path: Path) -> None:
    paths = make_sessions(workspace, tmp_path / "other")
    current = SessionManager.open(paths["parser"])
    app = HostApp(SessionPickerScreen(workspace, current=current, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await loaded(app, pilot)
        await pilot.press("ctrl+d")  # the open session is refused
        assert paths["parser"].exists() and app.screen._deleting is None
        await pilot.press("down", "ctrl+d", "n")
        assert paths["verbose"].exists()
        await pilot.press("ctrl+d", "y")
        assert not paths["verbose"].exists()
        assert names(app) == ["Fix the failing parser test"]


def test_relative_times() -> None:
    from datetime import timedelta

    assert relative_time(NOW - timedelta(seconds=5), NOW) == "just now"
    assert relative_time(NOW - timedelta(minutes=5), NOW) == "5m ago"
    assert relative_time(NOW - timedelta(hours=3), NOW) == "3h ago"
    assert relative_time(NOW - timedelta(days=2), NOW) == "2d ago"
    assert relative_time(NOW - timedelta(days=40), NOW) == "1mo ago"


async def test_the_model_column_shows_whole_beside_a_long_name(workspace: Path, tmp_path: Path) -> None:
    # A 56-character name with labels pushed the Model column past the right edge at 100 columns: the name gives
    # way (with an ellipsis), the model and the other columns show whole; at 80 columns too, and with ctrl+a.
    from tests.app.conftest import rendered_text

    writer = SessionWriter(workspace, "1111222233334444")
    answer = writer.assistant(writer.user(None, "Refactor the whole streaming renderer to batch its writes per frame"))
    writer.entry(answer, "label", targetId=answer, label="perf")
    writer.entry(None, "model_change", provider="ollama", modelId="qwen2.5-coder:32b-instruct-q4_K_M")
    writer.write()
    for width in (100, 80):
        app = HostApp(SessionPickerScreen(workspace, now=NOW))
        async with app.run_test(size=(width, 20)) as pilot:
            await loaded(app, pilot)
            for all_dirs in (False, True):
                table = app.screen.query_one(DataTable)
                shown = rendered_text(table)
                assert "qwen2.5-coder:32b-instruct-q4_K_M" in shown, (width, all_dirs, shown)
                assert "Refactor the" in shown and "…" in shown, (width, all_dirs, shown)
                if not all_dirs:
                    await pilot.press("ctrl+a")
                    await loaded(app, pilot)


async def test_resume_with_words_that_are_no_session_id_opens_the_list_filtered_by_them(
    make_app, workspace: Path, tmp_path: Path
) -> None:
    # "/resume parser" said "No session matches 'parser'" and pointed at `navtui sessions --all`, a command for
    # another terminal; the picker filters by name, labels and model: it opens with the words as its filter.
    from tests.app.conftest import main_screen, wait_for

    make_sessions(workspace, tmp_path / "other")
    app = make_app(ephemeral=False)
    async with app.run_test(size=(100, 30)) as pilot:
        main_screen(app).submit("/resume parser")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and bool(app.screen.sessions))
        await pilot.pause()
        assert app.screen.query_text == "parser" and names(app) == ["Fix the failing parser test"]
        await pilot.press("escape", "escape")  # the filter, then the list
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionPickerScreen))


async def test_resume_with_a_word_that_is_a_file_or_a_short_id_prefix_still_filters(
    make_app, workspace: Path, tmp_path: Path, monkeypatch
) -> None:
    # The words went to the id lookup first, which takes a file of that name as a session (`/resume notes` with a
    # notes file here: "Resumed notes", read-only) and a prefix of one session's id as that session (`/resume add`
    # opened the session whose id begins with add). Words are a filter; an id prefix is 4 or more hex digits.
    from tests.app.conftest import main_screen, wait_for

    make_sessions(workspace, tmp_path / "other")
    writer = SessionWriter(workspace, "add0123456789abc")
    writer.assistant(writer.user(None, "Rename the cache module"), "Done.")
    writer.write()
    (workspace / "notes").write_text("not a session\n")
    monkeypatch.chdir(workspace)
    app = make_app(ephemeral=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for words in ("notes", "add"):
            main_screen(app).submit(f"/resume {words}")
            await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and bool(app.screen.sessions))
            assert app.screen.query_text == words
            await pilot.press("escape", "escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, SessionPickerScreen))
        assert app.runtime.session is None or app.runtime.session.path.name != "notes"
        main_screen(app).submit("/resume add01")  # an id's prefix: that session
        await wait_for(pilot, lambda: "add0123456789abc" in str(getattr(app.runtime.session, "path", "")))


async def test_a_filter_lists_the_sessions_it_names_first(workspace: Path) -> None:
    # 40 sessions "task N: ...": typing "task 7" listed the newest sessions whose id held a 7 before "task 7: ..."
    # (every word was looked up in the ids and models too, and the list kept its newest-first order).
    for number in range(40):
        writer = SessionWriter(workspace, f"{number:02d}77aaaabbbbcccc")
        writer.user(None, f"task {number}: look into the parser")
        path = writer.write(name=f"2025-03-04T09-00-{number:02d}-000Z_{number:02d}77aaaabbbbcccc.jsonl")
        os.utime(path, (NOW.timestamp() - 1000 + number,) * 2)  # the higher the number, the newer
    app = HostApp(SessionPickerScreen(workspace, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await loaded(app, pilot)
        assert names(app)[0] == "task 39: look into the parser"
        await pilot.press(*"task 7")
        shown = names(app)
        assert shown[0] == "task 7: look into the parser", shown[:5]
        assert len(shown) == 40  # the others still listed (each id holds a 7), after it
        await pilot.press("enter")
    assert app.results[0].name.startswith("2025-03-04T09-00-07")


async def test_the_open_session_is_marked(workspace: Path, tmp_path: Path) -> None:
    paths = make_sessions(workspace, tmp_path / "other")
    current = SessionManager.open(paths["verbose"])
    app = HostApp(SessionPickerScreen(workspace, current=current, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await loaded(app, pilot)
        table = app.screen.query_one(DataTable)
        marks = [str(table.get_row_at(row)[0])[:2] for row in range(table.row_count)]
        assert marks == ["  ", "● "]
        await pilot.press(*"verb")
        assert [str(table.get_row_at(row)[0])[:2] for row in range(table.row_count)] == ["● "]


async def test_typing_a_filter_keeps_the_rows_and_the_columns(workspace: Path, tmp_path: Path) -> None:
    """Each key of the filter made every row again (names made safe and styled) and sized the columns for the rows
    left: the Session column narrowed and the others moved under the user's eyes as they typed."""
    make_sessions(workspace, tmp_path / "other")
    app = HostApp(SessionPickerScreen(workspace, now=NOW))
    async with app.run_test(size=(100, 20)) as pilot:
        await loaded(app, pilot)
        table = app.screen.query_one(DataTable)
        widths = [column.get_render_width(table) for column in table.ordered_columns]
        verbose = table.get_row_at(1)
        await pilot.press(*"verb")
        assert names(app) == ["Add a --verbose flag"]
        assert [column.get_render_width(table) for column in table.ordered_columns] == widths
        assert all(kept is made for kept, made in zip(table.get_row_at(0), verbose, strict=True))
        await pilot.press("escape")  # the filter cleared: every row again, the same
        assert names(app) == ["Fix the failing parser test", "Add a --verbose flag"]
        assert table.get_row_at(1)[0] is verbose[0]
