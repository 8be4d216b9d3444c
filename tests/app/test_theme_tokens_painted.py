"""Every omp token navtui promises to paint shows up on screen in its own colour.

A theme gives each token under test a colour no other token has; the main screen is driven through the states
that show them (every thinking level, "!" and "$" in the prompt, a dirty repository, spend, a quote and a link)
and the rendered screens are searched for each colour. A token that paints nothing fails here.
"""

from __future__ import annotations

import re
from typing import Any

from navtui.core.events import TextDelta
from navtui.themes.loader import builtin_themes
from navtui.themes.model import NavTheme
from navtui.themes.textual_theme import to_textual_theme
from navtui.themes.tokens import REQUIRED_TOKENS
from tests.app.scripted_runtime import ScriptedRuntime
from tests.app.test_snapshots import app_with, submit

PAINTED = (  # the tokens that used to be accepted and never painted, and the barely used ones
    "mdQuoteBorder",
    "thinkingOff",
    "thinkingMinimal",
    "thinkingLow",
    "thinkingMedium",
    "thinkingHigh",
    "thinkingXhigh",
    "bashMode",
    "pythonMode",
    "statusLineSpend",
    "statusLineStaged",
    "statusLineDirty",
    "statusLineUntracked",
    "statusLineSubagents",
    "statusLineOutput",
    "statusLineCost",
    "border",
    "mdLink",
    "mdLinkUrl",
)
ANSWER = "Read this:\n\n> a quoted line\n\nand [the docs](https://example.com/docs).\n"


def distinct_theme() -> NavTheme:
    """The dark theme with each token of PAINTED in a colour of its own (and unused by any other token)."""
    base = builtin_themes()["dark"]
    taken = {base.color(token) for token in REQUIRED_TOKENS}
    colours: dict[str, str] = {}
    value = 0x10305
    for token in PAINTED:
        while (colour := f"#{value:06x}") in taken:
            value += 0x030507
        colours[token] = colour
        value += 0x0B0D07
    return NavTheme(name="distinct", colors={**base.colors, **colours}, export=dict(base.export))


async def test_each_promised_token_paints_something() -> None:
    theme = distinct_theme()
    runtime = ScriptedRuntime(
        scripts=[[TextDelta(text=ANSWER)]],
        status_info={
            "git_branch": "main",
            "git_dirty": True,
            "git_staged": 2,
            "git_unstaged": 3,
            "git_untracked": 1,
            "tokens_in": 1840,
            "tokens_out": 212,
            "cost": 0.42,
            "background_jobs": 1,
        },
        advisor=object(),
    )
    app = app_with(runtime)
    seen: set[str] = set()
    async with app.run_test(size=(110, 40)) as pilot:
        app.register_theme(to_textual_theme(theme))
        app.theme = "distinct"
        await submit(pilot, "explain")
        screen: Any = app.screen

        async def look() -> None:
            await pilot.pause()
            seen.update(colour.lower() for colour in re.findall(r"#[0-9a-fA-F]{6}\b", app.export_screenshot()))

        for level in ("off", "minimal", "low", "medium", "high", "xhigh"):
            runtime.thinking_level = level  # type: ignore[attr-defined]
            screen.paint_prompt_border()
            await look()
        for typed in ("!ls", "$print(1)"):
            screen.set_prompt(typed)
            await look()
    missing = [token for token in PAINTED if theme.colors[token] not in seen]
    assert missing == []
