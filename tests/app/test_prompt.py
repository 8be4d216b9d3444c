"""The prompt editor: newlines, history across runs, Tab completion, @path attachments, ctrl+c / ctrl+d, and its
rows drawn as TextArea draws them."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from pathlib import Path

from textual import events
from textual._text_area_theme import TextAreaTheme
from textual.widgets import TextArea

from navtui.app.screens.main import MainScreen
from navtui.config.paths import history_path
from navtui.widgets.completion_menu import CompletionMenu
from navtui.widgets.items import NoticeItem, UserItem
from navtui.widgets.prompt import PromptEditor
from tests.app.conftest import main_screen, screen_text, settle, transcript, wait_for
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


async def test_up_and_down_move_between_the_rows_of_a_wrapped_line_before_the_history(make_app, fake_server) -> None:
    # A long paragraph is one line wrapped over several rows: Up on its second row recalled the history (the
    # draft replaced by the previous prompt) instead of going up a row, as Up does between real lines.
    fake_server.script(Text("1"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"first", "enter")
        await settle(app, pilot)
        editor = prompt(app)
        long = " ".join(["word"] * 30)  # 149 columns: two rows in a 100-column prompt
        editor.insert(long)  # as typed: the cursor at its end (149 presses took 10 s of the suite)
        await pilot.pause()
        assert editor.wrapped_document.height == 2
        assert editor.wrapped_document.location_to_offset(editor.cursor_location).y == 1
        await pilot.press("up")
        assert editor.text == long  # the first row, same line
        assert editor.wrapped_document.location_to_offset(editor.cursor_location).y == 0
        await pilot.press("down")
        assert editor.text == long and editor.wrapped_document.location_to_offset(editor.cursor_location).y == 1
        await pilot.press("up", "up")  # from the first row: the history
        assert editor.text == "first"
        await pilot.press("down")
        assert editor.text == long


def menu(app) -> CompletionMenu:
    return main_screen(app).query_one(CompletionMenu)


def shown(app) -> list[str]:
    listed = menu(app)
    return [c.value for c in listed.completion.candidates] if listed.open else []


async def test_tab_completes_slash_commands(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/exp", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "/export " and not menu(app).open
        prompt(app).clear()
        await pilot.press(*"/mod")
        await settle(app, pilot)
        assert shown(app) == ["/model", "/models"]  # listed under the prompt while typing
        assert "show the model" in screen_text(app)  # with each command's help
        await pilot.press("down", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "/models " and shown(app) == ["pull"]  # what /models takes comes next


async def test_the_list_moves_with_arrows_enter_takes_and_esc_closes(make_app, fake_server) -> None:
    fake_server.script(Text("unused"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/appr")
        await settle(app, pilot)
        assert shown(app) == ["/approval"]
        await pilot.press("tab")
        await settle(app, pilot)
        assert prompt(app).text == "/approval " and shown(app) == ["ask", "write", "yolo"]  # its arguments
        await pilot.press("down", "down", "up", "enter")  # ask -> write -> yolo -> write, taken and sent
        await settle(app, pilot)
        assert app.runtime.policy.mode == "write" and prompt(app).text == ""
        await pilot.press(*"/he")
        await settle(app, pilot)
        assert shown(app) == ["/help"]
        await pilot.press("escape")
        await settle(app, pilot)
        assert not menu(app).open and prompt(app).text == "/he" and isinstance(app.screen, MainScreen)
        await pilot.press("up")  # with the list closed, Up is the prompt history again
        await settle(app, pilot)
        assert prompt(app).text == "/approval write"


async def test_enter_sends_what_was_typed_when_nothing_was_picked(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/model")  # /model and /models are listed, /model is what was typed
        await settle(app, pilot)
        assert shown(app) == ["/model", "/models"]
        await pilot.press("enter")
        await settle(app, pilot)
        assert "Model: qwen2.5-coder:7b (ollama)" in transcript(app).items[-1].text
        await pilot.press(*"/the", "enter")  # a partial command: Enter takes /theme, which needs nothing more
        await settle(app, pilot)
        assert type(app.screen).__name__ == "ThemePickerScreen"


async def test_command_arguments_are_listed_theme_and_model_names(make_app, fake_server) -> None:
    fake_server.set_model("qwen2.5-coder:7b")
    fake_server.set_model("llama3.2:3b")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/theme gr")
        await settle(app, pilot)
        assert shown(app) == ["gruvbox"]
        await pilot.press("enter")  # an argument is the last word: taken and sent
        await settle(app, pilot)
        assert app.theme == "gruvbox"
        await pilot.press(*"/model ")
        await settle(app, pilot)
        assert shown(app) == ["llama3.2:3b", "qwen2.5-coder:7b"]  # the server's models
        await pilot.press("enter")  # no argument typed, none picked: /model as it is
        await settle(app, pilot)
        assert "Model: qwen2.5-coder:7b" in transcript(app).items[-1].text
        await pilot.press(*"/model ll", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "/model llama3.2:3b "


async def test_at_paths_are_listed_folders_open_and_the_file_is_attached(
    make_app, fake_server, workspace: Path
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "parser.py").write_text("def parse(): ...\n")
    (workspace / "src" / "printer.py").write_text("")
    fake_server.script(Text("seen"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"look at @")
        await settle(app, pilot)
        assert shown(app) == ["@src/"]
        await pilot.press("enter")  # a folder: taken, and its files listed next; nothing is sent
        await settle(app, pilot)
        assert prompt(app).text == "look at @src/" and shown(app) == ["@src/parser.py", "@src/printer.py"]
        await pilot.press("p", "a", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "look at @src/parser.py " and not menu(app).open
        await pilot.press("enter")
        await settle(app, pilot)
        sent = fake_server.chat_requests[-1].json["messages"][-1]["content"]
        assert sent.startswith("look at @src/parser.py") and "def parse(): ..." in sent
        assert '<attached_file path="src/parser.py">' in sent
        view = transcript(app).widgets_of(type(transcript(app).item_widgets[1]))[0]
        assert "attached: src/parser.py" in str(view.render()) and "def parse" not in str(view.render())


async def test_a_file_whose_name_is_not_utf8_completes_as_shown_and_is_attached(
    make_app, fake_server, workspace: Path
) -> None:
    """The prompt holds such a name only as it shows it (``caf\\xe9.txt``): taken from the list, the file was not
    attached. The real file is, by that name."""
    (workspace / os.fsdecode(b"caf\xe9.txt")).write_text("bonjour\n")  # Latin-1, as an old archive names it
    fake_server.script(Text("seen"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"read @caf", "tab")
        await settle(app, pilot)
        assert prompt(app).text == "read @caf\\xe9.txt "
        await pilot.press("enter")
        await settle(app, pilot)
        sent = fake_server.chat_requests[-1].json["messages"][-1]["content"]
        assert '<attached_file path="caf\\xe9.txt">\nbonjour\n</attached_file>' in sent
        said = [item.text for item in transcript(app).items if isinstance(item, NoticeItem)]
        assert not [text for text in said if "not attached" in text], said


async def test_a_click_on_a_candidate_takes_it(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/ex")
        await settle(app, pilot)
        assert shown(app) == ["/export"]
        await pilot.click(CompletionMenu, offset=(3, 0))
        await settle(app, pilot)
        assert prompt(app).text.startswith("/ex") and prompt(app).text.endswith(" ") and not menu(app).open


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


async def test_a_prompt_cleared_with_ctrl_c_comes_back_with_up(make_app, navtui_home) -> None:
    """ctrl+c pressed for a turn that had just ended cleared a long draft for good: Up brings it back, and it is
    not written to the history file (it was never sent)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"a long draft", "alt+enter", *"of two lines", "ctrl+c")
        assert prompt(app).text == ""
        await pilot.press("up")
        assert prompt(app).text == "a long draft\nof two lines"
        await pilot.press("down")
        assert prompt(app).text == ""
        pasted = "\n".join(f"line {n} of a log" for n in range(40))
        prompt(app).post_message(events.Paste(pasted))  # collapsed into a placeholder
        await pilot.pause()
        assert prompt(app).text.startswith("[pasted")
        await pilot.press("ctrl+c", "up")
        assert prompt(app).text == pasted  # its text, not the placeholder of a paste that is gone
    history = navtui_home / "prompt-history.jsonl"
    assert not history.exists() or "a long draft" not in history.read_text()


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


