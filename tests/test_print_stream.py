"""``navtui --print`` streams the answer as it comes and attaches what is piped into it (as ``claude -p`` does)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

from navtui.headless import PipedInput, piped_input, with_piped_input
from tests.fakes import Text, ToolCall

MODEL = "qwen2.5-coder:7b"


def _command(server: object, *prompt: str) -> list[str]:
    url = server.url  # type: ignore[attr-defined]
    return [sys.executable, "-m", "navtui", "--print", *prompt, "-p", "ollama", "-b", url, "-m", MODEL]


def test_the_answer_streams_to_stdout_before_the_turn_ends(fake_server, workspace: Path) -> None:
    fake_server.script(Text("first part, "), Text("the rest never comes", delay=60))
    process = subprocess.Popen(
        _command(fake_server, "go"), cwd=workspace, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        seen = b""
        while b"first part, " not in seen:
            chunk = os.read(process.stdout.fileno(), 4096)
            assert chunk, f"stdout closed: {seen!r}"
            seen += chunk
        assert process.poll() is None  # the answer is still streaming: the first part came as it was written
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def test_each_turns_text_on_its_own_lines_and_tools_on_stderr(fake_server, workspace: Path) -> None:
    (workspace / "a.txt").write_text("hello\n")
    fake_server.script(Text("Let me look."), ToolCall("read", {"path": "a.txt"}))
    fake_server.script(Text("It says hello."))
    result = subprocess.run(
        _command(fake_server, "what is in a.txt"), cwd=workspace, stdin=subprocess.DEVNULL, capture_output=True,
        timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == "Let me look.\nIt says hello.\n"
    assert "→ read a.txt" in result.stderr.decode()


def test_piped_input_is_attached_to_the_prompt(fake_server, workspace: Path) -> None:
    fake_server.script(Text("looks fine"))
    result = subprocess.run(
        _command(fake_server, "review this"), cwd=workspace, input=b"diff --git a/x b/x\n+new line\n",
        capture_output=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    sent = fake_server.chat_requests[-1].json["messages"][-1]["content"]
    assert sent == "review this\n\n<stdin>\ndiff --git a/x b/x\n+new line\n\n</stdin>"


def test_piped_input_alone_is_the_prompt_and_a_long_one_is_cut_with_a_note(fake_server, workspace: Path) -> None:
    fake_server.script(Text("ok"))
    big = ("é" * 99 + "\n") * 800  # 159 KB of two-byte characters: the cut must not split one
    result = subprocess.run(
        [*_command(fake_server)], cwd=workspace, input=big.encode(), capture_output=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "stdin held 159 KB; only its first 100 KB were attached" in result.stderr.decode()
    sent = fake_server.chat_requests[-1].json["messages"][-1]["content"]
    kept, _, note = sent.rpartition("\n")
    assert big.startswith(kept) and 99_998 <= len(kept.encode()) <= 100_000
    assert note == "[cut: stdin held 159 KB; only its first 100 KB were attached]"


def test_a_terminal_or_a_device_is_not_read(tmp_path: Path) -> None:
    with open(os.devnull, "rb") as null:
        assert piped_input(null) is None
    master, slave = os.openpty()
    try:
        with os.fdopen(slave, "rb", closefd=False) as tty:
            assert piped_input(tty) is None
    finally:
        os.close(master)
        os.close(slave)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with empty.open("rb") as file:
        assert piped_input(file) is None
    assert piped_input(io.BytesIO(b"not a file")) is None  # no descriptor: nothing to read


def test_the_prompt_with_piped_text() -> None:
    assert with_piped_input("", PipedInput("just this", 9)) == "just this"
    cut = PipedInput("abc", 5000, limit=3)
    assert (
        with_piped_input("look", cut)
        == "look\n\n<stdin>\nabc\n[cut: stdin held 5 KB; only its first 3 bytes were attached]\n</stdin>"
    )
