"""A rename the request asks for is checked for leftovers: which request is one, where the old name is left."""

from __future__ import annotations

import json
from pathlib import Path

from navtui.agent.renames import Rename, rename_in, rename_message
from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import Notice
from tests.fakes import Text
from tests.fakes.server import FakeServer


def test_a_rename_request_names_the_old_and_new_identifier_and_the_files_it_is_bound_to(tmp_path: Path) -> None:
    for name in ("models.py", "store.py", "app.py"):
        (tmp_path / name).write_text("", encoding="utf-8")
    found = rename_in(
        "Rename the class UserRecord to Account in models.py, store.py and app.py, then run it.", tmp_path
    )
    assert found == Rename("UserRecord", "Account", ("models.py", "store.py", "app.py"))
    assert rename_in("rename `compute_total` to `sum_prices`.", tmp_path) == Rename("compute_total", "sum_prices", ())
    assert rename_in("Rename old.py to new.py.", tmp_path) is None  # a file, not an identifier
    assert rename_in("Rename a to b and c to d.", tmp_path) is None  # two renames: not guessed at
    assert rename_in("Add a function that renames files.", tmp_path) is None


def test_the_message_says_where_the_old_name_is_left() -> None:
    text = rename_message(Rename("compute_total", "sum_prices", ()), {"shop/cart.py": [1, 5], "main.py": [2]})
    assert text.startswith("The rename is not finished: compute_total is still used in shop/cart.py (lines 1, 5)")
    assert "and main.py (line 2). Change it to sum_prices there too" in text


async def test_a_rename_left_half_done_is_sent_back_once_with_the_places(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "models.py").write_text("class UserRecord:\n    pass\n", encoding="utf-8")
    (workspace / "app.py").write_text("from models import UserRecord\n\nprint(UserRecord())\n", encoding="utf-8")
    (workspace / "notes.md").write_text("UserRecord is out of scope here\n", encoding="utf-8")
    settings = {"providers": {"tool_protocol": "edits", "context_window": 4096}}
    (navtui_home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    rt = Runtime.create(
        LaunchOptions(cwd=workspace, provider="openai", base_url=fake_server.url + "/v1", model="m", approval="yolo")
    )
    # rename_class in the eval: models.py written, "The task was completed successfully.", app.py left as it was.
    fake_server.script(Text("models.py\n```python\nclass Account:\n    pass\n```\n"))
    fake_server.script(Text("The task was completed successfully."))
    fake_server.script(
        Text("```python\nfrom models import Account\n\nprint(Account())\n```\n")
    )  # no path: the asked file
    fake_server.script(Text("Done."))
    fake_server.script(Text("Still done."))
    try:
        events = [e async for e in rt.run("Rename the class UserRecord to Account in models.py and app.py.")]
        requests = [r.json for r in fake_server.chat_requests]
        assert len(requests) == 4  # asked once; the final "Done." ends the run
        third = requests[2]["messages"][-1]["content"]
        (nudge,) = [line for line in third.splitlines() if line.startswith("The rename is not finished")]
        assert nudge.startswith("The rename is not finished: UserRecord is still used in app.py (lines 1, 3).")
        assert "notes.md" not in nudge  # the request bound the rename to two files
        assert "Write the new app.py now: the line app.py on its own" in nudge
        assert "Your reply changed no file" not in third  # no reminder naming models.py, the file already done
        assert (workspace / "app.py").read_text() == "from models import Account\n\nprint(Account())\n"
        assert any(isinstance(e, Notice) and "asking the model once to finish the rename" in e.text for e in events)
    finally:
        await rt.aclose()
