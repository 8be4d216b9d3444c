"""The edit-block protocol end to end: a Runtime on the fake OpenAI-compatible server, files on disk, yolo.

Replies are real Qwen2.5-Coder output (or its exact shapes) for the eval's tasks; what is checked is what lands
on disk, what the next request tells the model, and that every block went through the tools (cards, diffs).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import CheckFinished, RunFinished, ToolCallFinished
from navtui.providers.edits import EchoFilter
from tests.agent.history import history_is_valid
from tests.fakes import Text
from tests.fakes.server import FakeServer

MODEL = "qwen2.5-coder-1.5b"


def make_runtime(workspace: Path, server: FakeServer, home: Path, approval: str = "yolo", **extra: object) -> Runtime:
    settings = {"providers": {"tool_protocol": "edits", "context_window": 4096}, **extra}
    (home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    options = LaunchOptions(
        cwd=workspace,
        provider="openai",
        base_url=server.url + "/v1",
        model=MODEL,
        approval=approval,  # type: ignore[arg-type]
    )
    return Runtime.create(options)


async def run(rt: Runtime, prompt: str | None) -> list[object]:
    return [event async for event in rt.run(prompt)]


def user_text(request: dict[str, object]) -> str:
    messages = request["messages"]
    assert isinstance(messages, list)
    return "\n".join(str(m["content"]) for m in messages if m["role"] == "user")


async def test_a_whole_file_block_fixes_the_file_and_a_bash_block_runs_the_test(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    (workspace / "test_calc.py").write_text(
        "from calc import add\n\nassert add(2, 3) == 5\nprint('passed')\n", encoding="utf-8"
    )
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(
        Text("The bug is in `add`: it subtracts.\n\ncalc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"),
        Text("\nRun the test:\n\n```bash\npython3 test_calc.py\n```\n"),
    )
    fake_server.script(Text("The test passes now."))
    events = await run(rt, "python3 test_calc.py fails. Fix the bug in calc.py and run the test again.")
    try:
        assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        finished = [e for e in events if isinstance(e, ToolCallFinished)]
        assert [e.call.name for e in finished] == ["write", "shell"]
        assert "passed" in finished[1].result.text and not finished[1].result.is_error
        assert finished[0].result.details and "+    return a + b" in finished[0].result.details["diff"]
        first, second = (r.json for r in fake_server.chat_requests)
        assert "tools" not in first
        system = first["messages"][0]["content"]
        assert "<<<<<<< SEARCH" in system and "Environment:" in system and "tool call" not in system
        # The files in play, whole, before the request.
        assert "calc.py\n```\ndef add(a, b):\n    return a - b\n```" in user_text(first)
        assert "test_calc.py\n```\nfrom calc import add" in user_text(first)
        # The next request: the file as it is now, the blocks as written, what happened.
        later = user_text(second)
        assert "calc.py\n```\ndef add(a, b):\n    return a + b\n```" in later and "return a - b" not in later
        assert "$ python3 test_calc.py\npassed" in later
        assistant = [m for m in second["messages"] if m["role"] == "assistant"][0]["content"]
        assert "calc.py\n```\ndef add(a, b):\n    return a + b\n```" in assistant and "```bash" in assistant
        # The model ran the check the prompt named after its edit: that run counts, it is not run again.
        (check,) = [e for e in events if isinstance(e, CheckFinished)]
        assert check.passed and check.final and check.command == "python3 test_calc.py"
        final = events[-1]
        assert isinstance(final, RunFinished)
        assert final.text == "The test passes now.\n\nCheck `python3 test_calc.py` passed."
        assert history_is_valid(rt.agent.messages)
    finally:
        await rt.aclose()


async def test_search_replace_goes_through_edit_with_its_tolerance_and_a_miss_is_explained(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    config = "".join(f"OPTION_{i} = {i}\n" for i in range(20)) + "TIMEOUT = 30\n"
    (workspace / "config.py").write_text(config, encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # The search line has a trailing space the file does not have; the second block's search is not in the file.
    fake_server.script(
        Text("config.py\n```python\n<<<<<<< SEARCH\nTIMEOUT = 30 \n=======\nTIMEOUT = 45\n>>>>>>> REPLACE\n```\n")
    )
    fake_server.script(
        Text("config.py\n```\n<<<<<<< SEARCH\nRETRIES = 3\n=======\nRETRIES = 4\n>>>>>>> REPLACE\n```\n")
    )
    fake_server.script(Text("Done."))
    try:
        await run(rt, "In config.py, change TIMEOUT from 30 to 45.")
        assert (workspace / "config.py").read_text() == config.replace("TIMEOUT = 30", "TIMEOUT = 45")
        second, third = (r.json for r in fake_server.chat_requests[1:])
        assert "Edited config.py: 1 replacement, +1 -1 lines." in user_text(second)
        failed = user_text(third)
        assert "config.py: not changed. the SEARCH text was not found in config.py." in failed
        assert "old_text" not in failed and "Send a corrected block" in failed
    finally:
        await rt.aclose()


async def test_blocks_ask_for_approval_like_tool_calls(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "notes.txt").write_text("old\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home, approval="ask")  # no approver: everything is declined
    fake_server.script(Text("notes.txt\n```\nnew\n```\n\n```bash\nrm notes.txt\n```"))
    fake_server.script(Text("I could not change it."))
    try:
        events = await run(rt, "Replace the text of notes.txt with new.")
        assert (workspace / "notes.txt").read_text() == "old\n"
        finished = [e for e in events if isinstance(e, ToolCallFinished)]
        assert [(e.call.name, e.result.is_error) for e in finished] == [("write", True), ("shell", True)]
        assert "notes.txt: not changed." in user_text(fake_server.chat_requests[-1].json)
    finally:
        await rt.aclose()


async def test_files_the_run_touched_and_files_that_use_the_prompts_names_are_shown(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "billing.py").write_text("def compute_total(items):\n    return sum(items)\n", encoding="utf-8")
    (workspace / "main.py").write_text("from billing import compute_total\nprint(compute_total([1]))\n")
    (workspace / "other.py").write_text("print('unrelated')\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("new.py\n```python\nprint('new')\n```\n```bash\npython3 other.py\n```"))
    fake_server.script(Text("Done."))
    try:
        await run(rt, "Rename compute_total to sum_prices everywhere.")
        first, second = (user_text(r.json) for r in fake_server.chat_requests)
        assert "billing.py\n```\ndef compute_total" in first and "main.py\n```\nfrom billing" in first
        assert "other.py" not in first
        assert "new.py\n```\nprint('new')\n```" in second  # written by the previous step: in play now
        assert "other.py\n```\nprint('unrelated')\n```" in second  # a command ran it
    finally:
        await rt.aclose()


async def test_a_file_the_window_cannot_hold_is_shown_as_the_lines_that_matter(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    lines = [f"SETTING_{i} = 'value number {i} with some padding text'\n" for i in range(300)]
    lines[150] = "TIMEOUT = 30\n"
    (workspace / "config.py").write_text("".join(lines), encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("Done."))
    try:
        await run(rt, "In config.py, change TIMEOUT from 30 to 45.")
        request = fake_server.chat_requests[0].json
        text = user_text(request)
        assert "300 lines, too long to show whole" in text and "151: TIMEOUT = 30" in text
        assert "SETTING_10 " not in text  # far from the line that matters
        size = sum(len(str(m["content"])) for m in request["messages"]) // 4
        assert size + request["max_tokens"] <= 4096
    finally:
        await rt.aclose()


async def test_a_block_without_a_path_is_the_new_file_the_prompt_names(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "notes.txt").write_text("nothing here\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # Qwen2.5-Coder 0.5B's shape: the code with no path at all, then the command.
    fake_server.script(Text("```python\nprint('hello world')\n```\n\n```bash\npython3 hello.py\n```"))
    fake_server.script(Text("Done."))
    try:
        events = await run(rt, "Create hello.py that prints hello world, then run it with python3.")
        assert (workspace / "hello.py").read_text() == "print('hello world')\n"
        assert "hello.py\n(a new file: it does not exist yet)" in user_text(fake_server.chat_requests[0].json)
        shell = [e for e in events if isinstance(e, ToolCallFinished) and e.call.name == "shell"]
        assert "hello world" in shell[0].result.text
    finally:
        await rt.aclose()


async def test_a_path_given_as_an_example_is_no_new_file(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The eval's grep_define: the 1.5B, shown "a/b.py" as a new file, answered "a/b.py".
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("Done."))
    try:
        await run(
            rt, "Find the file that defines f and write its path (relative, like a/b.py) into a new file answer.txt."
        )
        text = user_text(fake_server.chat_requests[0].json)
        assert "answer.txt\n(a new file: it does not exist yet)" in text
        assert "a/b.py\n(a new file" not in text
        await run(rt, "Add clamp(x, low, high) to limit x to the range low..high.")
        assert "low..high\n(a new file" not in user_text(fake_server.chat_requests[1].json)
    finally:
        await rt.aclose()


async def test_a_file_the_request_deletes_is_shown_by_name_with_how(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The eval's delete_log: shown the log whole, the 1.5B wrote it out again with new lines.
    (workspace / "debug.log").write_text("old log line\n" * 20, encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("```bash\nrm debug.log\n```"))
    fake_server.script(Text("Deleted."))
    try:
        await run(rt, "Delete the file debug.log.")
        text = user_text(fake_server.chat_requests[0].json)
        assert "debug.log\n(the request deletes it: run rm debug.log in a bash block)" in text
        assert "old log line" not in text and not (workspace / "debug.log").exists()
    finally:
        await rt.aclose()


@pytest.mark.parametrize("echo", [False, True])  # llama.cpp's server sends the given start back; Ollama does not
async def test_a_model_stuck_on_one_reply_is_given_the_start_of_the_file_asked_for(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, echo: bool
) -> None:
    fake_server.set_llamacpp(n_ctx=4096, alias=MODEL)
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    (workspace / "test_calc.py").write_text("from calc import add\n\nassert add(2, 3) == 5\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # fix_test in the eval: the same plan and command three times, the third sampled at temperature 0.7.
    plan = "The bug is in `calc.py`: change `add` to `mul`.\n\n```bash\npython3 test_calc.py\n```\n"
    fake_server.script(Text(plan))
    fake_server.script(Text(plan))
    start = "calc.py\n```\n"
    fake_server.script(Text((start if echo else "") + "def add(a, b):\n    return a + b\n```\n"))
    fake_server.script(Text("Fixed."))
    try:
        await run(rt, "python3 test_calc.py fails. Fix the bug in calc.py.")
        third = fake_server.chat_requests[2].json["messages"]
        assert third[-1] == {"role": "assistant", "content": start}
        assert "Write the new calc.py now" in third[-2]["content"]
        assert all(
            m["role"] != "assistant" or m["content"] != start for m in fake_server.chat_requests[1].json["messages"]
        )
        assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    finally:
        await rt.aclose()


@pytest.mark.parametrize("continues", [True, False])
async def test_navtuis_question_for_a_missing_file_starts_the_reply_with_its_block(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, continues: bool
) -> None:
    if continues:
        fake_server.set_llamacpp(n_ctx=4096, alias=MODEL)
    (workspace / "data.csv").write_text("name,qty\na,1\nb,2\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # count_rows in the eval: the number in a sentence, then, told count.txt is missing, the message's own words.
    fake_server.script(Text("The number of rows in data.csv is 2. This number has been written to count.txt."))
    fake_server.script(Text("2\n```\n") if continues else Text("count.txt\n```\n2\n```\n"))
    fake_server.script(Text("Done."))
    try:
        await run(rt, "Count the data rows of data.csv and write the number into a new file count.txt.")
        second = fake_server.chat_requests[1].json["messages"]
        if continues:
            assert second[-1] == {"role": "assistant", "content": "count.txt\n```\n"}
        else:  # a server not known to continue a reply gets none to continue
            assert second[-1]["role"] == "user"
        assert (workspace / "count.txt").read_text() == "2\n"
    finally:
        await rt.aclose()


def test_the_given_start_is_taken_off_only_when_the_server_sends_it_back() -> None:
    echo = EchoFilter("calc.py\n```\n")
    assert [echo.take(t) for t in ("calc", ".py\n``", "`\ndef f", "():\n")] == ["", "", "def f", "():\n"]
    other = EchoFilter("calc.py\n```\n")
    assert [other.take(t) for t in ("def", " f():\n")] == ["def", " f():\n"]
    short = EchoFilter("calc.py\n```\n")
    assert short.take("calc") == "" and short.rest() == ""  # only the start came back: nothing more to read


@pytest.mark.parametrize("continues", [False, True])
async def test_a_claimed_deletion_gets_the_block_to_send(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, continues: bool
) -> None:
    if continues:  # a server that continues replies gets the reply started with a bash fence too
        fake_server.set_llamacpp(n_ctx=4096, alias=MODEL)
    (workspace / "debug.log").write_text("old log line\n" * 20, encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # delete_log in the eval: a claim, then, questioned, the note's words back ("run rm debug.log in a bash block").
    fake_server.script(Text("The file debug.log has been deleted."))
    fake_server.script(Text("```bash\nrm debug.log\n```"))  # llama.cpp sends a given start back
    fake_server.script(Text("Deleted."))
    try:
        await run(rt, "Delete the file debug.log.")
        messages = fake_server.chat_requests[1].json["messages"]
        second = user_text(fake_server.chat_requests[1].json)
        assert "Your reply deleted nothing: saying a file is deleted does not delete it. Send this block now:" in second
        assert second.endswith("```bash\nrm debug.log\n```")
        assert (messages[-1] == {"role": "assistant", "content": "```bash\n"}) is continues
        assert not (workspace / "debug.log").exists()
    finally:
        await rt.aclose()


async def test_files_are_counted_by_the_servers_tokenizer_where_it_has_one(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # bytes/4 would let this file in whole; the server's tokenizer (the fake counts 1 token per 3 characters, real
    # dense configs run 2 characters a token) says it does not fit, so its lines that matter are shown instead.
    fake_server.set_llamacpp(n_ctx=4096)
    lines = [f"V{i} = {i * 7919 % 1000}\n" for i in range(850)]
    lines[350] = "TIMEOUT = 30\n"
    (workspace / "config.py").write_text("".join(lines), encoding="utf-8")
    settings = {"providers": {"tool_protocol": "edits"}}
    (navtui_home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    options = LaunchOptions(cwd=workspace, provider="openai", base_url=fake_server.url + "/v1", model=MODEL)
    rt = Runtime.create(options)
    fake_server.script(Text("Done."))
    try:
        await run(rt, "In config.py, change TIMEOUT from 30 to 45.")
        request = fake_server.chat_requests[0].json
        text = user_text(request)
        assert "too long to show whole" in text and "351: TIMEOUT = 30" in text
        assert sum(len(str(m["content"])) for m in request["messages"]) // 3 <= 4096 - 1024  # room for the answer
    finally:
        await rt.aclose()


def _shop(workspace: Path) -> str:
    (workspace / "shop").mkdir()
    (workspace / "shop/__init__.py").write_text("", encoding="utf-8")
    (workspace / "shop/prices.py").write_text("def compute_total(prices):\n    return sum(prices)\n", encoding="utf-8")
    (workspace / "shop/cart.py").write_text(
        "from shop.prices import compute_total\n\n\ndef cart_total(items):\n"
        "    return compute_total([price for _, price in items])\n",
        encoding="utf-8",
    )
    (workspace / "main.py").write_text(
        "from shop.cart import cart_total\n\nprint(cart_total([('tea', 3), ('cake', 4)]))\n", encoding="utf-8"
    )
    return "Rename the function compute_total to sum_prices everywhere, then run python3 main.py. @shop/prices.py @shop/cart.py"


RENAMED = "def sum_prices(prices):\n    return sum(prices)\n"


async def test_a_bare_block_after_navtui_named_the_file_is_that_file(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    prompt = _shop(workspace)
    rt = make_runtime(workspace, fake_server, navtui_home)
    # The 1.5B's replies in the eval (rename): a claim, then, told to write shop/prices.py, a bare fence.
    fake_server.script(Text("Renamed the function `compute_total` to `sum_prices` in `shop/prices.py` and `main.py`."))
    fake_server.script(Text(f"```\n{RENAMED}```\n"))
    fake_server.script(Text("Done."))
    try:
        await run(rt, prompt)
        second = user_text(fake_server.chat_requests[1].json)
        assert "Write the new shop/prices.py now: the line shop/prices.py on its own" in second
        # Two lines: too short to tell from shop/cart.py by likeness; the file asked for by name is the one.
        assert (workspace / "shop/prices.py").read_text() == RENAMED
    finally:
        await rt.aclose()


async def test_a_reply_that_only_repeats_a_written_file_is_told_so_not_taken_as_silence(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    prompt = _shop(workspace)
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text(f"shop/prices.py\n```python\n{RENAMED}```\n"))
    fake_server.script(Text("The task was completed."))
    # The check (python3 main.py) fails: cart.py still imports compute_total. The eval's reply: prices.py again,
    # unchanged and without a word. It was dropped, the answer was empty, and three "continue" nudges followed.
    fake_server.script(Text(f"shop/prices.py\n```python\n{RENAMED}```\n"))
    cart = (
        "from shop.prices import sum_prices\n\n\ndef cart_total(items):\n    return sum_prices([p for _, p in items])\n"
    )
    fake_server.script(Text(f"shop/cart.py\n```python\n{cart}```\n"))
    fake_server.script(Text("Done: both files use sum_prices."))
    try:
        events = await run(rt, prompt)
        requests = [r.json for r in fake_server.chat_requests]
        assert "You stopped without completing the task" not in user_text(requests[-1])
        assert "shop/prices.py: not changed. Block not applied: shop/prices.py already has exactly this content" in (
            user_text(requests[3])
        )
        assert (workspace / "shop/cart.py").read_text() == cart
        (check, *rest) = [e for e in events if isinstance(e, CheckFinished) and e.final]
        assert check.passed and not rest
    finally:
        await rt.aclose()


async def test_a_reply_said_twice_word_for_word_gets_the_next_one_sampled(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n", encoding="utf-8")
    (workspace / "test_calc.py").write_text("from calc import add\n\nassert add(2, 3) == 5\n", encoding="utf-8")
    rt = make_runtime(
        workspace,
        fake_server,
        navtui_home,
        providers={"tool_protocol": "edits", "context_window": 4096, "temperature": 0},
    )
    # fix_test in the eval at temperature 0: the same wrong plan and the same command, three times.
    plan = "The bug is that `add` subtracts. Change `add` to `mul` and run the test again.\n\n```bash\npython3 test_calc.py\n```\n"
    fake_server.script(Text(plan))
    fake_server.script(Text(plan))
    fake_server.script(Text("calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"))
    fake_server.script(Text("Fixed."))
    try:
        events = await run(rt, "python3 test_calc.py fails. Fix the bug in calc.py.")
        temperatures = [r.json.get("temperature") for r in fake_server.chat_requests]
        assert temperatures == [0, 0, 0.7, 0]  # only the request after the repeat is sampled
        notices = [e.text for e in events if type(e).__name__ == "Notice"]
        assert any("repeated an earlier answer word for word" in n for n in notices)
        assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    finally:
        await rt.aclose()


MATHUTIL = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
TEST_MATHUTIL = "from mathutil import add, sub\n\nassert add(2, 3) == 5\nassert sub(5, 3) == 2\nprint('ok')\n"
CLAMP = MATHUTIL + "\n\ndef clamp(x, low, high):\n    return max(low, min(x, high))\n"
TEST_CLAMP = (
    "from mathutil import add, sub, clamp\n\nassert add(2, 3) == 5\nassert sub(5, 3) == 2\n"
    "assert clamp(10, 0, 10) == 10\nassert clamp(-5, 0, 10) == 0\nassert clamp(15, 0, 10) == 10\nprint('ok')\n"
)


async def test_a_written_file_sent_again_after_it_was_told_unchanged_ends_the_turn_and_the_check_runs(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "mathutil.py").write_text(MATHUTIL, encoding="utf-8")
    (workspace / "test_mathutil.py").write_text(TEST_MATHUTIL, encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # add_function in the eval (third wave): both files right, then test_mathutil.py sent back unchanged, without a
    # word, three times (at temperature 0 and at 0.7); the third "Block not applied" ended the run as invalid
    # calls (exit 1) before the test the prompt names ever ran.
    fake_server.script(Text("The function `clamp(x, low, high)` has been added to `mathutil.py`."))
    fake_server.script(Text(f"mathutil.py\n```python\n{CLAMP}```\n"))
    fake_server.script(Text("The task was completed successfully."))
    fake_server.script(Text(f"test_mathutil.py\n```\n{TEST_CLAMP}```\n"))
    fake_server.script(Text(f"test_mathutil.py\n```\n{TEST_CLAMP}```\n"))
    fake_server.script(Text(f"test_mathutil.py\n```\n{TEST_CLAMP}```\n"))
    fake_server.script(Text("Unused: the run should have ended."))
    try:
        events = await run(
            rt,
            "Add a function clamp(x, low, high) to mathutil.py that limits x to the range low..high, and add a "
            "test for it to test_mathutil.py. Then run python3 test_mathutil.py. @mathutil.py @test_mathutil.py",
        )
        requests = [r.json for r in fake_server.chat_requests]
        assert len(requests) == 6
        assert "test_mathutil.py: not changed. Block not applied: test_mathutil.py already has exactly this" in (
            user_text(requests[5])
        )
        (check,) = [e for e in events if isinstance(e, CheckFinished)]
        assert check.passed and check.command == "python3 test_mathutil.py"
        final = events[-1]
        assert isinstance(final, RunFinished) and final.stop_reason == "stop"
        assert final.text.endswith("Check `python3 test_mathutil.py` passed.")
        assert (workspace / "test_mathutil.py").read_text() == TEST_CLAMP
        assert history_is_valid(rt.agent.messages)
    finally:
        await rt.aclose()


async def test_a_value_stated_in_a_sentence_goes_into_the_question_for_the_missing_file(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    fake_server.set_llamacpp(n_ctx=4096, alias=MODEL)  # a server that continues the reply navtui starts
    (workspace / "data.csv").write_text("name,qty\n" + "".join(f"item{i},{i}\n" for i in range(17)), encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # count_rows in the eval (third wave): the right count in a sentence, no count.txt. That reply is left out of
    # the question that follows (a small model says it again), and, asked with the value nowhere in sight, the
    # 1.5B wrote 16, the last number of data.csv.
    fake_server.script(Text("The number of rows in data.csv is 17. This number has been written to count.txt."))
    fake_server.script(Text("17\n```\n"))
    fake_server.script(Text("The task is done."))
    try:
        await run(
            rt,
            "Count the data rows of data.csv (not the header line) and write the number into a new file count.txt. "
            "@data.csv",
        )
        second = user_text(fake_server.chat_requests[1].json)
        assert "This number has been written" not in str(fake_server.chat_requests[1].json["messages"])
        assert second.endswith("If it should hold your answer, that is:\n\ncount.txt\n```\n17\n```")
        assert (workspace / "count.txt").read_text() == "17\n"
    finally:
        await rt.aclose()


async def test_the_modules_an_attached_test_imports_are_shown_two_levels_deep(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The eval's hidden_bug: the user adds the failing test; the bug is two imports away, in a module no one names.
    (workspace / "shop").mkdir()
    (workspace / "shop/__init__.py").write_text("", encoding="utf-8")
    discount = "def percent_off(price, percent):\n    return price - price * percent / 10\n"
    (workspace / "shop/discount.py").write_text(discount, encoding="utf-8")
    (workspace / "shop/pricing.py").write_text(
        "from shop.discount import percent_off\n\n\ndef sale_price(price):\n    return percent_off(price, 20)\n",
        encoding="utf-8",
    )
    (workspace / "shop/unused.py").write_text("def unrelated():\n    return 1\n", encoding="utf-8")
    (workspace / "test_pricing.py").write_text(
        "import json\nfrom shop.pricing import sale_price\n\nassert sale_price(100) == 80\n", encoding="utf-8"
    )
    rt = make_runtime(workspace, fake_server, navtui_home)
    # The 1.5B's first reply when it saw only the test: a description, no block.
    fake_server.script(Text("The bug in the shop package is that the sale_price function does not apply the discount."))
    fake_server.script(Text(f"shop/discount.py\n```python\n{discount.replace('/ 10', '/ 100')}```\n"))
    fake_server.script(Text("Fixed."))
    try:
        await run(rt, "python3 test_pricing.py fails. Find the bug in the shop package and fix it. @test_pricing.py")
        first = user_text(fake_server.chat_requests[0].json)
        assert "shop/pricing.py\n```\nfrom shop.discount import percent_off" in first
        assert f"shop/discount.py\n```\n{discount}```" in first
        assert "unused.py" not in first and "json" not in first.split("test_pricing.py\n```", 1)[0]
        assert (workspace / "shop/discount.py").read_text() == discount.replace("/ 10", "/ 100")
    finally:
        await rt.aclose()


async def test_an_imported_module_the_room_cannot_hold_whole_is_left_out(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "big.py").write_text("".join(f"VALUE_{i} = '{'x' * 60}'\n" for i in range(400)), encoding="utf-8")
    (workspace / "small.py").write_text("def two():\n    return 2\n", encoding="utf-8")
    (workspace / "main.py").write_text("import big\nfrom small import two\n\nprint(two())\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("It prints 2."))
    try:
        await run(rt, "What does main.py print? @main.py")
        request = fake_server.chat_requests[0].json
        text = user_text(request)
        assert "small.py\n```\ndef two():" in text
        assert "big.py" not in text  # not whole, so not at all: nobody named it
        assert sum(len(str(m["content"])) for m in request["messages"]) // 4 + request["max_tokens"] <= 4096
    finally:
        await rt.aclose()


async def test_a_file_the_reply_touched_first_is_written_by_its_block(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    (workspace / "utils.py").write_text("def parse_duration(text):\n    return int(text[:-1])\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # The 1.5B's steps (eval move_function): create the module with touch, then its content as a block.
    fake_server.script(
        Text(
            "1. Create the `timeparse.py` file:\n```bash\ntouch timeparse.py\n```\n\n"
            "2. Add the following content to it:\n\ntimeparse.py\n```python\ndef parse_duration(text):\n"
            "    return int(text[:-1])\n```\n"
        )
    )
    fake_server.script(Text("Done."))
    try:
        events = await run(rt, "Move the function parse_duration from utils.py into a new module timeparse.py.")
        finished = [e for e in events if isinstance(e, ToolCallFinished)]
        assert [(e.call.name, e.result.is_error) for e in finished] == [("shell", False), ("write", False)]
        assert (workspace / "timeparse.py").read_text() == "def parse_duration(text):\n    return int(text[:-1])\n"
    finally:
        await rt.aclose()


async def test_an_attached_file_too_long_for_the_window_goes_as_the_lines_that_matter_not_as_its_copy(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The eval's big_repo: a 370-line module (10 KB, 3,300 tokens), added with @. Its whole copy stayed in the prompt and left no
    # room for the files in play: the 1.5B copied the attachment's first lines back instead of fixing late_fee.
    fake_server.set_llamacpp(n_ctx=4096)  # the fake counts a token per 3 characters, as dense code runs
    rules = [f"def fee_{i:03d}(amount):\n    return amount * {i % 7 + 1} / 100\n\n\n" for i in range(250)]
    rules.insert(125, "def late_fee(amount, days):\n    return amount * 0.05 * ((days + 6) // 7)\n\n\n")
    (workspace / "billing.py").write_text("".join(rules), encoding="utf-8")
    settings = {"providers": {"tool_protocol": "edits"}}
    (navtui_home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    options = LaunchOptions(
        cwd=workspace, provider="openai", base_url=fake_server.url + "/v1", model=MODEL, approval="yolo"
    )
    rt = Runtime.create(options)
    fake_server.script(
        Text(
            "billing.py\n```python\n<<<<<<< SEARCH\n    return amount * 0.05 * ((days + 6) // 7)\n=======\n"
            "    return amount * 0.02 * ((days + 6) // 7)\n>>>>>>> REPLACE\n```\n"
        )
    )
    fake_server.script(Text("Fixed."))
    try:
        await run(rt, "late_fee in billing.py charges 5 % per week, not 2 %. Fix late_fee. @billing.py")
        request = fake_server.chat_requests[0].json
        text = user_text(request)
        assert "<attached_file" not in text and "fee_000" not in text
        assert "too long to show whole" in text and "return amount * 0.05 * ((days + 6) // 7)" in text
        assert sum(len(str(m["content"])) for m in request["messages"]) // 3 <= 4096 - 1024  # room for the answer
        assert "return amount * 0.02 * ((days + 6) // 7)" in (workspace / "billing.py").read_text()
    finally:
        await rt.aclose()


async def test_a_claim_in_the_present_tense_is_questioned_before_the_unchanged_check_passes(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    greeting = "def format_greeting(name):\n    return 'Hello, ' + name\n"
    (workspace / "greeting.py").write_text(greeting, encoding="utf-8")
    (workspace / "main.py").write_text("from greeting import format_greeting\n\nprint(format_greeting('Ann'))\n")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # The 1.5B's whole reply in the eval (param_through): no block. python3 main.py, the check, ran as it always
    # had and passed, and the run ended on the claim.
    fake_server.script(
        Text(
            "The `format_greeting` function in `greeting.py` now includes an optional parameter `excited` that "
            "defaults to `False`. The `main.py` script now passes `excited=True` to the `format_greeting` function."
        )
    )
    fixed = "def format_greeting(name, excited=False):\n    return 'Hello, ' + name + ('!' if excited else '')\n"
    fake_server.script(Text(f"greeting.py\n```python\n{fixed}```\n"))
    fake_server.script(Text("Done."))
    try:
        await run(
            rt,
            "Add a parameter excited (default False) to format_greeting in greeting.py. Then make main.py pass "
            "excited=True, and run python3 main.py. @greeting.py @main.py",
        )
        assert len(fake_server.chat_requests) >= 2
        assert "Your answer says a file was changed, but nothing changed" in user_text(
            fake_server.chat_requests[1].json
        )
        assert (workspace / "greeting.py").read_text() == fixed
    finally:
        await rt.aclose()


async def test_an_attached_file_written_with_a_leading_dot_slash_is_left_out_when_it_is_in_play(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # "@./billing.py" is billing.py, in play as the files section spells it: its copy is left out as the budget
    # assumes (agent/budget.py), not sent whole and uncounted, 3,300 tokens past a 4,096-token window.
    fake_server.set_llamacpp(n_ctx=4096)
    rules = [f"def fee_{i:03d}(amount):\n    return amount * {i % 7 + 1} / 100\n\n\n" for i in range(250)]
    (workspace / "billing.py").write_text("".join(rules), encoding="utf-8")
    settings = {"providers": {"tool_protocol": "edits"}}
    (navtui_home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    options = LaunchOptions(
        cwd=workspace, provider="openai", base_url=fake_server.url + "/v1", model=MODEL, approval="yolo"
    )
    rt = Runtime.create(options)
    fake_server.script(Text("It lists fees."))
    try:
        await run(rt, "What does fee_042 in this file do? @./billing.py")
        request = fake_server.chat_requests[0].json
        text = user_text(request)
        assert "<attached_file" not in text and "fee_000" not in text
        assert "too long to show whole" in text and "def fee_042(amount):" in text
        assert sum(len(str(m["content"])) for m in request["messages"]) // 3 <= 4096 - 1024  # room for the answer
    finally:
        await rt.aclose()


async def test_a_one_line_change_described_in_words_is_offered_back_as_its_block(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The eval's big_repo after the attachment fix: the 1.5B saw late_fee's lines and described the fix exactly,
    # in words. Told how to write a whole file (this one it saw only in part), it copied out the check instead.
    fake_server.set_llamacpp(n_ctx=4096)
    rules = [f"def fee_{i:03d}(amount):\n    return amount * {i % 7 + 1} / 100\n\n\n" for i in range(250)]
    rules.insert(125, "def late_fee(amount, days):\n    return amount * 0.05 * ((days + 6) // 7)\n\n\n")
    (workspace / "billing.py").write_text("".join(rules), encoding="utf-8")
    (workspace / "check_billing.py").write_text("from billing import late_fee\n\nassert late_fee(100, 1) == 2\n")
    settings = {"providers": {"tool_protocol": "edits"}}
    (navtui_home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    options = LaunchOptions(
        cwd=workspace, provider="openai", base_url=fake_server.url + "/v1", model=MODEL, approval="yolo"
    )
    rt = Runtime.create(options)
    fake_server.script(
        Text(
            "To fix the late_fee function in billing.py, change the line `return amount * 0.05 * ((days + 6) // 7)` "
            "to `return amount * 0.02 * ((days + 6) // 7)`. After making this change, run `python3 check_billing.py`."
        )
    )
    block = (
        "billing.py\n```\n<<<<<<< SEARCH\n    return amount * 0.05 * ((days + 6) // 7)\n=======\n"
        "    return amount * 0.02 * ((days + 6) // 7)\n>>>>>>> REPLACE\n```"
    )
    fake_server.script(Text(block + "\n"))
    fake_server.script(Text("Fixed."))
    try:
        await run(
            rt,
            "late_fee in billing.py charges 5 % a week, not 2 %. Fix it, then run python3 check_billing.py. @billing.py",
        )
        asked = user_text(fake_server.chat_requests[1].json)
        assert "I ran the check `python3 check_billing.py` and it fails" in asked
        assert f"Send the change you describe as this block:\n\n{block}" in asked
        assert "return amount * 0.02 * ((days + 6) // 7)" in (workspace / "billing.py").read_text()
    finally:
        await rt.aclose()


async def test_an_empty_search_block_for_an_attached_file_shown_in_part_does_not_write_over_it(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The eval's edit_big by another door: a 300-line config.py attached with @ and shown as the lines that mention
    # TIMEOUT. The whole-file block is refused (5e8ede0), but a SEARCH/REPLACE block with an empty SEARCH, the
    # aider form of "the whole new file", was taken for a new file's text and written over the user's 300 lines
    # (the attachment had marked the file as read whole).
    options_lines = "".join(f"OPTION_{i:03d} = {i * 7 % 101}  # option {i}\n" for i in range(296))
    config = '"""Settings for the demo service."""\n\nTIMEOUT = 30\n\n' + options_lines
    (workspace / "config.py").write_text(config, encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.set_llamacpp(n_ctx=2048)
    fake_server.script(
        Text('config.py\n```python\n<<<<<<< SEARCH\n=======\n"""Settings."""\n\nTIMEOUT = 45\n>>>>>>> REPLACE\n```\n')
    )
    fake_server.script(Text("The file config.py was not changed."))
    try:
        await run(rt, "Set TIMEOUT to 45 in config.py. @config.py")
        first = user_text(fake_server.chat_requests[0].json)
        assert "too long to show whole" in first and "OPTION_200" not in first  # shown in part, as in the eval
        assert (workspace / "config.py").read_text(encoding="utf-8") == config
        told = user_text(fake_server.chat_requests[1].json)
        assert "SEARCH section for config.py is empty" in told
        # Seen in part, though attached: write's own guard refuses to replace it by any path (022710e).
        stamp = rt.ctx.file_state.seen((workspace / "config.py").resolve())
        assert stamp is not None and not stamp.whole
    finally:
        await rt.aclose()


async def test_a_file_shown_in_part_is_not_replaced_by_a_whole_file_block_under_another_spelling_of_its_path(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The block reader refuses a whole file for a file in play shown in part when the block names it as the files
    # section does; "a/./config.py" (two config.py in play, so the bare name does not tell) reached write as
    # another path, and write took the attachment for a read of the whole file: 300 lines became 2.
    options_lines = "".join(f"OPTION_{i:03d} = {i * 7 % 101}  # option {i}\n" for i in range(296))
    config = '"""Settings for the demo service."""\n\nTIMEOUT = 30\n\n' + options_lines
    (workspace / "a").mkdir()
    (workspace / "b").mkdir()
    (workspace / "a" / "config.py").write_text(config, encoding="utf-8")
    (workspace / "b" / "config.py").write_text("TIMEOUT = 5\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.set_llamacpp(n_ctx=2048)
    fake_server.script(Text('a/./config.py\n```python\n"""Settings."""\nTIMEOUT = 45\n```\n'))
    fake_server.script(Text("The file was not changed."))
    try:
        await run(rt, "Set TIMEOUT to 45 in a/config.py (b/config.py stays). @a/config.py @b/config.py")
        first = user_text(fake_server.chat_requests[0].json)
        assert "too long to show whole" in first and "OPTION_200" not in first  # shown in part
        assert (workspace / "a" / "config.py").read_text(encoding="utf-8") == config
        # The block reader knows the spelling for the file in play now, and refuses it with its own reason before
        # write's guard (022710e) is reached.
        assert "shown to you only in part" in user_text(fake_server.chat_requests[1].json)
    finally:
        await rt.aclose()


@pytest.mark.parametrize(
    "prompt",
    [
        "Do not delete config.py, just set TIMEOUT to 45 in it.",
        "Set TIMEOUT to 45 in config.py. Don't remove config.py or rename it.",
        "Set TIMEOUT to 45 in config.py without deleting config.py.",
        "Never rm config.py: set TIMEOUT to 45 in it.",
    ],
)
async def test_a_file_the_request_says_not_to_delete_is_shown_not_marked_for_rm(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, prompt: str
) -> None:
    # "Do not delete config.py, ..." was read as a request to delete it: the file was kept from the model and shown
    # with "the request deletes it: run rm config.py in a bash block", and a reply without the rm was told "Your
    # reply deleted nothing ... Send this block now: rm config.py".
    (workspace / "config.py").write_text("TIMEOUT = 30\nRETRIES = 3\n", encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("config.py\n```python\nTIMEOUT = 45\nRETRIES = 3\n```\n"))
    fake_server.script(Text("TIMEOUT is 45 now."))
    try:
        await run(rt, prompt)
        first = user_text(fake_server.chat_requests[0].json)
        assert "the request deletes it" not in first and "RETRIES = 3" in first
        assert (workspace / "config.py").read_text(encoding="utf-8") == "TIMEOUT = 45\nRETRIES = 3\n"
        told = "\n".join(user_text(r.json) for r in fake_server.chat_requests)
        assert "run rm config.py in a bash block" not in told and "deleted nothing" not in told
    finally:
        await rt.aclose()


async def test_a_long_attached_files_shown_lines_sent_back_changed_change_the_file(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # The eval's edit_big since the attachment's copy is left out (840ef83): the 300-line config.py goes as the
    # lines that mention TIMEOUT, and the 1.5B sent the first of them back, blank lines dropped and TIMEOUT
    # changed, under the path. Written, that was the whole file (+2 -298 lines); refused, the model gave up.
    fake_server.set_llamacpp(n_ctx=4096)  # the fake counts a token per 3 characters: the file does not fit whole
    options = "".join(f"OPTION_{i:03d} = {i * 7 % 101}  # option {i}\n" for i in range(296))
    config = '"""Settings for the demo service."""\n\nTIMEOUT = 30\n\n' + options
    (workspace / "config.py").write_text(config, encoding="utf-8")
    settings = {"providers": {"tool_protocol": "edits"}}
    (navtui_home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    options_ = LaunchOptions(
        cwd=workspace, provider="openai", base_url=fake_server.url + "/v1", model=MODEL, approval="yolo"
    )
    rt = Runtime.create(options_)
    fake_server.script(
        Text(
            'config.py\n```python\n"""Settings for the demo service."""\nTIMEOUT = 45\nOPTION_000 = 0  # option 0\n'
            "OPTION_001 = 7  # option 1\n```\n"
        )
    )
    fake_server.script(Text("TIMEOUT is 45 now."))
    try:
        events = await run(rt, "In config.py, change TIMEOUT from 30 to 45. Change nothing else. @config.py")
        text = user_text(fake_server.chat_requests[0].json)
        assert "too long to show whole" in text and "3: TIMEOUT = 30" in text and "OPTION_100" not in text
        # The excerpt's last line as it is in the file: the note's closing parenthesis once followed it, and the
        # 1.5B copied "OPTION_001 = 7  # option 1)" into its block.
        assert "\n6: OPTION_001 = 7  # option 1\n" in text
        assert (workspace / "config.py").read_text() == config.replace("TIMEOUT = 30", "TIMEOUT = 45")
        (done,) = [e for e in events if isinstance(e, ToolCallFinished)]
        assert done.call.name == "edit" and not done.result.is_error
    finally:
        await rt.aclose()


async def test_a_refused_blocks_ready_block_starts_the_next_reply(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    # Shown config.py's first lines, a block of the changed line alone cannot say where it goes: refused, with the
    # block made of it. Offered that block, the real 1.5B answered "The task is done."; started with its path line,
    # fence and SEARCH marker, it wrote the rest of the block.
    fake_server.set_llamacpp(n_ctx=4096, alias=MODEL)
    options = "".join(f"OPTION_{i:03d} = {i * 7 % 101}  # option {i}\n" for i in range(296))
    config = '"""Settings for the demo service."""\n\nTIMEOUT = 30\n\n' + options
    (workspace / "config.py").write_text(config, encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("config.py\n```python\nTIMEOUT = 45\n```\n"))
    fake_server.script(Text("TIMEOUT = 30\n=======\nTIMEOUT = 45\n>>>>>>> REPLACE\n```\n"))
    fake_server.script(Text("The task is done."))
    try:
        await run(rt, "In config.py, change TIMEOUT from 30 to 45. Change nothing else. @config.py")
        second = fake_server.chat_requests[1].json["messages"]
        block = "config.py\n```\n<<<<<<< SEARCH\nTIMEOUT = 30\n=======\nTIMEOUT = 45\n>>>>>>> REPLACE\n```"
        assert (
            "config.py: not changed. Block not applied: config.py was shown to you only in part"
            in second[-2]["content"]
        )
        assert f"For the line you changed:\n\n{block}" in second[-2]["content"]
        assert second[-1] == {"role": "assistant", "content": "config.py\n```\n<<<<<<< SEARCH\n"}
        assert (workspace / "config.py").read_text() == config.replace("TIMEOUT = 30", "TIMEOUT = 45")
    finally:
        await rt.aclose()


@pytest.mark.parametrize("continues", [False, True])
async def test_a_claimed_change_to_the_one_file_asked_for_gets_that_file_asked_for_by_name(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, continues: bool
) -> None:
    if continues:
        fake_server.set_llamacpp(n_ctx=4096, alias=MODEL)
    stub = "def word_counts(text):\n    raise NotImplementedError\n"
    done = "def word_counts(text):\n    return {}\n"
    (workspace / "textstats.py").write_text(stub, encoding="utf-8")
    rt = make_runtime(workspace, fake_server, navtui_home)
    # from_docstring in the eval: a claim; told only to "make it now", the 1.5B wrote return text.split().count(' ').
    fake_server.script(Text("The function `word_counts` in `textstats.py` has been implemented."))
    fake_server.script(Text(done + "```\n") if continues else Text("textstats.py\n```python\n" + done + "```\n"))
    fake_server.script(Text("Implemented."))
    try:
        await run(rt, "Implement the function word_counts in textstats.py as its docstring says.\n\n@textstats.py")
        messages = fake_server.chat_requests[1].json["messages"]
        asked = user_text(fake_server.chat_requests[1].json)
        assert asked.endswith(
            "no command succeeded. Do what the request asks: Implement the function word_counts in textstats.py as "
            "its docstring says. Write the new textstats.py now: the line textstats.py on its own, then a fenced "
            "block with the whole new content of the file."
        )
        assert (messages[-1] == {"role": "assistant", "content": "textstats.py\n```\n"}) is continues
        assert (workspace / "textstats.py").read_text() == done
        assert len(fake_server.chat_requests) == 3
    finally:
        await rt.aclose()


@pytest.mark.parametrize("continues", [False, True])
async def test_a_failing_check_that_runs_a_copy_gets_the_block_that_takes_it_out(
    fake_server: FakeServer, workspace: Path, navtui_home: Path, continues: bool
) -> None:
    if continues:  # the reply is started with the file's block
        fake_server.set_llamacpp(n_ctx=4096, alias=MODEL)
    # test_and_fix in the eval: the 1.5B put the buggy chunk into test_lists.py under `from lists import chunk`,
    # then, told the check fails and why, copied lists.py and test_lists.py out unchanged until the run stopped.
    lists = "def chunk(items, size):\n    return [items[i:i + size] for i in range(0, len(items) - size + 1, size)]\n"
    fixed = "def chunk(items, size):\n    return [items[i:i + size] for i in range(0, len(items), size)]\n"
    (workspace / "lists.py").write_text(lists, encoding="utf-8")
    (workspace / "test_lists.py").write_text("from lists import chunk\n\nprint('ok')\n", encoding="utf-8")
    copied = (
        "from lists import chunk\n\n\n@staticmethod\n" + lists + "\n\nassert chunk([1, 2, 3], 2) == [[1, 2], [3]]\n"
    )
    without = "from lists import chunk\n\n\nassert chunk([1, 2, 3], 2) == [[1, 2], [3]]"
    rt = make_runtime(workspace, fake_server, navtui_home)
    fake_server.script(Text("test_lists.py\n```python\n" + copied + "```\n"))
    fake_server.script(Text("Done."))
    fake_server.script(Text(("" if continues else "test_lists.py\n```\n") + without + "\n```\n"))
    fake_server.script(Text("Done."))
    fake_server.script(Text("lists.py\n```python\n" + fixed + "```\n"))
    fake_server.script(Text("Fixed."))
    try:
        await run(rt, "Add a test to test_lists.py. Run python3 test_lists.py; if it fails, fix chunk.")
        texts = [user_text(r.json) for r in fake_server.chat_requests]
        asked = next(text for text in texts if "I ran the check `python3 test_lists.py` and it fails" in text)
        assert (
            "Note: test_lists.py imports chunk from lists, then defines its own, which hides the import: the code "
            "below it uses the copy. Remove the copy to use the module's. Write the new test_lists.py now: the line "
            "test_lists.py on its own, then a fenced block with this content:\n\n"
            "test_lists.py\n```\n" + without + "\n```\n\nFix the code so that the check passes"
        ) in asked
        asked_at = next(i for i, t in enumerate(texts) if "I ran the check `python3 test_lists.py`" in t)
        started = fake_server.chat_requests[asked_at].json["messages"][-1]
        assert (started == {"role": "assistant", "content": "test_lists.py\n```\n"}) is continues
        assert (workspace / "test_lists.py").read_text() == without + "\n"
        assert (workspace / "lists.py").read_text() == fixed
        assert len(fake_server.chat_requests) == 6  # the copy out, then the fix, then the check passed
    finally:
        await rt.aclose()
