"""A move of a definition between Python files is checked before the run ends: left in the source, asked once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.agent.moves import Move, move_in
from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import Notice
from navtui.core.messages import is_nudge
from tests.fakes import Text
from tests.fakes.server import FakeServer

UTILS = (
    "def slug(text):\n    return text.lower()\n\n\n"
    "def parse_duration(text):\n    return int(text[:-1]) * 60\n\n\n"
    "def shout(text):\n    return text.upper()\n"
)
MAIN = "from utils import parse_duration, shout, slug\n\nprint(slug('A'), parse_duration('3m'), shout('x'))\n"
TIMEPARSE = "def parse_duration(text):\n    return int(text[:-1]) * 60\n"


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        (
            "Move the function parse_duration from utils.py into a new module timeparse.py, update the imports in "
            "main.py, then run python3 main.py.",
            Move("parse_duration", "utils.py", "timeparse.py"),
        ),
        ("move `Cart` from shop/models.py to shop/cart.py", Move("Cart", "shop/models.py", "shop/cart.py")),
        ("Move the class Cart from a.py to the file b.py.", Move("Cart", "a.py", "b.py")),
        ("Move on to the next step in main.py.", None),
        ("Move f from a.py to b.py and g from a.py to c.py.", None),  # two moves: not guessed
        ("Move the tests from tests.py to test_app.py", Move("tests", "tests.py", "test_app.py")),
    ],
)
def test_the_move_a_request_asks_for(prompt: str, expected: Move | None) -> None:
    assert move_in(prompt) == expected


async def test_a_move_left_in_the_source_is_asked_once_to_finish(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "utils.py").write_text(UTILS, encoding="utf-8")
    (workspace / "main.py").write_text(MAIN, encoding="utf-8")
    settings = {"providers": {"tool_protocol": "edits", "context_window": 4096}}
    (navtui_home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    rt = Runtime.create(
        LaunchOptions(cwd=workspace, provider="openai", base_url=fake_server.url + "/v1", model="m", approval="yolo")
    )
    # The eval's move_function: timeparse.py written, "The task is done.", utils.py and main.py left as they were.
    fake_server.script(Text("timeparse.py\n```python\n" + TIMEPARSE + "```\n"))
    fake_server.script(Text("The task is done."))
    fake_server.script(Text("utils.py\n```python\n" + UTILS.replace(TIMEPARSE + "\n\n", "") + "```\n"))
    fake_server.script(Text("Done."))
    fake_server.script(Text("Still done."))
    prompt = "Move the function parse_duration from utils.py into a new module timeparse.py, update the imports."
    try:
        events = [e async for e in rt.run(prompt)]
        requests = [r.json for r in fake_server.chat_requests]
        third = requests[2]["messages"][-1]["content"]
        (nudge,) = [line for line in third.splitlines() if line.startswith("The move is not finished")]
        assert nudge == (
            "The move is not finished: utils.py still defines parse_duration, and so does timeparse.py. A move takes "
            "it out of utils.py: the code that uses it imports it from timeparse.py instead. Write the new utils.py "
            "now: the line utils.py on its own, then a fenced block with the whole new content of the file without "
            "parse_duration."
        )
        assert is_nudge(nudge)
        assert "parse_duration" not in (workspace / "utils.py").read_text()
        # The write that took it out says who still imports it from there.
        fourth = requests[3]["messages"][-1]["content"]
        assert (
            "Note: utils.py no longer defines parse_duration, which main.py imports; it is in timeparse.py now: "
            "change the import in main.py to `from timeparse import parse_duration`."
        ) in fourth.splitlines()
        assert "Put it back" not in fourth
        assert any(isinstance(e, Notice) and "asking the model once to finish the move" in e.text for e in events)
        assert len(requests) == 4  # asked once
    finally:
        await rt.aclose()
