"""The check loop: the check a prompt names (or agent.check_command) runs after the model's edits; while it fails
the model sees the output and is asked again, up to agent.check_rounds; the run says whether it passed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.agent.check import check_in_prompt
from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import CheckFinished, Notice, RunFinished, ToolCallFinished, UserMessageEvent
from navtui.core.messages import is_nudge
from tests.agent.history import history_is_valid
from tests.fakes import Text, ToolCall
from tests.fakes.server import FakeServer

MODEL = "qwen2.5-coder:7b"
BROKEN = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\nassert add(2, 3) == 5, add(2, 3)\nprint('passed')\n"


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("python3 test_calc.py fails. Fix the bug in calc.py and run the test again.", "python3 test_calc.py"),
        ("Run `pytest -q tests/test_a.py::test_b` and fix what fails.", "pytest -q tests/test_a.py::test_b"),
        ("Fix it so python -m unittest passes.", "python -m unittest"),
        ("go test ./... fails since yesterday", "go test ./..."),
        ("npm test is red", "npm test"),
        ("python3 app.py fails with a syntax error. Fix app.py so that it prints OK.", "python3 app.py"),
        ("Run python3 build.py. It fails: fix config.json (not build.py) until it succeeds.", "python3 build.py"),
        ("Make the test pass.", "python3 test_calc.py"),  # the one test file here
        ("Create hello.py that prints hello world, then run it with python3.", None),
        ("Rename compute_total everywhere, then run python3 main.py.", "python3 main.py"),
        ("Rename the class in a.py and b.py, and run `python3 app.py`.", "python3 app.py"),
        # The eval's cli_flag: the arguments are the check (without them argparse fails whatever the code)
        ("Add a --verbose flag to cli.py. Then run python3 cli.py --verbose 2 3.", "python3 cli.py --verbose 2 3"),
        ("..., then run `python3 tool.py data/in.csv -n 2.5`.", "python3 tool.py data/in.csv -n 2.5"),
        ("..., then run python3 main.py and tell me what it prints.", "python3 main.py"),
        ("How do I run python3 main.py?", None),
        ("Explain what test_calc.py checks.", None),
        ('Fix it.\n\n<attached_file path="x.py">\npytest -q\n</attached_file>\n', None),  # a file's text is no prompt
    ],
)
def test_the_check_a_prompt_names(prompt: str, expected: str | None, workspace: Path) -> None:
    (workspace / "test_calc.py").write_text(TEST, encoding="utf-8")
    assert check_in_prompt(prompt, workspace) == expected


def make_runtime(workspace: Path, server: FakeServer, home: Path, approval: str = "yolo", **agent: object) -> Runtime:
    (home / "settings.json").write_text(json.dumps({"agent": agent}), encoding="utf-8")
    options = LaunchOptions(cwd=workspace, provider="ollama", base_url=server.url, model=MODEL, approval=approval)  # type: ignore[arg-type]
    return Runtime.create(options)


async def run(rt: Runtime, prompt: str) -> list[object]:
    try:
        return [event async for event in rt.run(prompt)]
    finally:
        await rt.aclose()


@pytest.fixture
def project(workspace: Path) -> Path:
    (workspace / "calc.py").write_text(BROKEN, encoding="utf-8")
    (workspace / "test_calc.py").write_text(TEST, encoding="utf-8")
    return workspace


async def test_a_failing_check_goes_back_to_the_model_until_it_passes(
    fake_server: FakeServer, project: Path, navtui_home: Path
) -> None:
    rt = make_runtime(project, fake_server, navtui_home)
    fake_server.script(ToolCall("write", {"path": "calc.py", "content": "def add(a, b):\n    return a * b\n"}))
    fake_server.script(Text("Fixed."))  # wrong: 2 * 3 is 6; the check says so
    fake_server.script(ToolCall("write", {"path": "calc.py", "content": FIXED}))
    fake_server.script(Text("Fixed for real."))
    events = await run(rt, "python3 test_calc.py fails. Fix the bug in calc.py.")
    checks = [e for e in events if isinstance(e, CheckFinished)]
    assert [(c.passed, c.round, c.final, c.exit_code) for c in checks] == [(False, 0, False, 1), (True, 1, True, 0)]
    assert "AssertionError: 6" in checks[0].output
    nudge = next(e for e in events if isinstance(e, UserMessageEvent) and e.kind == "nudge")
    assert "I ran the check `python3 test_calc.py` and it fails" in nudge.text and "AssertionError: 6" in nudge.text
    assert is_nudge(nudge.text)  # a protocol can tell it from the user's words
    # The model saw the output in its next request.
    assert "AssertionError: 6" in fake_server.chat_requests[2].json["messages"][-1]["content"]
    # The check is a shell card like any other.
    shells = [e for e in events if isinstance(e, ToolCallFinished) and e.call.name == "shell"]
    assert [s.call.arguments["command"] for s in shells] == ["python3 test_calc.py"] * 2
    final = events[-1]
    assert isinstance(final, RunFinished) and final.text == "Fixed for real.\n\nCheck `python3 test_calc.py` passed."
    assert (project / "calc.py").read_text() == FIXED
    assert history_is_valid(rt.agent.messages)


async def test_the_rounds_run_out_and_the_run_says_the_check_still_fails(
    fake_server: FakeServer, project: Path, navtui_home: Path
) -> None:
    rt = make_runtime(project, fake_server, navtui_home, check_rounds=1)
    for body in ("return a * b", "return a * 2"):
        fake_server.script(ToolCall("write", {"path": "calc.py", "content": f"def add(a, b):\n    {body}\n"}))
        fake_server.script(Text("Done."))
    events = await run(rt, "Make the test pass; the bug is in calc.py.")
    checks = [e for e in events if isinstance(e, CheckFinished)]
    assert [(c.passed, c.final) for c in checks] == [(False, False), (False, True)]
    assert events[-1].text.endswith("Check `python3 test_calc.py` still fails.")  # type: ignore[attr-defined]
    assert any(isinstance(e, Notice) and e.level == "warning" and "still fails" in e.text for e in events)
    assert len(fake_server.chat_requests) == 4


async def test_a_model_that_changes_nothing_after_a_failure_is_asked_once_more_then_the_run_ends(
    fake_server: FakeServer, project: Path, navtui_home: Path
) -> None:
    rt = make_runtime(project, fake_server, navtui_home)
    fake_server.script(Text("The code looks right to me."))
    fake_server.script(Text("I am sure it is right."))
    fake_server.script(Text("It is right."))
    events = await run(rt, "python3 test_calc.py fails. Fix the bug in calc.py.")
    checks = [e for e in events if isinstance(e, CheckFinished)]
    assert [c.passed for c in checks] == [False]  # run once because the prompt named it; not again for no change
    assert len(fake_server.chat_requests) == 3  # asked once more after the answer in words, not a third time
    pressed = fake_server.chat_requests[2].json["messages"][-1]["content"]
    assert "You did not change any file, and the check `python3 test_calc.py` still fails" in pressed
    assert "AssertionError: -1" in pressed  # the error again, where the model looks
    assert is_nudge(pressed)
    assert events[-1].text.endswith("still fails.")  # type: ignore[attr-defined]


async def test_asked_again_after_an_answer_in_words_the_model_fixes_it(
    fake_server: FakeServer, project: Path, navtui_home: Path
) -> None:
    # fix_import in the eval, Qwen2.5-Coder-1.5B: the first fix was half done, the check failed, the model said
    # the import was fixed now, and the run ended with the check failing.
    rt = make_runtime(project, fake_server, navtui_home)
    fake_server.script(ToolCall("write", {"path": "calc.py", "content": "def add(a, b):\n    return a * b\n"}))
    fake_server.script(Text("Fixed."))
    fake_server.script(Text("The function adds the two numbers now."))
    fake_server.script(ToolCall("write", {"path": "calc.py", "content": FIXED}))
    fake_server.script(Text("Done."))
    events = await run(rt, "python3 test_calc.py fails. Fix the bug in calc.py.")
    checks = [e for e in events if isinstance(e, CheckFinished)]
    assert [(c.passed, c.round, c.final) for c in checks] == [(False, 0, False), (True, 2, True)]
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("changed nothing" in text and "round 2 of 3" in text for text in notices)
    assert events[-1].text.endswith("Check `python3 test_calc.py` passed.")  # type: ignore[attr-defined]
    assert (project / "calc.py").read_text() == FIXED
    assert history_is_valid(rt.agent.messages)


async def test_the_setting_runs_only_after_edits(fake_server: FakeServer, project: Path, navtui_home: Path) -> None:
    rt = make_runtime(project, fake_server, navtui_home, check_command="python3 test_calc.py")
    fake_server.script(Text("calc.py adds two numbers."))
    events = await run(rt, "What does calc.py do?")
    assert not [e for e in events if isinstance(e, CheckFinished)]
    assert events[-1].text == "calc.py adds two numbers."  # type: ignore[attr-defined]


async def test_the_check_asks_for_approval_like_any_command(
    fake_server: FakeServer, project: Path, navtui_home: Path
) -> None:
    rt = make_runtime(project, fake_server, navtui_home, approval="write")  # no approver: commands are declined
    fake_server.script(ToolCall("write", {"path": "calc.py", "content": FIXED}))
    fake_server.script(Text("Fixed."))
    events = await run(rt, "python3 test_calc.py fails. Fix the bug in calc.py.")
    assert not [e for e in events if isinstance(e, CheckFinished)]
    assert len(fake_server.chat_requests) == 2  # a declined check is not a failure to fix
    final = events[-1]
    assert isinstance(final, RunFinished) and "Check `python3 test_calc.py` not run:" in final.text


async def test_a_failing_check_that_runs_a_copy_of_the_code_says_so(
    fake_server: FakeServer, project: Path, navtui_home: Path
) -> None:
    # test_and_fix in the eval: the 1.5B put a copy of the buggy function into the test under the import; the
    # write's note said so once, then the failing check was all it read, and it copied calc.py out unchanged.
    copy = "from calc import add\n\n\ndef add(a, b):\n    return a - b\n\n\nassert add(2, 3) == 5, add(2, 3)\n"
    rt = make_runtime(project, fake_server, navtui_home)
    fake_server.script(ToolCall("write", {"path": "test_calc.py", "content": copy}))
    fake_server.script(Text("Added the test."))
    fake_server.script(Text("The code is right."))
    fake_server.script(Text("It is right."))
    await run(rt, "python3 test_calc.py fails. Find the bug and fix it.")
    note = (
        "Note: test_calc.py imports add from calc, then defines its own, which hides the import: the code below it "
        "uses the copy. Remove the copy to use the module's.\n\n"
    )
    first = fake_server.chat_requests[2].json["messages"][-1]["content"]
    assert first.startswith("I ran the check `python3 test_calc.py` and it fails:")
    assert first.endswith(note + "Fix the code so that the check passes (do not change the check itself).")
    again = fake_server.chat_requests[3].json["messages"][-1]["content"]
    assert (note + "Change the code now so that the check passes") in again
    # A check whose file hides nothing says nothing of it.
    (project / "test_calc.py").write_text(TEST, encoding="utf-8")
    from navtui.agent.check import hidden_copies

    assert hidden_copies(project, "python3 test_calc.py") == ""
    assert hidden_copies(project, "python3 'unclosed") == ""
