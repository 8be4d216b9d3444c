"""A new file the request asks for, missing at the final answer, is asked for once (agent/asked_files.py)."""

from __future__ import annotations

from pathlib import Path

from navtui.agent.asked_files import answer_value, asked_message, change_targets, unchanged_message
from navtui.core.events import Notice, RunFinished
from tests.agent.test_window import run, runtime_for
from tests.fakes import FakeServer, Text, ToolCall


async def _run(server: FakeServer, workspace: Path, prompt: str) -> tuple[list[str], str]:
    events = await run(runtime_for(server, workspace, approval="yolo"), prompt)
    notices = [e.text for e in events if isinstance(e, Notice)]
    return notices, next(e.text for e in events if isinstance(e, RunFinished))


async def test_a_missing_file_the_request_asks_for_is_asked_for_once(fake_server: FakeServer, workspace: Path) -> None:
    # Qwen2.5-Coder 1.5B on the eval's count_rows: the number in words, and no count.txt.
    (workspace / "data.csv").write_text("name,qty\na,1\nb,2\n")
    fake_server.script(Text("There are 2 data rows."))
    fake_server.script(ToolCall("write", {"path": "count.txt", "content": "2\n"}))
    fake_server.script(Text("Wrote count.txt."))
    notices, answer = await _run(
        fake_server, workspace, "Count the data rows of data.csv and write the number into a new file count.txt."
    )
    assert (workspace / "count.txt").read_text() == "2\n" and answer == "Wrote count.txt."
    assert any("asks for count.txt" in n for n in notices)
    asked = fake_server.chat_requests[1].json["messages"][-1]
    assert asked == {"role": "user", "content": asked_message(["count.txt"])}
    assert asked["content"].startswith("A file the request asks for does not exist yet: count.txt.")


async def test_it_is_asked_only_once(fake_server: FakeServer, workspace: Path) -> None:
    fake_server.script(Text("The answer is 4."))
    fake_server.script(Text("Still 4."))
    _notices, answer = await _run(fake_server, workspace, "Write 2+2 into answer.txt.")
    assert len(fake_server.chat_requests) == 2 and answer == "Still 4."


async def test_a_file_named_in_a_question_or_as_an_example_is_not_asked_for(
    fake_server: FakeServer, workspace: Path
) -> None:
    fake_server.script(Text("It would print hello."))
    fake_server.script(Text("pkg/a.py"))
    notices, _answer = await _run(fake_server, workspace, "What would hello.py print if it existed?")
    notices2, _answer = await _run(fake_server, workspace, "Which file defines f? Answer with a path, like a/b.py.")
    assert not any("asks for" in n for n in notices + notices2) and len(fake_server.chat_requests) == 2


async def test_a_short_answer_is_offered_as_the_block_that_writes_the_file(
    fake_server: FakeServer, workspace: Path
) -> None:
    # grep_define in the eval: the right path in words; asked for answer.txt, the 1.5B wrote the found file into it.
    fake_server.script(Text("pkg/net/wire.py"))
    fake_server.script(Text("answer.txt\n```\npkg/net/wire.py\n```\n"))
    fake_server.script(Text("Done."))
    await _run(fake_server, workspace, "Find the file that defines parse_header and write its path into answer.txt.")
    asked = fake_server.chat_requests[1].json["messages"][-1]["content"]
    assert (
        "Write the new answer.txt now: the line answer.txt on its own, then a fenced block with its content. If it "
        "should hold your answer, that is:\n\nanswer.txt\n```\npkg/net/wire.py\n```" in asked
    )


def test_only_a_value_is_offered_never_a_sentence() -> None:
    assert answer_value("pkg/net/wire.py") == "pkg/net/wire.py"
    assert answer_value("The count is `17`.") == "17"
    assert answer_value("17.") == "17"
    assert answer_value("There are 2 data rows.") is None
    assert answer_value("The number of rows in data.csv is 17. It has been written to count.txt.") == "17"
    assert answer_value("The file that defines parse_header is pkg/net/wire.py.") == "pkg/net/wire.py"
    assert answer_value("The task is done.") is None and answer_value("The count is 17. The sum is 18.") is None
    assert answer_value("It is in `a.py` or `b.py`.") is None
    assert answer_value("```\nx\n```") is None
    claim = 'The first line of README.md is "Project codeword: amber-falcon-42". It has been written into answer.txt.'
    assert answer_value(claim) == "Project codeword: amber-falcon-42"


