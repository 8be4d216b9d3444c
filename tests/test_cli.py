"""The navtui command: flags, headless modes, exit codes, resuming.

Most runs call ``navtui.cli.main`` in this process (tests/run_main.py): what a run answers, prints and leaves is
the same, without a fresh interpreter per run. What only a process shows is run as ``python -m navtui``: a reader
that closes the pipe early, and the modules a whole run imports (the one full end-to-end run of the real command).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes import HttpError, Text, ToolCall, Usage
from tests.run_main import run_main

MODEL = "qwen2.5-coder:7b"


# A hang guard for the subprocess runs, never reached by a passing run: importing the SDKs alone took 20 s at load 8.
HANG = 600


def navtui(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_main(*args, cwd=cwd)


def navtui_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m navtui ARGS``: for what only a whole process shows."""
    return subprocess.run(
        [sys.executable, "-m", "navtui", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ),
        timeout=HANG,
        stdin=subprocess.DEVNULL,
    )


def headless(server: object, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return navtui(*args, "-p", "ollama", "-b", server.url, "-m", MODEL, cwd=cwd)  # type: ignore[attr-defined]


def test_help_lists_every_flag(workspace: Path) -> None:
    out = navtui("--help", cwd=workspace).stdout
    for flag in (
        "--print",
        "--json",
        "--model",
        "--provider",
        "--base-url",
        "--enable-handover",
        "--approval",
        "--continue",
        "--resume",
        "--cwd",
        "--theme",
        "--advisor",
    ):
        assert flag in out, flag
    for command in ("sessions", "export", "themes", "index", "search"):
        assert f"navtui {command}" in out


def test_print_answers_and_feeds_tool_results_back(fake_server, workspace: Path) -> None:
    (workspace / "a.py").write_text("print('hello')\n")
    fake_server.script(ToolCall("read", {"path": "a.py"}))
    fake_server.script(Text("It prints "), Text("hello."), Usage(input=40, output=4))
    result = headless(fake_server, "--print", "what does a.py do", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It prints hello.\n"
    assert "→ read a.py" in result.stderr.splitlines()
    second = fake_server.chat_requests[1].json
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_name"] == "read"
    assert "print('hello')" in tool_message["content"]
    assert second["options"]["num_ctx"] == 32768


def test_json_mode_writes_parseable_events(fake_server, workspace: Path) -> None:
    from navtui.core.events import JSON_EVENTS_VERSION, parse_agent_event
    from tests.core.test_events_doc import documented

    (workspace / "a.py").write_text("x = 1\n")
    fake_server.script(ToolCall("read", {"path": "a.py"}))
    fake_server.script(Text("Done"), Text("."))
    result = headless(fake_server, "--json", "read it", cwd=workspace)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    documented_events, _ = documented()
    for line in lines:  # each line versioned, of a documented type, with documented fields only
        assert line["v"] == JSON_EVENTS_VERSION
        assert set(line) - {"v", "type"} <= set(documented_events[line["type"]]), line
    events = [parse_agent_event(line) for line in lines]
    types = [e.type for e in events]
    assert "text_delta" in types and "tool_call_started" in types and "tool_call_finished" in types
    assert types.count("turn_finished") == 2 and types[-1] == "run_finished"
    assert "".join(e.text for e in events if e.type == "text_delta") == "Done."


def test_the_words_after_print_are_one_prompt(fake_server, workspace: Path) -> None:
    fake_server.script(Text("one"))
    fake_server.script(Text("two"))
    result = headless(fake_server, "--print", "explain", "main.py", "briefly", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert fake_server.chat_requests[-1].json["messages"][-1]["content"] == "explain main.py briefly"
    result = headless(fake_server, "explain", "--json", "the", "tests", cwd=workspace)  # words on either side
    assert result.returncode == 0, result.stderr
    assert fake_server.chat_requests[-1].json["messages"][-1]["content"] == "explain the tests"


@pytest.mark.parametrize("args", [["--print", ""], ["--print", "   "], ["--json"]])
def test_an_empty_headless_prompt_is_refused(fake_server, workspace: Path, args: list[str]) -> None:
    result = headless(fake_server, *args, cwd=workspace)
    assert result.returncode == 2
    assert "needs a prompt" in result.stderr and "Traceback" not in result.stderr
    assert fake_server.chat_requests == []  # nothing was sent


def test_an_unknown_model_headless_lists_what_ollama_has(fake_server, workspace: Path) -> None:
    fake_server.set_model(MODEL)
    fake_server.set_model("llama3.2:3b")
    result = navtui("--print", "hi", "-p", "ollama", "-b", fake_server.url, "-m", "nosuch:1b", cwd=workspace)
    assert result.returncode == 1
    assert "Model 'nosuch:1b' is not available on Ollama" in result.stderr
    assert "the server has: llama3.2:3b, qwen2.5-coder:7b" in result.stderr
    assert "to use one: navtui -m llama3.2:3b --print" in result.stderr
    assert "ollama serve" not in result.stderr  # it is running
    assert result.stderr.count("ollama pull nosuch:1b") == 1 and "/models" not in result.stderr  # a shell's way, once
    assert fake_server.chat_requests == []


def test_an_unknown_model_on_an_openai_compatible_server_lists_its_models(fake_server, workspace: Path) -> None:
    fake_server.set_model("local-model")
    fake_server.script(HttpError(404, "The model `nosuch` does not exist."))
    url = fake_server.url + "/v1"
    result = navtui("--json", "hi", "-p", "openai", "-b", url, "-m", "nosuch", cwd=workspace)
    assert result.returncode == 1
    assert "model 'nosuch'" in result.stderr and "the server has: local-model" in result.stderr
    assert "to use one: navtui -m local-model --json" in result.stderr
    assert "ollama" not in result.stderr.lower()


def test_a_missing_key_headless_says_what_to_do_there(workspace: Path) -> None:
    assert "ANTHROPIC_API_KEY" not in os.environ and "NAVTUI_API_KEY" not in os.environ  # conftest's navtui_home
    result = navtui("--print", "hi", "-m", "claude-sonnet-4-5", cwd=workspace)
    assert result.returncode == 1
    assert "export ANTHROPIC_API_KEY" in result.stderr and "navtui -m MODEL --print" in result.stderr
    assert "/model" not in result.stderr  # an app command means nothing here


def test_a_call_the_model_garbled_shows_no_internal_markers(fake_server, workspace: Path) -> None:
    fake_server.script(ToolCall("read", raw_arguments='{"path": "a.py", oops'))
    fake_server.script(Text("sorry"))
    result = headless(fake_server, "--print", "read a.py", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "→ read (arguments the model wrote could not be read)" in result.stderr
    assert "__" not in result.stderr


@pytest.mark.parametrize("mode", ["--print", "--json"])
def test_at_path_attaches_the_file_headless_as_in_the_app(fake_server, workspace: Path, mode: str) -> None:
    (workspace / "a.py").write_text("ANSWER = 42\n")
    (workspace / "blob.bin").write_bytes(b"\0\1\2")
    (workspace / "b.py").write_text("B = 2\n")
    fake_server.script(Text("It sets ANSWER."))
    result = headless(fake_server, mode, "explain @a.py and @blob.bin beside b.py", cwd=workspace)
    assert result.returncode == 0, result.stderr
    sent = fake_server.chat_requests[-1].json["messages"][-1]["content"]
    assert sent == (
        "explain @a.py and @blob.bin beside b.py\n\n"
        '<attached_file path="a.py">\nANSWER = 42\n</attached_file>\n<attached_file path="b.py">\nB = 2\n</attached_file>\n'
    )  # the file the prompt names without an @ goes too, as in the app
    told = result.stderr if mode == "--print" else result.stdout
    assert "@blob.bin: a binary file, not attached" in told and "Attached b.py: named in the prompt." in told


def test_read_edit_and_run_end_to_end(fake_server, workspace: Path) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake_server.script(ToolCall("read", {"path": "calc.py"}))
    fake_server.script(ToolCall("edit", {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}))
    fake_server.script(ToolCall("shell", {"command": f"{sys.executable} -c 'import calc; print(calc.add(2, 3))'"}))
    fake_server.script(Text("Fixed: add(2, 3) is now 5."))
    result = headless(fake_server, "--print", "fix add", "--approval", "yolo", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    shell_result = fake_server.chat_requests[3].json["messages"][-1]
    assert shell_result["tool_name"] == "shell" and "5" in shell_result["content"]
    assert result.stdout.strip() == "Fixed: add(2, 3) is now 5."


def test_headless_refuses_calls_that_need_approval(fake_server, workspace: Path) -> None:
    fake_server.script(ToolCall("write", {"path": "new.txt", "content": "x"}))
    fake_server.script(Text("ok"))
    result = headless(fake_server, "--print", "write it", cwd=workspace)  # approval defaults to ask
    assert result.returncode == 0
    assert not (workspace / "new.txt").exists()
    refusal = fake_server.chat_requests[1].json["messages"][-1]["content"]
    assert "--approval" in refusal


def test_a_repository_cannot_grant_itself_yolo(fake_server, workspace: Path, navtui_home: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".navtui").mkdir()
    (workspace / ".navtui" / "settings.json").write_text(
        json.dumps({"approval": "yolo", "tools": {"allow": ["shell", "write"]}})
    )
    fake_server.script(ToolCall("shell", {"command": "echo pwned > pwned.txt"}))
    fake_server.script(Text("ok"))
    result = headless(fake_server, "--print", "set things up", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert not (workspace / "pwned.txt").exists()
    user_file = navtui_home / "settings.json"
    assert "'approval: \"yolo\"' is ignored in a project file" in result.stderr
    assert "'tools.allow' is ignored in a project file" in result.stderr and f"set it in {user_file}" in result.stderr


KEY = "gateway-key-7f3a9c2e5b1d"  # no known key shape: only the known-value masking can catch it
SHORT_KEY = "k7Qz9xP"  # 7 characters: under the 8 a generic secret needs, still a key


@pytest.mark.parametrize("mode", ["--print", "--json"])
@pytest.mark.parametrize("key", [KEY, SHORT_KEY])
def test_a_401_that_quotes_the_key_never_shows_it(
    fake_server, workspace: Path, navtui_home: Path, monkeypatch: pytest.MonkeyPatch, mode: str, key: str
) -> None:
    monkeypatch.setenv("NAVTUI_API_KEY", key)
    fake_server.script(HttpError(401, "Incorrect API key provided: {api_key}. Find your key at ..."))
    result = navtui(mode, "hi", "-p", "openai", "-b", fake_server.url + "/v1", "-m", "gpt-4o", cwd=workspace)
    assert fake_server.chat_requests[0].headers["authorization"] == f"Bearer {key}"  # the server did quote it
    assert result.returncode == 1
    assert key not in result.stderr and key not in result.stdout
    assert "Incorrect API key provided: ****" in result.stderr + result.stdout
    stored = "".join(path.read_text() for path in (navtui_home / "sessions").rglob("*.jsonl"))
    assert stored and key not in stored


def test_provider_error_exits_1_with_one_line_reason(fake_server, workspace: Path) -> None:
    fake_server.script(HttpError(400, "invalid option: num_ctx must be positive"))  # a 4xx is never retried
    result = headless(fake_server, "--print", "hi", cwd=workspace)
    assert result.returncode == 1
    assert "num_ctx must be positive" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_ollama_says_how_to_start_it(workspace: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = navtui("--print", "hi", "-p", "ollama", "-b", f"http://127.0.0.1:{port}", "-m", MODEL, cwd=workspace)
    assert result.returncode == 1
    assert "ollama serve" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--approval", "sometimes", "--print", "x"],
        ["--print"],
        ["--print", "a", "--json", "b"],
        ["--cwd", "/nonexistent/dir", "--print", "x"],
    ],
)
def test_usage_errors_exit_2(args: list[str], workspace: Path) -> None:
    result = navtui(*args, cwd=workspace)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_bad_settings_file_is_a_usage_error(workspace: Path, navtui_home: Path) -> None:
    (navtui_home / "settings.json").write_text('{"approval": 3}')
    result = navtui("--print", "x", cwd=workspace)
    assert result.returncode == 2 and "approval" in result.stderr and "Traceback" not in result.stderr


def test_continue_resumes_the_latest_session(fake_server, workspace: Path) -> None:
    fake_server.script(Text("first answer"))
    assert headless(fake_server, "--print", "remember 42", cwd=workspace).returncode == 0
    fake_server.script(Text("it was 42"))
    result = headless(fake_server, "--print", "what number?", "-c", cwd=workspace)
    assert result.returncode == 0, result.stderr
    messages = fake_server.chat_requests[-1].json["messages"]
    contents = [m["content"] for m in messages if m["role"] != "system"]
    assert contents == ["remember 42", "first answer", "what number?"]


def test_a_window_too_small_for_the_prompt_exits_1_with_what_to_change(fake_server, workspace: Path) -> None:
    fake_server.set_llamacpp(n_ctx=512)
    result = navtui("--print", "say hello", "-p", "openai", "-b", fake_server.url, "-m", "tiny", cwd=workspace)
    assert result.returncode == 1, result.stderr
    assert "window of 512 tokens" in result.stderr and "--ctx-size" in result.stderr
    assert fake_server.chat_requests == []


@pytest.mark.parametrize("args", [["themes", "list"], ["sessions", "--all"], ["--help"]])
def test_a_reader_that_stops_early_gets_no_traceback(workspace: Path, args: list[str]) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "navtui", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=workspace,
    )  # fmt: skip
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # as `| head -0` would: every write now hits a closed pipe
    err = child.stderr.read().decode()
    child.stderr.close()  # a pipe left to the garbage collector is a ResourceWarning (an error in this suite)
    assert child.wait(timeout=HANG) in (0, 141)
    assert "Traceback" not in err and "BrokenPipeError" not in err


def test_print_says_when_the_model_is_being_loaded(fake_server, workspace: Path) -> None:
    fake_server.set_model(MODEL, loaded=False)
    fake_server.load_delay = 0.2
    fake_server.script(Text("ready"))
    result = headless(fake_server, "--print", "hi", cwd=workspace)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert f"[info] loading {MODEL} into memory…" in lines
    assert any(line.startswith(f"[info] {MODEL} loaded in ") for line in lines)
    assert result.stdout == "ready\n"


def test_a_clean_exit_leaves_no_temp_journal(fake_server, workspace: Path, navtui_home: Path) -> None:
    fake_server.script(ToolCall("write", {"path": "notes.txt", "content": "hi\n"}))
    fake_server.script(Text("written"))
    # A process: its journal lives as long as it does (removed at exit).
    argv = ["--print", "write it", "--approval", "write", "-p", "ollama", "-b", fake_server.url, "-m", MODEL]
    result = navtui_process(*argv, cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert (workspace / "notes.txt").read_text() == "hi\n"  # the write went through a journalled temp file
    assert (navtui_home / "journal").is_dir()
    assert list((navtui_home / "journal").iterdir()) == []


def test_a_reply_does_not_load_the_http_client_s_command_line(fake_server, workspace: Path) -> None:
    # httpx's __init__ imports its command-line client (click, rich.progress, pygments' lexer table: 3.4 MB of a
    # process) whenever click is installed; navtui never runs it (docs/speed.md, memory).
    fake_server.script(Text("Done."), Usage(input=10, output=1))
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "navtui", "--print", "hi", "-p", "ollama"]
        + ["-b", fake_server.url, "-m", MODEL],
        capture_output=True,
        text=True,
        cwd=workspace,
        timeout=HANG,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0 and result.stdout == "Done.\n", result.stderr[-2000:]
    imported = {
        line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if line.startswith("import time:")
    }
    assert {"httpx", "httpx._client"} <= imported  # the client itself, as before
    assert not {"click", "rich.progress", "pygments.lexers"} & imported  # httpx._main is tried, and fails