async def test_keys_typed_faster_than_the_list_follows_are_not_lost(make_app) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/exp")
        await settle(app, pilot)
        assert shown(app) == ["/export"]
        editor = prompt(app)
        fast = editor.completer
        assert fast is not None

        async def slow(line: str, cursor: int):  # the list for the new keys is still being made
            await asyncio.sleep(0.5)
            return await fast(line, cursor)

        editor.completer = slow
        editor._typed = True  # as a key press sets it
        editor.insert("ort")  # keys that arrive before the list follows (tmux send-keys, a fast typist)
        await pilot.press("enter")
        await settle(app, pilot)
        texts = [item.text for item in transcript(app).items if hasattr(item, "text")]
        assert not any("Unknown command" in text for text in texts)
        assert any(text.startswith("Exported the transcript to") for text in texts)


async def test_the_prompt_draws_what_textarea_draws_and_applies_its_css_only_when_styles_change(make_app) -> None:
    # TextArea applies the CSS to its theme at every render (half of what the prompt's rows cost an echo); the prompt
    # applies it again only when the styles, the background or the theme changed: its rows must not tell.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = prompt(app)
        applied: list[int] = []

        def rows(own: bool) -> list[list[object]]:
            editor.refresh()
            region = editor.size.region
            strips = editor.render_lines(region) if own else TextArea.render_lines(editor, region)
            return [list(strip) for strip in strips]

        def same_as_textarea() -> list[list[object]]:
            theme = editor._theme
            apply_css = theme.apply_css
            theme.apply_css = lambda area: (applied.append(1), apply_css(area))[1]  # type: ignore[method-assign]
            drawn = rows(own=True)
            del theme.apply_css
            assert drawn == rows(own=False)
            return drawn

        def applied_to_theme() -> bool:
            """The theme holds what the CSS gives it now (the frames since the change applied it)."""
            name = editor._theme.name
            fresh = editor._themes.get(name) or TextAreaTheme.get_builtin_theme(name)
            assert fresh is not None
            expected = dataclasses.replace(fresh)  # as TextArea makes its theme
            expected.apply_css(editor)
            fields = [field.name for field in dataclasses.fields(expected) if field.name.endswith("style")]
            return all(getattr(expected, field) == getattr(editor._theme, field) for field in fields)

        await pilot.press(*"hello")
        editor.select_all()  # the selection's colours are among what the CSS gives the theme
        dark = same_as_textarea()
        applied.clear()
        same_as_textarea()
        assert applied == []  # nothing changed: the theme's CSS stands
        app.theme = "textual-light"
        await settle(app, pilot)
        assert applied_to_theme()  # by the frames since (before TextArea's own render applies it below)
        light = same_as_textarea()
        assert light != dark
        await pilot.press("home", "!")  # a shell command: the prompt's class, border and colours change
        editor.select_all()
        await settle(app, pilot)
        assert applied_to_theme()
        assert same_as_textarea() != light
        editor.blur()
        await settle(app, pilot)
        assert applied_to_theme()
        same_as_textarea()