async def test_a_claim_with_the_file_missing_gets_the_missing_file_and_the_value_first(
    fake_server: FakeServer, workspace: Path
) -> None:
    (workspace / "README.md").write_text("Project codeword: amber-falcon-42\n\nThis project is a demo.\n")
    claim = 'The first line of README.md is "Project codeword: amber-falcon-42". It has been written into answer.txt.'
    fake_server.script(Text(claim))
    fake_server.script(ToolCall("write", {"path": "answer.txt", "content": "Project codeword: amber-falcon-42\n"}))
    fake_server.script(Text("Done."))
    await _run(fake_server, workspace, "Read README.md and write its first line, exactly, into a new file answer.txt.")
    asked = fake_server.chat_requests[1].json["messages"][-1]["content"]
    assert asked.startswith("A file the request asks for does not exist yet: answer.txt. Write the new answer.txt now")
    assert "answer.txt\n```\nProject codeword: amber-falcon-42\n```" in asked
    assert (workspace / "answer.txt").read_text() == "Project codeword: amber-falcon-42\n"


def test_the_files_a_request_asks_to_change_are_read_from_its_clauses() -> None:
    prompt = (
        "Add a function clamp(x, low, high) to mathutil.py that limits x to the range low..high, and add a test "
        "for it to test_mathutil.py. Then run python3 test_mathutil.py."
    )
    assert change_targets(prompt) == ["mathutil.py", "test_mathutil.py"]
    assert change_targets("In config.py, change TIMEOUT from 30 to 45. Change nothing else.") == ["config.py"]
    assert change_targets("Fix the bug in calc.py (do not change test_calc.py) and run it.") == ["calc.py"]
    assert change_targets("Explain what the code in app.py does.") == []
    assert change_targets("Add a test to test_a.py, but do not change a.py.") == []  # a negated clause: not guessed
    # The eval's fix_import: helpers.py is where the function is, main.py what to fix. Taken for a target, the
    # unchanged helpers.py drew "The request asks for a change to helpers.py" and the 1.5B copied it out.
    fix_import = (
        "python3 main.py fails with: ImportError: cannot import name 'format_price' from 'helpers'. "
        "The function in helpers.py is called format_money: fix main.py to use it."
    )
    assert change_targets(fix_import) == ["main.py"]
    assert change_targets("Update `README.md` in docs/ with the new flag.") == ["README.md"]
    assert change_targets("Rename format_price to format_money in helpers.py.") == ["helpers.py"]
    # The eval's param_through: "make main.py pass ..." asks for main.py (the 1.5B left it and said it had not).
    param_through = (
        "Add a parameter excited (default False) to format_greeting in greeting.py: when it is true the greeting "
        "ends with '!'. Then make main.py pass excited=True, and run python3 main.py."
    )
    assert change_targets(param_through) == ["greeting.py", "main.py"]
    assert change_targets("Make sure the tests in test_a.py pass.") == []
    assert change_targets("Make the test pass; do not make test_a.py any longer.") == []


async def test_a_file_the_request_asks_to_change_left_as_it_was_is_named_once(
    fake_server: FakeServer, workspace: Path
) -> None:
    (workspace / "mathutil.py").write_text("def add(a, b):\n    return a + b\n")
    (workspace / "test_mathutil.py").write_text("from mathutil import add\n\nassert add(1, 2) == 3\n")
    clamp = "def add(a, b):\n    return a + b\n\n\ndef clamp(x, low, high):\n    return max(low, min(x, high))\n"
    # add_function in the eval: clamp added to mathutil.py, the old tests run, done; test_mathutil.py untouched.
    fake_server.script(ToolCall("write", {"path": "mathutil.py", "content": clamp}))
    fake_server.script(Text("Added clamp."))
    fake_server.script(
        ToolCall("edit", {"path": "test_mathutil.py", "old_text": "import add", "new_text": "import add, clamp"})
    )
    fake_server.script(Text("Done."))
    fake_server.script(Text("Still done."))
    notices, answer = await _run(
        fake_server,
        workspace,
        "Add a function clamp(x, low, high) to mathutil.py, and add a test for it to test_mathutil.py.",
    )
    asked = fake_server.chat_requests[2].json["messages"][-1]["content"]
    assert asked == unchanged_message("test_mathutil.py")
    assert asked.startswith("The request asks for a change to test_mathutil.py, which is still exactly as it was.")
    assert "import add, clamp" in (workspace / "test_mathutil.py").read_text()
    assert answer == "Done." and len(fake_server.chat_requests) == 4  # asked once


async def test_an_answer_that_changed_nothing_is_not_told_which_file_is_unchanged(
    fake_server: FakeServer, workspace: Path
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    fake_server.script(Text("add already returns a + b: there is no bug to fix."))
    _notices, answer = await _run(fake_server, workspace, "Fix the bug in calc.py.")
    assert answer.startswith("add already returns") and len(fake_server.chat_requests) == 1
