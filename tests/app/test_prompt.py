"""The prompt editor: newlines, history across runs, Tab completion, @path attachments, ctrl+c / ctrl+d."""

from __future__ import annotations

from pathlib import Path

from navtui.config.paths import history_path
from navtui.widgets.items import UserItem
from navtui.widgets.prompt import PromptEditor
from tests.app.conftest import main_screen, settle, transcript
from tests.fakes import Text

SIZE = (100, 32)


def prompt(app) -> PromptEditor:
    return main_screen(app).query_one(PromptEditor)


async def test_shift_enter_and_ctrl_j_insert_newlines_and_enter_sends(make_app, fake_server) -> None:
    fake_server.script(Text("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "shift+enter", "b", "ctrl+j", "c")
        assert prompt(app).text == "a\nb\nc"
        await pilot.press("enter")
        await settle(app, pilot)
        assert [e.text for e in transcript(app).items if isinstance(e, UserItem)] == ["a\nb\nc"]


async def test_history_survives_a_restart_and_walks_with_up_and_down(make_app, fake_server) -> None:
    fake_server.script(Text("1"))
    fake_server.script(Text("2"))
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"first", "enter")
        await settle(app, pilot)
        await pilot.press(*"second", "enter")
        await settle(app, pilot)
    assert history_path().read_text().splitlines() == ['"first"', '"second"']
    again = make_app(ephemeral=False)
    async with again.run_test(size=SIZE) as pilot:
        await settle(again, pilot)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt(again).text == "second"
        await pilot.press("up")
        assert prompt(again).text == "first"
        await pilot.press("down", "down")
        assert prompt(again).text == "draft"


async def test_tab_completes_slash_commands(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/exp", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "/export "
        prompt(app).clear()
        await pilot.press(*"/mod", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "/model"  # /model and /models share it; both are offered


async def test_tab_completes_paths_and_an_at_path_is_attached(make_app, fake_server, workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "parser.py").write_text("def parse(): ...\n")
    fake_server.script(Text("seen"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"look at @sr", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "look at @src/"
        await pilot.press("p", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "look at @src/parser.py "
        await pilot.press("enter")
        await settle(app, pilot)
        sent = fake_server.chat_requests[-1].json["messages"][-1]["content"]
        assert sent.startswith("look at @src/parser.py") and "def parse(): ..." in sent
        assert '<attached_file path="src/parser.py">' in sent
        shown = transcript(app).widgets_of(type(transcript(app).item_widgets[1]))[0]
        assert "attached: src/parser.py" in str(shown.render()) and "def parse" not in str(shown.render())


async def test_ctrl_c_clears_then_twice_quits(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"some text", "ctrl+c")
        assert prompt(app).text == "" and app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running  # the first press on an empty prompt only warns
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert not app.is_running


async def test_ctrl_d_quits_only_on_an_empty_prompt(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x", "ctrl+d")
        await pilot.pause()
        assert app.is_running
        prompt(app).clear()
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert not app.is_running
