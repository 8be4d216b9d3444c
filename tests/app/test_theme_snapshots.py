"""The real main screen (a finished turn with Markdown, code, a tool card and a diff) in every built-in theme."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import navtui.themes
from navtui.core.events import TextDelta, ToolCallFinished, ToolCallStarted
from navtui.core.messages import TextBlock, ToolCall, ToolResultMessage
from tests.app.scripted_runtime import ScriptedRuntime
from tests.app.test_snapshots import ANSWER, DIFF, app_with, submit

BUILTIN = sorted(p.stem for p in Path(navtui.themes.__file__).parent.glob("*.json"))


@pytest.mark.parametrize("theme", BUILTIN)
def test_main_screen_in_theme(snap_compare: Any, theme: str) -> None:
    read = ToolCall(id="t0", name="read", arguments={"path": "config.py"})
    edit = ToolCall(id="t1", name="edit", arguments={"path": "config.py"})
    read_result = ToolResultMessage(tool_call_id="t0", tool_name="read", content=[TextBlock(text="1\tdef parse")])
    edit_result = ToolResultMessage(
        tool_call_id="t1", tool_name="edit", content=[TextBlock(text="Edited config.py")], details={"diff": DIFF}
    )
    runtime = ScriptedRuntime(
        scripts=[
            [
                ToolCallStarted(call=read),
                ToolCallFinished(call=read, result=read_result),
                ToolCallStarted(call=edit),
                ToolCallFinished(call=edit, result=edit_result),
                *[TextDelta(text=ANSWER[i : i + 9]) for i in range(0, len(ANSWER), 9)],
            ]
        ],
        status_info={"tokens_in": 1840, "tokens_out": 212, "context_tokens": 4100},
    )

    async def run_before(pilot: Any) -> None:
        pilot.app.theme = theme
        await submit(pilot, "why does config parsing fail?")

    assert snap_compare(app_with(runtime), terminal_size=(100, 40), run_before=run_before)
