"""How the app looks (pytest-textual-snapshot): fixed size, a scripted runtime with a fixed directory and
token counts, no cursor blink, no spinner animation. Review the SVGs (snapshot_report.html) before updating."""

from __future__ import annotations

from typing import Any

from textual.command import CommandList

from navtui.agent.model_control import ProviderStatus
from navtui.app.app import NavtuiApp
from navtui.app.commands import CommandRegistry
from navtui.app.screens.approval import ApprovalScreen
from navtui.app.screens.help import HelpScreen
from navtui.core.events import AgentError, TextDelta, ThinkingDelta, ToolCallFinished, ToolCallStarted, ToolOutput
from navtui.core.messages import TextBlock, ToolCall, ToolResultMessage
from navtui.tools.approval import ApprovalRequest
from navtui.widgets.tool_card import ToolCard
from tests.app.conftest import wait_for
from tests.app.scripted_runtime import ScriptedRuntime

SIZE = (100, 30)

ANSWER = """The bug is in `parse_line`: it splits on **every** colon, so a URL breaks the key.

## Fix

Split once, from the left:

```python
def parse_line(line: str) -> tuple[str, str]:
    key, _, value = line.partition(":")
    return key.strip(), value.strip()
```

- keys keep their case
- values may contain `:` now
"""

DIFF = """--- a/config.py
+++ b/config.py
@@ -10,4 +10,4 @@
 def parse_line(line: str) -> tuple[str, str]:
-    key, value = line.split(":")
+    key, _, value = line.partition(":")
     return key.strip(), value.strip()
"""


def app_with(runtime: ScriptedRuntime) -> NavtuiApp:
    return NavtuiApp(runtime, animate=False, check_provider=True, watch_themes=False)


async def submit(pilot: Any, text: str) -> None:
    """Send ``text`` and wait for the turn to end (its streams are flushed when it does) and the status line."""
    await pilot.pause()
    screen = pilot.app.screen
    screen.submit(text)
    await wait_for(pilot, lambda: not screen.running)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_empty_start_screen(snap_compare: Any) -> None:
    assert snap_compare(app_with(ScriptedRuntime()), terminal_size=SIZE)


def test_no_ollama_start_screen(snap_compare: Any) -> None:
    runtime = ScriptedRuntime(
        provider_status=ProviderStatus(
            False,
            "Ollama is not running at http://127.0.0.1:11434 (ConnectError)",
            "start it with `ollama serve`, or point -b/--base-url or OLLAMA_HOST at it",
        )
    )
    assert snap_compare(app_with(runtime), terminal_size=SIZE, run_before=lambda pilot: pilot.pause(0.1))


def test_finished_turn_with_markdown_and_code(snap_compare: Any) -> None:
    deltas = [TextDelta(text=ANSWER[i : i + 7]) for i in range(0, len(ANSWER), 7)]
    runtime = ScriptedRuntime(
        scripts=[[ThinkingDelta(text="The colon split looks wrong for URLs."), *deltas]],
        status_info={"tokens_in": 1840, "tokens_out": 212, "context_tokens": 4100},
    )
    assert snap_compare(
        app_with(runtime), terminal_size=SIZE, run_before=lambda pilot: submit(pilot, "why does config parsing fail?")
    )


def test_running_tool_card(snap_compare: Any) -> None:
    call = ToolCall(id="t1", name="shell", arguments={"command": "pytest -q tests/test_config.py"})
    output = "".join(f"tests/test_config.py::test_case_{i} PASSED\n" for i in range(1, 9))
    runtime = ScriptedRuntime(
        scripts=[
            [
                TextDelta(text="Let me run the config tests."),
                ToolCallStarted(call=call),
                ToolOutput(call_id="t1", text=output),
            ]
        ],
        hold=True,
    )
    assert snap_compare(
        app_with(runtime), terminal_size=SIZE, run_before=lambda pilot: submit_running(pilot, "run the tests")
    )


async def submit_running(pilot: Any, text: str) -> None:
    """Send ``text`` to a runtime that holds its turn open: wait until the tool card shows the streamed output."""
    await pilot.pause()
    screen = pilot.app.screen
    screen.submit(text)

    def output_shown() -> bool:
        cards = screen.transcript.widgets_of(ToolCard)
        return bool(cards) and bool(cards[0].item.output)

    await wait_for(pilot, output_shown)
    await pilot.pause()


