"""The status line when narrow: the model, the context meter and the approval mode stay (parts go by priority),
during a turn and during an approval too; the snapshots show it at 80 columns."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App, ComposeResult

from navtui.app.app import NavtuiApp
from navtui.app.screens.approval import ApprovalScreen
from navtui.core.events import TextDelta, ToolCallStarted, ToolOutput
from navtui.core.messages import ToolCall
from navtui.tools.approval import ApprovalRequest
from navtui.widgets.status_line import StatusData, StatusLine
from tests.app.conftest import wait_for
from tests.app.scripted_runtime import ScriptedRuntime

FULL = StatusData(
    cwd="/home/user/src/a-project-with-a-long-name",
    git_branch="feature/narrow-status",
    git_dirty=True,
    git_unstaged=3,
    git_untracked=2,
    provider="ollama",
    model="qwen2.5-coder:7b",
    context_tokens=4100,
    context_window=32768,
    tokens_in=1840,
    tokens_out=212,
    cost=0.01,
    approval="ask",
    sandbox="workspace-write",
    handover_count=1,
    advisor_on=True,
    background_jobs=1,
)


class _Line(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")


async def shown(width: int, data: StatusData, activity: str | None = None) -> str:
    app = _Line()
    async with app.run_test(size=(width, 3)) as pilot:
        line = app.query_one(StatusLine)
        line.update_status(data)
        if activity is not None:
            line.set_working(True, activity)
        await pilot.pause()
        return line.render_line(0).text


@pytest.mark.parametrize(
    "activity", [None, "working", "waiting for approval", "waiting for the model · 12 s (Esc stops)"]
)
async def test_at_80_columns_model_context_and_mode_stay(activity: str | None) -> None:
    text = await shown(80, FULL, activity)
    assert "qwen2.5-coder:7b++" in text and "ctx 4.1k/32.8k 13%" in text and "│ ask" in text, text
    assert "⇄1" in text  # the markers come before the directory and git go
    assert "↑1.8k" not in text  # tokens and cost went first
    if activity is not None:
        assert activity[:8] in text  # the label, shortened if it must be
    assert len(text.rstrip()) <= 80


async def test_wide_enough_shows_everything() -> None:
    text = await shown(200, FULL, "working")
    for part in ("a-project-with-a-long-name", "feature/narrow-status *3 ?2", "(ollama)", "↑1.8k ↓212 $0.01",
                 "ask · workspace-write", "⇄1", "⚙1", "working"):  # fmt: skip
        assert part in text, (part, text)


async def test_at_100_columns_during_an_approval_the_directory_is_cut_before_git_goes() -> None:
    # Seen in tmux at 100 columns, waiting for approval: the branch and its counts went while the directory kept
    # its whole path.
    data = StatusData(
        cwd="/home/user/src/a-project",
        git_branch="main",
        git_untracked=2,
        provider="ollama",
        model="qwen2.5-coder:7b",
        context_tokens=4100,
        context_window=32768,
        approval="ask",
    )
    text = await shown(100, data, "waiting for approval")
    assert text.startswith(" …/a-project  main ?2 │ qwen2.5-coder:7b │ ctx 4.1k/32.8k 13% │ ask"), text
    assert "(ollama)" not in text and "waiting for approval" in text and len(text.rstrip()) <= 100
    wide = await shown(120, data, "waiting for approval")  # room for all: the whole path
    assert wide.startswith(" /home/user/src/a-project  main ?2 │ qwen2.5-coder:7b (ollama)"), wide
    root = await shown(60, StatusData(cwd="/", git_branch="main", model="m", approval="ask"), "working")
    assert root.startswith(" /  main │ m"), root  # "…/" would be longer than "/"


async def test_very_narrow_keeps_the_essentials_first() -> None:
    text = await shown(50, FULL, "working")
    assert text.startswith(" qwen2.5-coder:7b") and "ctx 4.1k/32.8k 13%" in text and "ask" in text, text


SIZE = (80, 24)


def test_narrow_status_during_a_turn(snap_compare: Any) -> None:
    call = ToolCall(id="t1", name="shell", arguments={"command": "pytest -q"})
    runtime = ScriptedRuntime(
        scripts=[
            [TextDelta(text="Running the tests."), ToolCallStarted(call=call), ToolOutput(call_id="t1", text="..\n")]
        ],
        hold=True,
        status_info={"tokens_in": 1840, "tokens_out": 212, "context_tokens": 4100, "handover_count": 1},
    )

    async def run(pilot: Any) -> None:
        await pilot.pause()
        pilot.app.screen.submit("run the tests")
        await wait_for(pilot, lambda: pilot.app.screen.running)
        await pilot.pause(0.2)

    assert snap_compare(
        NavtuiApp(runtime, animate=False, check_provider=True, watch_themes=False), terminal_size=SIZE, run_before=run
    )


def test_narrow_status_during_an_approval(snap_compare: Any) -> None:
    request = ApprovalRequest(tool="shell", tier="exec", summary="make test", reason="runs a command")
    runtime = ScriptedRuntime(status_info={"tokens_in": 1840, "tokens_out": 212, "context_tokens": 4100})

    async def run(pilot: Any) -> None:
        await pilot.pause()
        screen = pilot.app.screen
        screen.turns.running = True  # as during a turn: the approval came from it
        screen.turns.show_waiting(True)
        pilot.app.push_screen(ApprovalScreen(request))
        await pilot.pause(0.2)

    assert snap_compare(
        NavtuiApp(runtime, animate=False, check_provider=True, watch_themes=False), terminal_size=SIZE, run_before=run
    )


async def test_help_explains_each_marker_and_the_prompt_syntax(make_app) -> None:
    from navtui.app.screens.help import HelpScreen
    from tests.app.conftest import main_screen, rendered_text, settle

    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        main_screen(app).submit("/help")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        status = rendered_text(app.screen.query_one("#help-status"))
        prompt = rendered_text(app.screen.query_one("#help-prompt"))
    for marker in (
        "*3 +1 ?2",
        "++",
        "ctx 4.1k/32.8k 13%",
        "↑1.8k ↓212 $0.01",
        "ask · workspace-write",
        "⇄2",
        "⚙1",
        "mcp",
    ):
        assert marker in status, marker
    for syntax in ("@path", "!cmd", "$code", "//text"):
        assert syntax in prompt, syntax


def test_typing_a_bang_shows_the_shell_mode(snap_compare: Any) -> None:
    async def type_bang(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press(*"!ls")
        await pilot.pause()

    assert snap_compare(
        NavtuiApp(ScriptedRuntime(), animate=False, check_provider=True, watch_themes=False),
        terminal_size=SIZE,
        run_before=type_bang,
    )


async def test_the_spinner_s_frames_are_drawn_once_and_show_what_a_fresh_line_shows() -> None:
    # While the agent works the line changes only in the spinner's glyph, ten times a second: each glyph's line is
    # drawn once and kept until the data, the label or the looks change. A kept line must be the line drawn afresh.
    app = _Line()
    async with app.run_test(size=(100, 3)) as pilot:
        line = app.query_one(StatusLine)
        line.update_status(FULL)
        line.set_working(True, "working")
        drawn: list[int] = []
        render = line.render

        def counted() -> Any:
            drawn.append(line.spinner_index or 0)
            return render()

        line.render = counted  # type: ignore[method-assign]
        first: list[list[Any]] = []
        for index in range(20):
            line.tick(index)
            await pilot.pause()
            first.append(list(line.render_line(0)))
        assert sorted(set(drawn)) == list(range(10)) and len(drawn) == 10  # the second turn is all kept lines
        for index in range(10):  # the same as a line drawn afresh (no kept lines)
            line._frames.clear()
            line.tick(index)
            assert list(line.render_line(0)) == first[index] == first[index + 10]
        assert len({tuple(segments) for segments in first}) == 10
        line.set_working(True, "waiting for approval")  # a new label: drawn again
        line.tick(3)
        await pilot.pause()
        assert "waiting for approval" in line.render_line(0).text
        line.update_status(StatusData(**{**FULL.__dict__, "model": "llama3.2:3b"}))
        line.tick(3)
        await pilot.pause()
        assert "llama3.2:3b" in line.render_line(0).text and "qwen2.5" not in line.render_line(0).text
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"  # new looks: drawn again
        await pilot.pause()
        line.tick(3)
        fresh = list(line.render_line(0))
        line._frames.clear()
        line.tick(3)
        assert list(line.render_line(0)) == fresh


async def test_the_cached_count_goes_before_tokens_and_cost() -> None:
    """In tmux at 120 columns the Anthropic line lost ↑ ↓ and $ when the cached count was part of them."""
    data = StatusData(
        cwd="/tmp/prov/ws",
        git_branch="master",
        git_untracked=1,
        provider="anthropic",
        model="claude-sonnet-4-5",
        context_tokens=3100,
        context_window=200_000,
        tokens_in=7900,
        tokens_out=110,
        tokens_cached=4700,
        cost=0.02,
        approval="yolo",
        sandbox="workspace-write",
    )
    wide = await shown(160, data)
    assert "↑7.9k ↓110 $0.02 · 4.7k cached │ yolo" in wide
    narrow = await shown(120, data)
    assert "↑7.9k ↓110 $0.02 │ yolo" in narrow and "cached" not in narrow
