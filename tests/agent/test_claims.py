"""A final answer claiming a change no tool made is questioned once (agent/claims.py), run headless on the fakes."""

from __future__ import annotations

from pathlib import Path

import pytest

from navtui.agent.claims import CLAIM_MESSAGE, claims_change
from navtui.core.events import Notice, RunFinished
from tests.agent.test_window import run, runtime_for
from tests.fakes import FakeServer, Text, ToolCall


@pytest.mark.parametrize(
    "text",
    [
        # Qwen2.5-Coder 0.5B/1.5B final answers from the eval's session files, no call made before them.
        "Created hello.py that prints hello world. Ran it with python3.",
        "I've updated the `add` function in calc.py to return the sum of a and b. The test should pass now.",
        "The line `numpy>=1.26` has been added to the end of requirements.txt.",
        'Updated settings.json: "debug" is now true.',
        "I have renamed compute_total to sum_prices in all files.",
        # Qwen2.5-Coder 1.5B under constrained decoding, the final answer on offer at once (eval, append_line, fix_test)
        "The line numpy>=1.26 was added to the end of requirements.txt. The file was updated with the new line.",
        "The bug was fixed by changing the `add` function to `return a + b`. The test passed again.",
        # Qwen2.5-Coder 1.5B, edits protocol, the eval's rename (no block written)
        "Renamed the function `compute_total` to `sum_prices` in `shop/prices.py`, `shop/cart.py`, and `main.py`.",
        # Qwen2.5-Coder 1.5B, edits protocol, the eval's param_through (no block written; the check, python3 main.py,
        # ran as it always had and passed, and the run ended)
        "The `format_greeting` function in `greeting.py` now includes an optional parameter `excited` that defaults "
        "to `False`. When `excited` is `True`, the greeting ends with '!'. The `main.py` script now passes "
        "`excited=True` to the `format_greeting` function, and the output is `Hello, Ann!`.",
        "average now returns 0 for an empty list.",
        # The 1.5B on the eval's big_repo, offered the block it had described, and sending none
        "The change has been made to the `services/billing.py` file.",
        # A report headed by its verb, after both of the turn's tool calls had failed (a review, in tmux)
        "Fixed: main.py imports format_money.",
        "Updated: the import in main.py.",
        # Cased as the patterns take them (an answer without a claim's word is not scanned at all)
        "I HAVE UPDATED calc.py",
        "I have \u017fet the port in app.ini.",  # a long s, an s to re.IGNORECASE
        "I have f\u0131xed calc.py.",  # a dotless i
        "Here is a long explanation of the code. " * 2000 + "I've updated calc.py.",
    ],
)
def test_claims_of_a_change_are_recognised(text: str) -> None:
    assert claims_change(text)


@pytest.mark.parametrize(
    "text",
    [
        "Hello! How can I help you today?",
        "slugify lowercases the title, keeps runs of letters and digits and joins them with dashes.",
        "I did not change any files.",
        "Nothing has been modified.",
        "To fix it, change `a - b` to `a + b` in calc.py.",
        "I will update calc.py next.",
        "Set the port to 9000 in app.ini, then restart the server.",  # advice, opening with a verb
        "Here is the fixed code:\n```python\n# I've fixed calc.py\n```",
        "You can now use slugify in your templates.",
        "To now return the sum, change `a - b` to `a + b`.",
        "Right now it returns the difference, not the sum.",
        "The function does not now return anything.",
        "No changes were made.",
        "Make the change in calc.py, then run the test.",
        "Changes: none needed, calc.py is right.",
        "Fixed: nothing, the test already passes.",
    ],
)
def test_answers_and_advice_are_no_claims(text: str) -> None:
    assert not claims_change(text)


async def _run(server: FakeServer, workspace: Path, prompt: str) -> tuple[list[str], str]:
    events = await run(runtime_for(server, workspace, approval="yolo"), prompt)
    notices = [e.text for e in events if isinstance(e, Notice)]
    return notices, next(e.text for e in events if isinstance(e, RunFinished))


async def test_a_false_claim_is_questioned_once_and_the_model_then_makes_the_change(
    fake_server: FakeServer, workspace: Path
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake_server.script(Text("I've fixed calc.py: add now returns a + b."))
    fake_server.script(ToolCall("edit", {"path": "calc.py", "old_text": "a - b", "new_text": "a + b"}))
    fake_server.script(Text("Fixed calc.py."))
    notices, answer = await _run(fake_server, workspace, "fix add in calc.py")
    assert any("claims a change no tool made" in n for n in notices)
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    asked = fake_server.chat_requests[1].json["messages"][-1]
    assert asked == {"role": "user", "content": CLAIM_MESSAGE}
    assert answer == "Fixed calc.py."


async def test_the_claim_is_questioned_only_once(fake_server: FakeServer, workspace: Path) -> None:
    fake_server.script(Text("I've updated notes.txt."))
    fake_server.script(Text("I have updated notes.txt."))
    _notices, answer = await _run(fake_server, workspace, "update notes.txt")
    assert len(fake_server.chat_requests) == 2 and answer == "I have updated notes.txt."


async def test_a_claim_after_a_real_change_is_not_questioned(fake_server: FakeServer, workspace: Path) -> None:
    fake_server.script(ToolCall("write", {"path": "hello.py", "content": "print('hello world')\n"}))
    fake_server.script(Text("Created hello.py."))
    notices, _answer = await _run(fake_server, workspace, "create hello.py")
    assert not any("claims a change" in n for n in notices)
    assert len(fake_server.chat_requests) == 2 and (workspace / "hello.py").exists()


async def test_done_after_every_change_was_refused_is_questioned(fake_server: FakeServer, workspace: Path) -> None:
    # The 1.5B on the eval's read_answer: its one block was refused, then "The task is done."
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake_server.script(ToolCall("edit", {"path": "calc.py", "old_text": "a * b", "new_text": "a + b"}))
    fake_server.script(Text("The task is done."))
    fake_server.script(Text("Nothing changed; the SEARCH text was not in calc.py."))
    notices, answer = await _run(fake_server, workspace, "fix add in calc.py")
    assert any("claims a change no tool made" in n for n in notices)
    assert fake_server.chat_requests[2].json["messages"][-1] == {"role": "user", "content": CLAIM_MESSAGE}
    assert answer.startswith("Nothing changed")


async def test_done_without_any_change_tried_is_an_answer(fake_server: FakeServer, workspace: Path) -> None:
    fake_server.script(Text("It is done: the function returns the sum, so there is nothing to fix."))
    notices, _answer = await _run(fake_server, workspace, "does add in calc.py work?")
    assert not any("claims a change" in n for n in notices) and len(fake_server.chat_requests) == 1


async def test_the_present_tense_of_code_that_works_is_no_claim_for_a_model_with_tools(
    fake_server: FakeServer, workspace: Path
) -> None:
    # "add now returns a + b" answers a question about code the user changed: the present tense is taken for a
    # claim only under the edits protocol (the 1.5B that wrote no block, eval param_through). A model with tools
    # (Claude, a 7B) was told "nothing changed anything" and asked to make a change nobody wanted.
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    fake_server.script(ToolCall("read", {"path": "calc.py"}))
    fake_server.script(Text("Yes: add now returns a + b, so your fix works."))
    notices, answer = await _run(fake_server, workspace, "I fixed add in calc.py. Does it work now?")
    assert not any("claims a change" in n for n in notices), notices
    assert len(fake_server.chat_requests) == 2 and answer == "Yes: add now returns a + b, so your fix works."
