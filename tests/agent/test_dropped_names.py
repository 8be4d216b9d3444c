"""A write that drops a name other files import says so, except for files the same reply writes after it."""

from __future__ import annotations

from pathlib import Path

from navtui.core.events import ToolCallFinished
from tests.agent.test_check import make_runtime, run
from tests.fakes import Text, ToolCall
from tests.fakes.server import FakeServer

USERS = "def get_user(user_id):\n    return {1: 'ann'}.get(user_id)\n"


def repo(workspace: Path) -> None:
    (workspace / "users.py").write_text(USERS, encoding="utf-8")
    (workspace / "views.py").write_text("from users import get_user\n\nprint(get_user(1))\n", encoding="utf-8")
    (workspace / "admin.py").write_text("from users import get_user\n\nprint(get_user(2))\n", encoding="utf-8")


async def test_a_rename_in_one_reply_names_only_the_importers_it_leaves(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    repo(workspace)
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(ToolCall("read", {"path": "users.py"}))
    fake_server.script(
        ToolCall("write", {"path": "users.py", "content": USERS.replace("get_user", "fetch_user")}),
        ToolCall("write", {"path": "views.py", "content": "from users import fetch_user\n\nprint(fetch_user(1))\n"}),
    )
    fake_server.script(Text("Renamed."))
    events = await run(rt, "Rename get_user to fetch_user.")
    first = next(
        e
        for e in events
        if isinstance(e, ToolCallFinished) and e.call.arguments.get("path") == "users.py" and e.call.name == "write"
    )
    # views.py is written by the next call of the same reply: only admin.py is left importing the old name.
    assert "Note: users.py no longer defines get_user, which admin.py imports." in first.result.text
    assert "views.py" not in first.result.text


async def test_under_the_edits_protocol_the_model_reads_the_note(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The protocol shows a write's first line only (the file itself is shown afresh); the note must get through.
    from tests.agent import test_edits_protocol as edits

    repo(workspace)
    rt = edits.make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("users.py\n```python\n" + USERS.replace("get_user", "fetch_user") + "```\n"))
    fake_server.script(Text("Done."))
    try:
        await edits.run(rt, "Rename get_user to fetch_user in users.py.")
    finally:
        await rt.aclose()
    later = edits.user_text(fake_server.chat_requests[1].json)
    assert "Note: users.py no longer defines get_user, which admin.py, views.py import." in later


def test_the_edits_protocol_passes_every_note_on() -> None:
    from navtui.core.messages import ToolCall as Call
    from navtui.core.messages import ToolResultMessage
    from navtui.providers.edits import render_result

    call = Call(id="c1", name="write", arguments={"path": "t.py", "content": "x"})
    text = (
        "Replaced t.py: 5 lines (90 B), +3 -0 lines.\nWarning: something the file shows anyway.\n"
        "Note: t.py imports chunk from lists, then defines its own, which hides the import: ...\n"
        "Note: t.py no longer defines f, which main.py imports. Put it back, or change what uses it.\n"
        "Note: t.py imports g from lists, which does not define it. Define it there, or import it from the module "
        "that does."
    )
    shown = render_result(call, ToolResultMessage.of(call, text))
    assert shown.splitlines() == [text.splitlines()[0], *text.splitlines()[2:]]
