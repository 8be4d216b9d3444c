"""The local-model eval's own parts (bench/eval_*.py), against the fakes: no model, no aider install.

The checkers must be able to fail (each refuses the fresh repository) and to pass (each accepts a right answer);
the runner must drive navtui and an aider-like program the same way and count what they did.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from bench import eval_local, eval_report
from bench.eval_tasks import ALL_TASKS, HARD_TASKS, SOLUTIONS, TASKS, solve
from tests.fakes import Text, ToolCall, Usage

MODEL = "qwen2.5-coder:7b"


@pytest.mark.parametrize("task", ALL_TASKS, ids=[t.name for t in ALL_TASKS])
def test_each_checker_refuses_the_fresh_repository_and_accepts_a_right_answer(task, tmp_path: Path) -> None:
    task.make(tmp_path)
    for rel in task.user_files:
        assert rel in task.files, f"{task.name}: the user would add {rel}, which the repository does not have"
    problem = task.check(tmp_path, task.files)
    if task.edits:
        assert problem is not None, f"{task.name}: finished before anything was done"
    else:
        assert problem is None
    solve(task, tmp_path)
    assert task.check(tmp_path, task.files) is None


def test_no_edit_checkers_refuse_a_written_file(tmp_path: Path) -> None:
    for task in (t for t in TASKS if not t.edits):
        root = tmp_path / task.name
        task.make(root)
        (root / "hello.txt").write_text("hi\n")
        assert task.check(root, task.files) == "wrote files: ['hello.txt']"


def test_there_are_solutions_for_exactly_the_tasks() -> None:
    assert set(SOLUTIONS) == {t.name for t in ALL_TASKS}
    assert len(TASKS) >= 24 and len(HARD_TASKS) >= 8
    assert len({t.name for t in ALL_TASKS}) == len(ALL_TASKS)


WRONG: dict[str, tuple[dict[str, str], str]] = {  # a plausible wrong answer per harder task, and what the checker says
    "param_through": (
        {"main.py": "print('Hello, Ann!')\n"},  # the output printed, the parameter never added
        "format_greeting(name, excited=...) is missing or wrong",
    ),
    "hidden_bug": (
        {"shop/pricing.py": "def sale_price(price, member):\n    return 80 if member else 95\n"},  # the test fooled
        "percent_off(50, 10) is not 45",
    ),
    "move_function": (
        {"timeparse.py": "from utils import parse_duration\n"},  # re-exported, not moved
        "timeparse.py does not define parse_duration",
    ),
    "from_docstring": (
        {"textstats.py": "def word_counts(text):\n    return {w: text.split().count(w) for w in text.split()}\n"},
        "word_counts is wrong",  # not lower-cased
    ),
    "config_code": (
        {"config.json": '{"url": "http://localhost:8000", "timeout": 10, "retries": 3}\n'},  # client.py not changed
        "client.py prints",
    ),
    "test_and_fix": (
        {"lists.py": "def chunk(items, size):\n    return [items[i:i + size] for i in range(0, len(items), size)]\n"},
        "test_lists.py passes the old chunk",  # fixed, but no test was added
    ),
    "big_repo": (
        {
            "services/billing.py": "from decimal import Decimal\n\n\ndef late_fee(amount, days):\n"
            "    return Decimal(amount) * Decimal('0.02') * ((days + 6) // 7)\n"
        },  # the rest of the long file lost
        "services/billing.py changed more than late_fee",
    ),
    "cli_flag": (
        {"cli.py": "import sys\n\nprint('verbose on')\nprint(int(sys.argv[-2]) + int(sys.argv[-1]))\n"},
        "cli.py 2 3 prints 'verbose on",  # always verbose
    ),
    "rename_unnamed": (
        {"app/users.py": "USERS = {1: 'ann', 2: 'bob'}\n\n\ndef fetch_user(user_id):\n    return USERS.get(user_id)\n"},
        "app/views.py still says get_user",  # the callers left behind
    ),
}


@pytest.mark.parametrize("task", HARD_TASKS, ids=[t.name for t in HARD_TASKS])
def test_each_harder_checker_refuses_a_plausible_wrong_answer(task, tmp_path: Path) -> None:
    files, problem = WRONG[task.name]
    task.make(tmp_path)
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    assert problem in (task.check(tmp_path, task.files) or "")


def test_the_old_set_runs_alone_by_default_and_the_harder_one_by_name() -> None:
    base = ["-b", "http://127.0.0.1:9", "-m", "m"]
    assert eval_local.parse_args(base).set == "base"
    assert [t.name for t in eval_local.selected_tasks(eval_local.parse_args(base))] == [t.name for t in TASKS]
    hard = eval_local.selected_tasks(eval_local.parse_args([*base, "--set", "hard"]))
    assert [t.name for t in hard] == [t.name for t in HARD_TASKS]
    assert len(eval_local.selected_tasks(eval_local.parse_args([*base, "--set", "all"]))) == len(ALL_TASKS)
    picked = eval_local.selected_tasks(eval_local.parse_args([*base, "--tasks", "hello", "big_repo"]))
    assert [t.name for t in picked] == ["hello", "big_repo"]  # --tasks picks from every set


def _args(server_url: str, *extra: str) -> object:
    return eval_local.parse_args(["-b", server_url, "-p", "ollama", "-m", MODEL, "--run-timeout", "60", *extra])


def _prepared(args: object) -> object:
    eval_local.describe_agents(args)  # type: ignore[arg-type]
    args.discovered_window = None  # type: ignore[attr-defined]
    return args


def test_a_navtui_run_gets_the_users_files_and_is_checked_on_the_files(fake_server, tmp_path: Path) -> None:
    task = next(t for t in TASKS if t.name == "read_answer")
    fake_server.script(
        ToolCall("write", {"path": "answer.txt", "content": "Project codeword: amber-falcon-42\n"}), Usage(300, 20)
    )
    fake_server.script(Text("Done."), Usage(350, 2))
    args = _prepared(_args(fake_server.url, "--protocol", "native", "--keep", str(tmp_path / "kept")))
    row = eval_local.run_task(task, "native", args)  # type: ignore[arg-type]
    assert row.finished, row
    assert (row.valid_calls, row.invalid_calls, row.requests) == (1, 0, 2)
    assert (row.prompt_tokens, row.max_request) == (650, 350)
    assert row.agent.startswith("navtui ")
    first = fake_server.chat_requests[0].json["messages"]
    user = next(m for m in first if m["role"] == "user")["content"]
    assert user.startswith(task.prompt) and "@README.md" in user
    assert '<attached_file path="README.md">' in user and "amber-falcon-42" in user
    assert not (tmp_path / "kept").exists()  # only failed runs are kept


def test_a_failed_run_says_why_and_is_kept(fake_server, tmp_path: Path) -> None:
    task = next(t for t in TASKS if t.name == "append_line")
    fake_server.script(Text("I added it."))  # a claim, no edit
    fake_server.script(Text("I added it."))  # asked again, still nothing
    args = _prepared(_args(fake_server.url, "--protocol", "text", "--keep", str(tmp_path / "kept")))
    row = eval_local.run_task(task, "text", args)  # type: ignore[arg-type]
    assert not row.finished
    assert row.why.startswith("requirements.txt is ")
    kept = tmp_path / "kept" / f"{MODEL}-text-append_line-1"
    assert (kept / "repo" / "requirements.txt").read_text() == "requests>=2.31\nrich>=13\n"
    assert any(json.loads(line)["type"] == "run_finished" for line in (kept / "stdout.txt").read_text().splitlines())


FAKE_AIDER = """\
#!{python}
import json, sys
from pathlib import Path
argv = sys.argv[1:]
Path(argv[argv.index("--chat-history-file") + 1]).write_text(json.dumps(argv))
message = argv[argv.index("--message") + 1]
files = argv[argv.index("--message") + 2:]
Path("answer.txt").write_text("Project codeword: amber-falcon-42\\n")
print("Tokens: 1.2k sent, 31 received.")
print("Applied edit to answer.txt")
print("Tokens: 812 sent, 5 received.")
"""


def test_an_aider_run_gets_the_same_prompt_files_and_server(tmp_path: Path) -> None:
    aider = tmp_path / "aider"
    aider.write_text(FAKE_AIDER.format(python=sys.executable))
    aider.chmod(aider.stat().st_mode | stat.S_IXUSR)
    task = next(t for t in TASKS if t.name == "read_answer")
    args = eval_local.parse_args(
        ["-b", "http://127.0.0.1:9", "-m", "qwen2.5-coder-1.5b", "--aider", str(aider), "--protocol", "aider-whole"]
    )
    args.navtui_commit, args.aider_version, args.discovered_window = "navtui x", "aider 0.86.2", 4096
    command, env = eval_local.aider_command(task, "aider-whole", args, tmp_path)
    assert command[command.index("--edit-format") + 1] == "whole"
    assert command[command.index("--openai-api-base") + 1] == "http://127.0.0.1:9/v1"
    assert command[-2:] == [task.prompt, "README.md"]
    metadata = json.loads((tmp_path / "model-metadata.json").read_text())
    assert metadata["openai/qwen2.5-coder-1.5b"]["max_input_tokens"] == 4096
    row = eval_local.run_task(task, "aider-whole", args)  # type: ignore[arg-type]
    assert row.finished, row
    assert (row.requests, row.prompt_tokens, row.max_request) == (2, 2012, 1200)
    assert (row.valid_calls, row.invalid_calls, row.agent, row.window) == (1, 0, "aider 0.86.2", 4096)


def test_the_report_puts_protocols_and_aider_side_by_side(tmp_path: Path) -> None:
    rows = []
    for protocol, finished in (("aider-whole", [True, False]), ("edits", [True, True]), ("text", [False, False])):
        for run, done in enumerate(finished, 1):
            rows.append(
                {
                    "task": "fix_test",
                    "protocol": protocol,
                    "model": "m",
                    "finished": done,
                    "valid_calls": 1,
                    "invalid_calls": 0,
                    "requests": 2,
                    "prompt_tokens": 900,
                    "max_request": 500,
                    "window": 4096,
                    "wall_s": 10.0,
                    "run": run,
                    "load_start": 1.5,
                    "load": 2.5,
                    "label": "",
                }  # fmt: skip
            )
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    loaded = eval_report.load([path, path])  # the same rows twice count once
    assert len(loaded) == 6
    table = eval_report.side_by_side(loaded).splitlines()
    assert table[0] == "| model | edits | text | aider-whole |"
    assert table[2] == "| m | 2/2 (100 %) | 0/2 (0 %) | 1/2 (50 %) |"
    summary = eval_report.summary(loaded)
    assert "| m | edits |  | 2 | 2/2 | 2/0 | 4 | 1800 | 500 / 4096 | 20 | 1.5-2.5 |" in summary
    cells = eval_report.per_task(loaded, "m").splitlines()
    assert cells[2] == "| fix_test | **2/2** 1/0+1/0 · 10+10s | 0/2 1/0+1/0 · 10+10s | **1/2** 1/0+1/0 · 10+10s |"
