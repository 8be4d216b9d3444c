"""The interactive start as ``navtui`` does it: the first frame before the runtime, then the runtime."""

from __future__ import annotations

import json
from pathlib import Path

from navtui.agent.runtime import LaunchOptions
from navtui.app.app import NavtuiApp
from navtui.app.approver import UiApprover
from navtui.app.startup import peek_settings
from navtui.app.theme_cache import cache_path
from navtui.config.paths import user_settings_path
from navtui.widgets.items import AssistantItem, ErrorItem, UserItem, WelcomeItem
from navtui.widgets.status_line import StatusLine
from tests.app.conftest import main_screen, settle, transcript, wait_for
from tests.fakes import Text

SIZE = (100, 32)


def deferred_app(fake_server, workspace: Path, *, ephemeral: bool = True, **options) -> NavtuiApp:
    launch = LaunchOptions(
        cwd=workspace,
        provider="ollama",
        base_url=fake_server.url,
        model="qwen2.5-coder:7b",
        ephemeral=ephemeral,
        **options,
    )
    approver = UiApprover()
    app = NavtuiApp(
        None,
        options=launch,
        settings=peek_settings(workspace, launch.overrides()),
        approver=approver,
        animate=False,
        check_provider=False,
        watch_themes=False,
    )
    approver.attach(app)
    return app


async def test_the_runtime_is_built_after_the_first_frame_and_typed_text_waits_for_it(fake_server, workspace) -> None:
    fake_server.script(Text("hello back"))
    app = deferred_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        main = main_screen(app)
        if app.runtime is None:  # the first frame: provisional welcome, prompt already usable
            main.submit("hello")
            assert main.queued == ["hello"]
        await wait_for(pilot, lambda: app.runtime is not None)
        await settle(app, pilot)
        await wait_for(pilot, lambda: not main.running)
        await settle(app, pilot)
        entries = transcript(app).items
        welcome = entries[0]
        assert isinstance(welcome, WelcomeItem) and welcome.provider == "ollama"
        assert [type(e) for e in entries[1:]] == [UserItem, AssistantItem] and entries[2].text == "hello back"
        assert app.screen.query_one(StatusLine).data.model == "qwen2.5-coder:7b"


async def test_a_broken_settings_file_is_reported_in_the_app(fake_server, workspace) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text('{"max_turns": "many"}')
    app = deferred_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any(isinstance(e, ErrorItem) for e in transcript(app).items))
        error = next(e for e in transcript(app).items if isinstance(e, ErrorItem))
        assert error.message.startswith("navtui could not start:") and "max_turns" in error.message
        assert app.runtime is None and app.is_running


async def test_the_theme_is_cached_for_the_next_start(fake_server, workspace) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text(json.dumps({"ui": {"theme": "nord"}}))
    app = deferred_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.theme_registry is not None)
        await settle(app, pilot)
        assert app.theme == "nord"
    assert json.loads(cache_path().read_text())["name"] == "nord"
    again = deferred_app(fake_server, workspace)
    assert again.theme == "nord" and again.theme_registry is None  # the first frame's theme came from the cache
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: again.theme_registry is not None)
        assert again.theme == "nord"


def test_peek_settings_layers_files_and_flags(workspace: Path) -> None:
    user_settings_path().parent.mkdir(parents=True, exist_ok=True)
    user_settings_path().write_text(
        json.dumps({"model": "a", "approval": "yolo", "ui": {"theme": "light", "mounted_entries": 50}})
    )  # the project's "write" tightens the user's "yolo" (it could not loosen it)
    (workspace / ".navtui").mkdir()
    (workspace / ".navtui" / "settings.json").write_text(json.dumps({"approval": "write", "ui": {"theme": "nord"}}))
    settings = peek_settings(workspace, {"model": None, "approval": None})
    assert (settings.model, settings.approval, settings.ui.theme, settings.ui.mounted_entries) == (
        "a",
        "write",
        "nord",
        50,
    )
    assert peek_settings(workspace, {"model": "b", "ui": {"theme": "dark"}}).model == "b"
    user_settings_path().write_text("{not json")
    assert peek_settings(workspace, {}).ui.theme == "nord"


