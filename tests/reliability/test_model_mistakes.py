"""Model misbehaviour P13, P15, P16: malformed calls, a tool call the server cannot parse, a model stuck in a loop.

Run through ``navtui --print`` on the fake Ollama server: the exit code is part of the contract (1 when the run
was stopped, docs/reliability.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes import FakeServer, HttpError, Text, ToolCall
from tests.run_main import run_main

MODEL = "qwen2.5-coder:7b"


def _headless(server: FakeServer, *args: str, cwd: Path, openai: bool = False):
    provider = (
        ("-p", "openai", "-b", server.url, "-m", "qwen2.5-coder-7b")
        if openai
        else ("-p", "ollama", "-b", server.url, "-m", MODEL)
    )
    return run_main(*provider, "--approval", "yolo", *args, cwd=cwd)  # fmt: skip


def _results(server: FakeServer) -> list[str]:
    return [m["content"] for m in server.chat_requests[-1].json["messages"] if m["role"] == "tool"]


def test_p13_malformed_calls_never_run_and_three_invalid_responses_in_a_row_stop_the_run(
    fake_server: FakeServer, workspace: Path
) -> None:
    fake_server.script(
        ToolCall("write", raw_arguments='{"path": "a.txt", "content": "hal'),  # truncated JSON
        ToolCall("write", raw_arguments="[1, 2]"),  # not an object
    )
    fake_server.script(ToolCall("write", {"path": "b\x00.txt", "content": "x"}))  # NUL in a path: runs, is refused
    fake_server.script(
        ToolCall("write", {"path": "c.txt"}),  # a required field missing
        ToolCall("read", {"path": "c.txt", "offset": "ten"}),  # a wrong type
    )
    fake_server.script(ToolCall("frobnicate", {"x": 1}))  # an unknown tool
    fake_server.script(ToolCall("write", raw_arguments='{"path": "d.txt", "content": '))
    fake_server.script(Text("never requested"))
    run = _headless(fake_server, "--print", "write files", cwd=workspace)
    assert run.returncode == 1, run.stderr
    assert "invalid tool calls 3 times in a row" in run.stderr and "Traceback" not in run.stderr
    assert len(fake_server.chat_requests) == 5
    assert sorted(p.name for p in workspace.iterdir()) == []  # nothing was written
    results = _results(fake_server)
    assert "not valid JSON" in results[0] and "must be a JSON object" in results[1]
    assert "NUL" in results[2] and "content" in results[3] and "offset" in results[4]
    assert "Unknown tool 'frobnicate'" in results[5]


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "llama.cpp"])
def test_p15_a_500_error_parsing_tool_call_is_retried_once_then_handed_to_the_model(
    fake_server: FakeServer, workspace: Path, openai: bool
) -> None:
    message = "Failed to parse tool call arguments as JSON" if openai else "error parsing tool call: raw='{\"path\":'"
    fake_server.script(HttpError(500, message))
    fake_server.script(HttpError(500, message))
    fake_server.script(Text("I answer without the tool."))
    run = _headless(fake_server, "--print", "read it", cwd=workspace, openai=openai)
    assert run.returncode == 0 and run.stdout.strip() == "I answer without the tool.", run.stderr
    assert "could not parse" in run.stderr and "busy" not in run.stderr  # a model mistake, not a server outage
    assert len(fake_server.chat_requests) == 3  # the first try, one retry, then the model with the error
    messages = fake_server.chat_requests[-1].json["messages"]
    # The made-up name of an unreadable call is never shown to the model (a small one copies it): the answer says
    # the call could not be read and the correction follows as the user's.
    assert "invalid_tool_call" not in json.dumps(messages) and _results(fake_server) == []
    said, correction = messages[-2:]
    assert said["role"] == "assistant" and "could not read" in said["content"] and not said.get("tool_calls")
    assert correction["role"] == "user" and "could not parse your tool call" in correction["content"]
    assert message.split(":")[0] in correction["content"]


def test_p16_the_same_failing_call_repeated_stops_after_three(fake_server: FakeServer, workspace: Path) -> None:
    for _ in range(50):
        fake_server.script(ToolCall("read", {"path": "missing.py"}))
    run = _headless(fake_server, "--print", "read it", cwd=workspace)
    assert run.returncode == 1, run.stderr
    assert "repeated the same failing read call 3 times" in run.stderr and "File not found" in run.stderr
    assert len(fake_server.chat_requests) == 3


def test_p16_the_same_successful_call_runs_once_and_its_third_repeat_ends_the_run_with_a_note(
    fake_server: FakeServer, workspace: Path
) -> None:
    # Qwen2.5-Coder 1.5B in the eval: the same successful write six times until the turn limit, the file long right.
    for _ in range(50):
        fake_server.script(ToolCall("shell", {"command": "echo numpy >> requirements.txt"}))
    run = _headless(fake_server, "--print", "add numpy", cwd=workspace)
    assert run.returncode == 0, run.stderr
    assert "made the same shell call 3 times in a row; the run stops" in run.stderr
    assert len(fake_server.chat_requests) == 3
    assert (workspace / "requirements.txt").read_text() == "numpy\n"  # run once: a repeat would append again
    results = _results(fake_server)
    assert len(results) == 2 and results[1].startswith("Not run again: this is the same call")


def test_p16_running_out_of_max_turns_exits_1(fake_server: FakeServer, workspace: Path, navtui_home: Path) -> None:
    (navtui_home / "settings.json").write_text(json.dumps({"max_turns": 2}))
    (workspace / "a.txt").write_text("a\n")
    for offset in range(1, 10):
        fake_server.script(ToolCall("read", {"path": "a.txt", "offset": 1, "limit": offset}))
    run = _headless(fake_server, "--print", "read forever", cwd=workspace)
    assert run.returncode == 1 and "Stopped after 2 turns (max_turns)" in run.stderr, run.stderr
    assert len(fake_server.chat_requests) == 2


@pytest.mark.parametrize("openai", [False, True], ids=["ollama", "llama.cpp"])
def test_a_call_whose_arguments_nest_hundreds_deep_is_answered_as_malformed_and_the_session_goes_on(
    fake_server: FakeServer, workspace: Path, openai: bool
) -> None:
    # Arguments nested 300 deep decode (json reads ~1,000 levels) but cannot be saved (pydantic writes 255):
    # recording the answer raised ValueError out of the run, a traceback in --print (the app's turn died alike).
    nested: list[object] = []
    for _ in range(300):
        nested = [nested]
    fake_server.script(ToolCall("read", {"path": nested}))
    fake_server.script(Text("I read nothing."))
    run = _headless(fake_server, "--print", "read it", cwd=workspace, openai=openai)
    assert run.returncode == 0 and run.stdout.strip() == "I read nothing.", run.stderr
    [result] = _results(fake_server)
    assert "nest deeper than" in result
    fake_server.script(Text("Going on."))
    again = _headless(fake_server, "--print", "-c", "go on", cwd=workspace, openai=openai)
    assert again.returncode == 0 and again.stdout.strip() == "Going on.", again.stderr
    assert "unreadable" not in again.stderr and _results(fake_server) == [result]  # the history came back whole