def test_error_card_and_failed_tool(snap_compare: Any) -> None:
    call = ToolCall(id="t1", name="read", arguments={"path": "conf/missing.toml"})
    result = ToolResultMessage(
        tool_call_id="t1",
        tool_name="read",
        content=[TextBlock(text="File not found: conf/missing.toml")],
        is_error=True,
    )
    runtime = ScriptedRuntime(
        scripts=[
            [
                ToolCallStarted(call=call),
                ToolCallFinished(call=call, result=result),
                AgentError(
                    message="Ollama returned 500: model runner crashed (out of memory)",
                    hint="try a smaller model or lower providers.num_ctx_cap",
                ),
            ]
        ]
    )
    assert snap_compare(
        app_with(runtime), terminal_size=SIZE, run_before=lambda pilot: submit(pilot, "read the config")
    )


def test_edit_diff_card(snap_compare: Any) -> None:
    call = ToolCall(id="t1", name="edit", arguments={"path": "config.py"})
    result = ToolResultMessage(
        tool_call_id="t1", tool_name="edit", content=[TextBlock(text="Edited config.py")], details={"diff": DIFF}
    )
    runtime = ScriptedRuntime(
        scripts=[[ToolCallStarted(call=call), ToolCallFinished(call=call, result=result), TextDelta(text="Fixed.")]]
    )
    assert snap_compare(app_with(runtime), terminal_size=SIZE, run_before=lambda pilot: submit(pilot, "fix it"))


def test_approval_modal(snap_compare: Any) -> None:
    request = ApprovalRequest(tool="edit", tier="write", summary="config.py", reason="changes files", preview=DIFF)

    async def open_modal(pilot: Any) -> None:
        await pilot.pause()
        pilot.app.push_screen(ApprovalScreen(request))
        await pilot.pause()

    assert snap_compare(app_with(ScriptedRuntime()), terminal_size=SIZE, run_before=open_modal)


def test_command_palette(snap_compare: Any) -> None:
    async def open_palette(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        for widget in pilot.app.screen.query("Input"):
            widget.cursor_blink = False
        await pilot.press(*"mod")
        # the matches arrive from a worker: all eight of them, however slow the machine
        await wait_for(pilot, lambda: pilot.app.screen.query_one(CommandList).option_count >= 8)
        await pilot.pause()

    assert snap_compare(app_with(ScriptedRuntime()), terminal_size=SIZE, run_before=open_palette)


def test_help(snap_compare: Any) -> None:
    # The built-in commands only: commands other features register have their own tests and would make this
    # picture change with every help text they edit.
    registry = CommandRegistry()
    registry.load(("navtui.app.commands.builtin", "navtui.app.commands.models", "navtui.app.commands.theme"))

    async def open_help(pilot: Any) -> None:
        await pilot.pause()
        pilot.app.push_screen(HelpScreen(registry.all()))
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen) and pilot.app.screen.is_mounted)
        await pilot.pause()

    assert snap_compare(app_with(ScriptedRuntime()), terminal_size=(100, 40), run_before=open_help)


def test_theme_picker_previews_over_the_app(snap_compare: Any) -> None:
    # The picker is a modal: the transcript behind it shows in the previewed theme (gruvbox, one row down).
    runtime = ScriptedRuntime(scripts=[[TextDelta(text=ANSWER)]])

    async def open_picker(pilot: Any) -> None:
        await submit(pilot, "why does config parsing fail?")
        from navtui.app.screens.theme_picker import ThemePickerScreen

        pilot.app.push_screen(ThemePickerScreen(["dark", "gruvbox", "light"], current="dark"))
        await pilot.pause()
        await pilot.press("down")
        await pilot.pause(0.2)

    assert snap_compare(app_with(runtime), terminal_size=SIZE, run_before=open_picker)


def test_completion_list_under_the_prompt(snap_compare: Any) -> None:
    async def type_command(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press(*"/mo")
        await pilot.pause(0.2)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(app_with(ScriptedRuntime()), terminal_size=SIZE, run_before=type_command)