async def test_opening_the_app_in_a_hostile_clone_runs_none_of_its_programs(fake_server, workspace: Path) -> None:
    from tests.hostile_git import hostile_repo, ran

    markers = workspace.parent / "markers"
    hostile_repo(workspace, markers)  # core.fsmonitor, hooks, filters, pager... each would write a marker
    app = deferred_app(fake_server, workspace)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: main_screen(app)._git[0] == "main")  # the status line ran git status
        await settle(app, pilot)
        assert main_screen(app)._git[3] == 1  # a.txt changed: git really read the work tree
    assert ran(markers) == []


async def test_a_resumed_sessions_transcript_is_made_off_the_loop(fake_server, workspace, monkeypatch) -> None:
    """Making a resumed session's items reads every entry of its path: 0.9-1.3 s of a 20,000-entry session at load
    7, on the event loop after the runtime's thread, with the screen frozen (no frame; only the driver's local echo). It is made in
    the thread that builds the runtime; the loop only mounts the newest."""
    import threading

    from navtui.app import session_view
    from navtui.core.messages import AssistantMessage, TextBlock, UserMessage
    from navtui.session.manager import SessionManager

    session = SessionManager.create(workspace)
    for turn in range(100):  # more than one chunk of entries (session_view.CHUNK_ENTRIES)
        session.append_message(UserMessage(content=f"question {turn}"))
        session.append_message(AssistantMessage(content=[TextBlock(text=f"answer {turn}")], stop_reason="stop"))
    session.close()
    made_on: list[int] = []
    make = session_view.session_transcript

    def recorded(entries, **kwargs):  # the function itself, with the thread it ran on noted
        made_on.append(threading.get_ident())
        return make(entries, **kwargs)

    monkeypatch.setattr(session_view, "session_transcript", recorded)
    app = deferred_app(fake_server, workspace, ephemeral=False, resume=session.session_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(transcript(app).items) == 200)
        await settle(app, pilot)
        items = transcript(app).items
        assert items[-1].text == "answer 99" and items[0].text == "question 0"
        assert made_on and threading.get_ident() not in made_on


async def test_a_resumed_sessions_lines_are_each_parsed_once(fake_server, workspace) -> None:
    """The transcript's items are made as the context's pass reads the path: each line is parsed once, where the
    context and the transcript each parsed every line of a 20,000-entry session (0.4 s of CPU more at load 3).
    The items are those made from the path apart."""
    from dataclasses import replace

    from navtui.app.session_view import transcript_items
    from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
    from navtui.session.manager import SessionManager
    from navtui.widgets.items import ToolItem

    session = SessionManager.create(workspace)
    for turn in range(100):  # 300 entries: chunks of items (CHUNK_ENTRIES), more than the index keeps parsed (RECENT)
        call = ToolCall(id=f"call{turn}", name="read", arguments={"path": f"f{turn}.py"})
        session.append_message(UserMessage(content=f"question {turn}"))
        session.append_message(AssistantMessage(content=[TextBlock(text=f"answer {turn}"), call]))
        session.append_message(
            ToolResultMessage(tool_call_id=call.id, tool_name="read", content=[TextBlock(text=f"out {turn}")])
        )
    session.close()
    app = deferred_app(fake_server, workspace, ephemeral=False, resume=session.session_id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.runtime is not None and len(transcript(app).items) == 300)
        await settle(app, pilot)
        resumed = app.runtime.session
        assert resumed is not None
        assert resumed._index.lines_parsed == len(resumed.get_branch()) == 300
        items = transcript(app).items
        untitled = [replace(item, title=None) if isinstance(item, ToolItem) else item for item in items]  # (shown)
        assert untitled == transcript_items(resumed.get_branch())
        assert items[-2].text == "answer 99" and items[-1].result == "out 99"
