"""``navtui --print`` on a real pty shows a model's escape sequences as visible text; into a pipe it stays raw."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakes import Text, ToolCall

MODEL = "qwen2.5-coder:7b"
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x1b\\"
TITLE = "\x1b]0;PWNED\x07"
ANSWER = f"copy{CLIPBOARD} title{TITLE} csi\x9b2J end"


def _command(server: object, prompt: str) -> list[str]:
    url = server.url  # type: ignore[attr-defined]
    return [sys.executable, "-m", "navtui", "--print", prompt, "-p", "ollama", "-b", url, "-m", MODEL]


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed its side of the pty
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def test_print_on_a_terminal_shows_escapes_and_writes_none(fake_server, workspace: Path) -> None:
    fake_server.script(ToolCall("read", {"path": f"x{TITLE}.md"}))
    fake_server.script(Text(ANSWER))
    master, slave = os.openpty()
    try:
        process = subprocess.Popen(
            _command(fake_server, "go"), cwd=workspace, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
        )
        os.close(slave)
        output = _read_all(master).decode("utf-8", "replace")
        assert process.wait(timeout=60) == 0, output
    finally:
        os.close(master)
    assert "copy␛]52;c;cm0gLXJmIH4=␛\\ title␛]0;PWNED␇ csi\\x9b2J end" in output
    assert "x␛]0;PWNED␇.md" in output  # the tool line on stderr (a terminal too) quotes the argument safely
    assert "\x1b" not in output and "\x07" not in output and "\x9b" not in output


def test_print_into_a_pipe_keeps_the_answer_byte_for_byte(fake_server, workspace: Path) -> None:
    fake_server.script(Text(ANSWER))
    result = subprocess.run(
        _command(fake_server, "go"), cwd=workspace, stdin=subprocess.DEVNULL, capture_output=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode("utf-8") == ANSWER + "\n"  # data for the next program, as the model wrote it
