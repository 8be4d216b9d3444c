"""Starting the app: the no-provider screen, resuming a session, long sessions and the lazy import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from navtui.widgets.cards import ProviderHelpCard
from navtui.widgets.items import AssistantItem, ProviderHelpItem, ToolItem, UserItem, WelcomeItem
from navtui.widgets.transcript import EarlierMarker
from tests.app.conftest import main_screen, rendered_text, settle, transcript, wait_for
from tests.fakes import Text, ToolCall

SIZE = (100, 32)
CLOSED_PORT_URL = "http://127.0.0.1:9"  # the discard port: nothing listens there


async def test_no_ollama_opens_the_app_and_says_what_to_do(make_app) -> None:
    app = make_app(base_url=CLOSED_PORT_URL, check_provider=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any(isinstance(e, ProviderHelpItem) for e in transcript(app).items))
        await settle(app, pilot)
        [card] = transcript(app).widgets_of(ProviderHelpCard)
        shown = str(card.render())
        assert "ollama serve" in shown and "ollama pull qwen2.5-coder:7b" in shown and "/model" in shown
        assert app.is_running  # still usable: commands work
        main_screen(app).submit("/model")
        await settle(app, pilot)
        assert "Model: qwen2.5-coder:7b" in transcript(app).items[-1].text


async def test_the_start_screen_welcomes_with_model_and_directory(make_app, workspace: Path) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        [welcome] = transcript(app).items
        assert isinstance(welcome, WelcomeItem)
        assert welcome.model == "qwen2.5-coder:7b" and welcome.cwd == str(workspace)


async def test_a_resumed_session_shows_its_transcript(make_app, fake_server, workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    fake_server.script(ToolCall("read", {"path": "a.py"}))
    fake_server.script(Text("x is one"))
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("what is x?")
        await settle(app, pilot)
    resumed = make_app(ephemeral=False, continue_session=True)
    async with resumed.run_test(size=SIZE) as pilot:
        await settle(resumed, pilot)
        kinds = [type(e) for e in transcript(resumed).items]
        assert kinds == [UserItem, ToolItem, AssistantItem]
        tool = transcript(resumed).items[1]
        assert tool.status == "success" and tool.title == "a.py"
        assert transcript(resumed).items[2].text == "x is one"


async def test_a_long_session_mounts_only_the_newest_entries(make_app, fake_server) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        view.load([UserItem(f"message {i}") for i in range(500)])
        await settle(app, pilot)
        assert len(view.item_widgets) == view.window
        assert view.first == 500 - view.window
        marker = view.query_one(EarlierMarker)
        assert marker.display and f"{500 - view.window} earlier entries" in str(marker.render())
        view.scroll_home(animate=False)
        await wait_for(pilot, lambda: view.first < 500 - view.window)
        await settle(app, pilot)
        assert len(view.item_widgets) == 500 - view.first
        assert view.item_widgets[0].item.text == f"message {view.first}"
        assert view.scroll_y > 0  # the content on screen did not jump to the newly mounted top


async def test_new_entries_prune_the_oldest_widgets_while_following(make_app, fake_server) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        view = transcript(app)
        for i in range(view.window + 30):
            view.add(UserItem(f"m{i}"))
        await settle(app, pilot)
        assert len(view.item_widgets) <= view.window + 20
        assert len(view.items) == view.window + 31  # records are all kept (the welcome entry too)


def test_importing_the_app_stays_light() -> None:
    # Everything the first frame needs; the provider SDKs, the index, .gitignore matching, and even pydantic (settings, tools, session
    # models) load after it, with the runtime. The first key typed asks user_commands for the prompt's mode: it must
    # not wait for pydantic either (it did: ~70 ms before the first echo).
    code = (
        "import sys, json; import navtui.app.app, navtui.app.approver, navtui.app.startup, navtui.app.screens.main; "
        "import navtui.agent.user_commands, navtui.agent.advice; "
        "print(json.dumps([m for m in ('anthropic', 'httpx_sse', 'navtui.index', 'ollama', 'pydantic', 'markdown_it', 'mcp', 'navtui.mcp', 'pathspec')"
        " if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2]
    )
    loaded = json.loads(out.stdout)
    assert loaded == [], loaded


async def test_a_turn_that_fails_shows_an_error_card(make_app, fake_server) -> None:
    from tests.fakes import HttpError

    fake_server.script(HttpError(400, "model exploded"))  # a 4xx is not retried
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        main_screen(app).submit("hello")
        await settle(app, pilot)
        from navtui.widgets.cards import ErrorCard

        cards = transcript(app).widgets_of(ErrorCard)
        assert cards and "model exploded" in rendered_text(cards[-1])


async def test_a_resumed_session_packs_its_lines_after_the_first_frame(make_app, fake_server, workspace: Path) -> None:
    from navtui.core.messages import AssistantMessage, TextBlock, UserMessage
    from navtui.session.manager import SessionManager

    session = SessionManager.create(workspace)
    for turn in range(40):
        session.append_message(UserMessage(content=f"question {turn}"))
        session.append_message(AssistantMessage(content=[TextBlock(text=f"answer number {turn}")]))
    session.sync()
    session.close()
    fake_server.script(Text("the answer after the resume"))
    app = make_app(ephemeral=False, continue_session=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        index = app.runtime.session._index  # type: ignore[attr-defined]
        assert [slot is None for slot in index._slots] == [True] * 64 + [False] * 16  # two blocks of 32 packed
        texts = [item.text for item in transcript(app).items]
        assert texts == [text for turn in range(40) for text in (f"question {turn}", f"answer number {turn}")]
        main_screen(app).submit("one more")
        await settle(app, pilot)
        sent = fake_server.chat_requests[-1].body.decode()
        assert all(f"question {turn}" in sent and f"answer number {turn}" in sent for turn in range(40))
        assert transcript(app).items[-1].text == "the answer after the resume"


async def test_resuming_a_damaged_session_in_the_app_continues_it_in_a_new_file(
    make_app, fake_server, workspace: Path
) -> None:
    # `navtui -c` on a session whose first line is damaged continues its history in a new file; /resume of the same
    # file switched to it read-only, and the next message was refused ("The session ... is read-only") and lost.
    fake_server.script(Text("one is one"))
    fake_server.script(Text("two is two"))
    app = make_app(ephemeral=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        screen.submit("what is one?")
        await settle(app, pilot)
        damaged = app.runtime.session.path
        screen.submit("/new")
        await settle(app, pilot)
        lines = damaged.read_text().splitlines(keepends=True)
        damaged.write_text("{broken" + lines[0][1:] + "".join(lines[1:]))
        before = damaged.read_bytes()
        screen.submit(f"/resume {damaged}")
        await settle(app, pilot)
        current = app.runtime.session.path
        assert current != damaged and current.parent == damaged.parent
        said = [getattr(item, "text", "") for item in transcript(app).items]
        assert (
            f"{damaged.name} cannot be appended to (its first line is not a readable session header); "
            f"continuing in a new session file {current.name}." in said
        )
        screen.submit("and two?")
        await settle(app, pilot)
        assert [item.text for item in transcript(app).items if isinstance(item, AssistantItem)] == [
            "one is one",
            "two is two",
        ]
        sent = [m["content"] for m in fake_server.chat_requests[-1].json["messages"] if m["role"] == "user"]
        assert sent == ["what is one?", "and two?"]
    assert damaged.read_bytes() == before
    assert "and two?" in current.read_text() and "what is one?" in current.read_text()
