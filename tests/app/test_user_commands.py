"""``!cmd`` and ``$code`` from the prompt: run here, shown as a card, saved as pi/omp save them, seen by the model."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from asyncio import CancelledError
from pathlib import Path
from typing import Any

from navtui.agent.user_commands import parse_user_command, prompt_mode
from navtui.widgets.items import AssistantItem, ToolItem
from navtui.widgets.prompt import PromptEditor
from navtui.widgets.transcript import AssistantView
from tests.app.conftest import main_screen, settle, transcript, wait_for
from tests.fakes import Text, ToolCall

SIZE = (100, 30)


def test_prefixes() -> None:
    assert parse_user_command("!ls -la") == parse_user_command("  ! ls -la ")
    assert (parse_user_command("!!git log").kind, parse_user_command("!!git log").excluded) == ("bash", True)  # type: ignore[union-attr]
    assert parse_user_command("$$print(1)").kind == "python"  # type: ignore[union-attr]
    assert parse_user_command("!") is None and parse_user_command("hello") is None
    assert (prompt_mode("!"), prompt_mode(" $x"), prompt_mode("hi !")) == ("bash", "python", None)


async def test_shell_and_python_runs_are_shown_saved_and_sent(make_app: Any, fake_server: Any, workspace: Path) -> None:
    (workspace / "note.txt").write_text("hello from the file\n")
    fake_server.script(Text("ok"))
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        for typed in ("!cat note.txt", "!!echo private", "$print(6 * 7)"):
            screen.submit(typed)
            await settle(app, pilot)
        cards = [item for item in transcript(app).items if isinstance(item, ToolItem)]
        assert [(c.name, c.status, c.result.strip()) for c in cards] == [
            ("bash", "success", "hello from the file"),
            ("bash", "success", "private"),
            ("python", "success", "42"),
        ]
        screen.submit("what did you see?")
        await settle(app, pilot)
        runtime = screen.runtime
        lines = [json.loads(line) for line in runtime.session.path.read_text().splitlines()[1:]]
    sent = [m["content"] for m in fake_server.chat_requests[-1].json["messages"] if m["role"] == "user"]
    assert sent[0].startswith("Ran `cat note.txt`") and "hello from the file" in sent[0]
    assert sent[1].startswith("Ran Python:") and "42" in sent[1] and sent[-1] == "what did you see?"
    assert not any("private" in text for text in sent)  # "!!" stays out of the model's context
    runs = [line["message"] for line in lines if line.get("message", {}).get("role", "").endswith("Execution")]
    assert [(r["role"], r.get("command") or r.get("code"), r["exitCode"]) for r in runs] == [
        ("bashExecution", "cat note.txt", 0),
        ("bashExecution", "echo private", 0),
        ("pythonExecution", "print(6 * 7)", 0),
    ]
    assert runs[1]["excludeFromContext"] is True and "excludeFromContext" not in runs[0]


async def test_the_prompt_border_says_when_the_model_will_not_see_a_run(make_app: Any, fake_server: Any) -> None:
    # "!!" and "$$" keep a run out of the model's context; the border said "the model sees its output" anyway.
    fake_server.script(Text("ok"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        editor = main_screen(app).query_one(PromptEditor)
        await pilot.press("!", "!", "l", "s")
        await pilot.pause()
        assert editor.has_class("-bash-mode")
        assert editor.border_title == "!! shell command: runs here, the model does not see it"
        await pilot.press("home", "delete")  # "!ls": the model sees it again
        await pilot.pause()
        assert editor.border_title == "! shell command: runs here, the model sees its output"
        editor.text = "$$print(1)"
        await pilot.pause()
        assert editor.border_title == "$$ Python: runs here, the model does not see it"


async def test_esc_and_ctrl_c_stop_a_running_command_and_keep_its_output(make_app: Any, workspace: Path) -> None:
    # A "!cmd" that ran long could not be stopped: Esc did nothing, and ctrl+c offered to quit (a second one
    # quit navtui) while the command went on. Each now stops it, as they stop a turn, and what it printed stays.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        for number, key in enumerate(("escape", "ctrl+c")):
            flag = workspace / f"started-{number}"
            screen.submit(f"!echo printed {number}; touch {flag.name}; sleep 60; echo never")
            await wait_for(pilot, flag.exists)
            await pilot.press(key)
            await wait_for(pilot, lambda n=number + 1: len(cards(app)) == n and cards(app)[-1].status != "pending")
            card = cards(app)[-1]
            assert card.status == "error" and f"printed {number}" in card.result and "never" not in card.result
        assert screen.is_attached and app.is_running and not app._notifications  # no "ctrl+c again to quit"
        assert screen.query_one(PromptEditor).text == ""


async def test_quitting_while_a_command_runs_ends_cleanly(make_app: Any, workspace: Path) -> None:
    # ctrl+q while a "!cmd" ran: quitting cancels its worker, whose run (kept alive to keep the output) then set
    # the status line of a screen already taken down: navtui left with a traceback and exit status 1. Which came
    # first was a race; here the run ends after the app for certain: a process of its own session (setsid) holds
    # the output open a moment after the command's group is killed.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main_screen(app).submit("!setsid sh -c 'sleep 2' & touch started; sleep 60")
        await wait_for(pilot, (workspace / "started").exists)
        [worker] = [w for w in app.workers if w.group == "user-command"]
        await pilot.press("ctrl+q")
    # the app waited for it as it shut down: done, or cancelled once more, but no error (and no exit status 1)
    assert worker.is_finished and (worker.error is None or isinstance(worker.error, CancelledError)), worker.error
    assert app.return_code in (0, None)


def cards(app: Any) -> list[ToolItem]:
    return [item for item in transcript(app).items if isinstance(item, ToolItem)]


async def test_a_detached_child_holding_the_output_does_not_hold_the_run(make_app: Any, workspace: Path) -> None:
    # A process of its own session (setsid) keeps the output pipe open: the run waited for it to close, after the
    # command had ended (a terminal gives the prompt back) and after Esc had stopped it (Esc seemed to do nothing).
    app = make_app()
    detached = "setsid sh -c 'echo $$ > child-{n}.pid; exec sleep 300' &"
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            screen = main_screen(app)
            screen.submit("!" + detached.format(n=0) + " echo ended on its own")
            await wait_for(pilot, lambda: len(cards(app)) == 1 and cards(app)[-1].status != "pending", seconds=5)
            assert cards(app)[0].status == "success" and "ended on its own" in cards(app)[0].result
            screen.submit("!" + detached.format(n=1) + " echo printed; touch started; sleep 60; echo never")
            await wait_for(pilot, (workspace / "started").exists)
            await pilot.press("escape")
            await wait_for(pilot, lambda: len(cards(app)) == 2 and cards(app)[-1].status != "pending", seconds=5)
            card = cards(app)[-1]
            assert card.status == "error" and "printed" in card.result and "never" not in card.result
            assert screen.query_one(PromptEditor).text == "" and not screen.turns.running
    finally:
        for number in (0, 1):
            pidfile = workspace / f"child-{number}.pid"
            if pidfile.exists():
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pidfile.read_text()), signal.SIGKILL)


async def test_a_commands_output_shows_in_its_card_while_it_runs(make_app: Any, workspace: Path) -> None:
    # A "!cmd" showed a spinner and nothing else until it ended, where a model's shell call streams its output:
    # a long `!pytest` or `!npm install` looked stuck.
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        main_screen(app).submit("!echo first line; echo 'second line'; touch started; sleep 60")
        await wait_for(pilot, (workspace / "started").exists)
        await wait_for(pilot, lambda: len(cards(app)) == 1 and "second line" in cards(app)[0].output)
        card = cards(app)[0]
        assert card.status == "pending" and card.output == ["first line", "second line"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: cards(app)[0].status != "pending")
        assert "first line\nsecond line" in cards(app)[0].result


async def test_a_command_ending_while_an_answer_streams_leaves_the_answer_whole(
    make_app: Any, fake_server: Any, workspace: Path
) -> None:
    # A "!cmd" still running when a message was sent: its end closed the answer streaming meanwhile, and the rest of
    # the answer began a second block (a paragraph or a code block cut in two). Its card is above the answer.
    gate = threading.Event()
    fake_server.script(Text("The answer begins here "), Text("and ends here.", until=gate))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        screen.submit("!touch started; while [ ! -e go ]; do sleep 0.02; done; echo finished")
        await wait_for(pilot, (workspace / "started").exists)
        screen.submit("explain")
        await wait_for(pilot, lambda: any("begins" in view.text for view in transcript(app).query(AssistantView)))
        (workspace / "go").touch()
        await wait_for(pilot, lambda: cards(app)[0].status == "success")
        gate.set()
        await wait_for(pilot, lambda: not screen.turns.running)
        await settle(app, pilot)
        assert [item.text for item in answers(app)] == ["The answer begins here and ends here."]
        kinds = [type(item).__name__ for item in transcript(app).items]
        assert kinds.index("ToolItem") < kinds.index("AssistantItem")


async def test_a_message_queued_after_a_command_is_sent_when_the_command_ends(
    make_app: Any, fake_server: Any, workspace: Path
) -> None:
    # A turn running, "!cmd" then a message queued: the command ran after the turn, and the message stayed in the
    # queue ("sent after this turn") with nothing running, until the user sent something else.
    gate = threading.Event()
    fake_server.script(Text("first", until=gate))
    fake_server.script(Text("second"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        screen.submit("go on")
        await wait_for(pilot, lambda: screen.turns.running)
        screen.submit("!echo from the shell")
        screen.submit("and then this")
        assert screen.queued == ["!echo from the shell", "and then this"]
        gate.set()
        await wait_for(pilot, lambda: len(fake_server.chat_requests) == 2 and not screen.turns.running)
        await settle(app, pilot)
        assert screen.queued == [] and [item.text for item in answers(app)] == ["first", "second"]
        sent = [m["content"] for m in fake_server.chat_requests[-1].json["messages"] if m["role"] == "user"]
        assert sent[-2].startswith("Ran `echo from the shell`") and sent[-1] == "and then this"


async def test_a_command_ending_while_a_tool_runs_waits_for_its_result_in_the_history(
    make_app: Any, fake_server: Any, workspace: Path
) -> None:
    # A "!cmd" still running when a message was sent, ending while the turn's own tool call runs: what it printed
    # went into the history between the model's call and its result, a request every provider refuses ("tool
    # result answers no open call"), and the session file kept it there for -c.
    fake_server.script(ToolCall("shell", {"command": "while [ ! -e tool-go ]; do sleep 0.02; done; echo tool-done"}))
    fake_server.script(Text("All done."))
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        screen.submit("!touch started; while [ ! -e go ]; do sleep 0.02; done; echo finished")
        await wait_for(pilot, (workspace / "started").exists)
        screen.submit("run the tool")
        await wait_for(pilot, lambda: any(card.name == "shell" for card in cards(app)))
        (workspace / "go").touch()
        await wait_for(pilot, lambda: cards(app)[0].status == "success")
        (workspace / "tool-go").touch()
        await wait_for(pilot, lambda: len(fake_server.chat_requests) == 2 and not screen.turns.running)
        assert fake_server.invalid_requests() == []
        roles = [m["role"] for m in fake_server.chat_requests[-1].json["messages"] if m["role"] != "system"]
        assert roles[-3:] == ["assistant", "tool", "user"] or roles[-2:] == ["assistant", "tool"], roles
        session = screen.runtime.session
        assert session is not None
        replayed = [m.role for m in session.build_context().messages]
        assert replayed[replayed.index("assistant") + 1] == "toolResult", replayed


def answers(app: Any) -> list[AssistantItem]:
    return [item for item in transcript(app).items if isinstance(item, AssistantItem)]


async def test_esc_on_a_queued_command_brings_the_rest_of_the_queue_back(
    make_app: Any, fake_server: Any, workspace: Path
) -> None:
    # As Esc on a turn does: the user is changing course, what was queued after the command is not sent.
    gate = threading.Event()
    fake_server.script(Text("first", until=gate))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = main_screen(app)
        screen.submit("go on")
        await wait_for(pilot, lambda: screen.turns.running)
        screen.submit("!touch started; sleep 60")
        screen.submit("and then this")
        gate.set()
        await wait_for(pilot, (workspace / "started").exists)
        await pilot.press("escape")
        await wait_for(pilot, lambda: cards(app)[0].status != "pending")
        await settle(app, pilot)
        assert screen.queued == [] and screen.query_one(PromptEditor).text == "and then this"
        assert len(fake_server.chat_requests) == 1