async def test_the_border_follows_the_mode_and_the_level_and_a_plain_key_changes_no_class(
    make_app, fake_server
) -> None:
    # The border was painted again at every key: the prompt looked up in the whole DOM and eight classes set. Now
    # only a change of mode (a leading ! or $) or of thinking level touches it.
    fake_server.script(Text("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = prompt(app)
        set_class = editor.set_class
        changed: list[str] = []

        def noted(add: bool, *names: str, **kwargs: bool) -> PromptEditor:
            changed.extend(names)
            return set_class(add, *names, **kwargs)

        editor.set_class = noted  # type: ignore[method-assign]
        await pilot.press("h", "i", " ", "t", "h", "e", "r", "e")
        await pilot.pause()
        assert editor.text == "hi there" and changed == [] and editor.has_class("-thinking-off")
        await pilot.press("home", "!")
        await pilot.pause()
        assert editor.has_class("-bash-mode") and not editor.has_class("-thinking-off")
        assert editor.border_title.startswith("! shell command")
        assert "-bash-mode" in changed
        await pilot.press("backspace")  # the ! again: the level's colour is back
        await pilot.pause()
        assert not editor.has_class("-bash-mode") and editor.has_class("-thinking-off") and editor.border_title is None
        await pilot.press("delete")
        await pilot.pause()
        assert editor.text == "i there"
        await pilot.press("shift+tab")  # the next thinking level
        await settle(app, pilot)
        assert editor.has_class("-thinking-minimal") and not editor.has_class("-thinking-off")


async def test_ctrl_r_searches_the_prompt_history(make_app) -> None:
    # Claude Code's and the shell's ctrl+r: a prompt sent days ago is found by a word of it, not by pressing Up
    # through everything sent since. ctrl+r did nothing.
    from navtui.app.screens.history_search import HistorySearchScreen

    history_path().parent.mkdir(parents=True, exist_ok=True)
    sent = ["fix the parser", "run the tests", "explain parser errors\nwith examples", "commit it"]
    history_path().write_text("".join(json.dumps(text) + "\n" for text in sent))
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press(*"draft", "ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, HistorySearchScreen))
        await pilot.press(*"PARS")
        assert app.screen.matches == ["explain parser errors\nwith examples", "fix the parser"]  # newest first
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, HistorySearchScreen))
        assert prompt(app).text == "fix the parser"
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, HistorySearchScreen))
        assert app.screen.matches[0] == "commit it"  # nothing typed: every prompt, newest first
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HistorySearchScreen))
        assert prompt(app).text == "fix the parser"  # Esc leaves the prompt as it was


async def test_the_list_keeps_one_row_per_candidate_in_a_narrow_terminal(make_app) -> None:
    # At 60 columns a command's help wrapped onto a second row, under the names' column ("status | dump [raw]" under
    # "/advisor"): the list showed half as many commands and read as if the second rows were commands. Each help
    # is now cut with an ellipsis, as Claude Code's list does.
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("/")
        await settle(app, pilot)
        listed = menu(app)
        rows = [listed.render_line(y).text.rstrip() for y in range(listed.size.height)]
        assert len(rows) == min(10, len(shown(app))), rows
        assert [row.split()[0] for row in rows] == shown(app)[: len(rows)], rows
        assert rows[0].startswith("/advisor") and rows[0].endswith("…"), rows
