"""The helpers under the shell tool: env scrubbing and output excerpts."""

from __future__ import annotations

from pathlib import Path

from navtui.tools.shell.env import scrubbed_env
from navtui.tools.shell.output import excerpt_file, sanitize


def test_scrubbed_env() -> None:
    env = scrubbed_env(
        {
            "PATH": "/bin",
            "HOME": "/home/u",
            "NAVTUI_HOME": "/x",
            "ANTHROPIC_API_KEY": "k",
            "AWS_SECRET_ACCESS_KEY": "k",
            "NAVTUI_TOKEN": "k",
            "KEYBOARD_LAYOUT": "us",
            "SSH_AUTH_SOCK": "/tmp/agent",
        },
        passthrough=["AWS_SECRET_ACCESS_KEY", "ANTHROPIC_API_KEY"],
    )
    assert {"PATH", "HOME", "NAVTUI_HOME", "KEYBOARD_LAYOUT", "SSH_AUTH_SOCK", "AWS_SECRET_ACCESS_KEY"} <= set(env)
    assert "ANTHROPIC_API_KEY" not in env and "NAVTUI_TOKEN" not in env
    assert env["PAGER"] == "cat" and env["GIT_TERMINAL_PROMPT"] == "0"


def test_sanitize() -> None:
    assert sanitize("a\r\nb\n10%\r50%\r100%\n") == "a\nb\n100%\n"
    assert sanitize("\x1b[1;31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x07bell\x00") == "red link bell"


def test_excerpt_reads_only_head_and_tail(tmp_path: Path) -> None:
    path = tmp_path / "out.log"
    path.write_text("".join(f"line {i}\n" for i in range(10_000)))
    excerpt = excerpt_file(path, head_bytes=100, head_lines=5, tail_bytes=200, tail_lines=3)
    assert excerpt.head == "line 0\nline 1\nline 2\nline 3\nline 4\n"
    assert excerpt.tail == "line 9997\nline 9998\nline 9999\n"
    assert excerpt.total_lines == 10_000 and excerpt.omitted_lines == 9_992
    rendered = excerpt.render("/tmp/full.log")
    assert "[... 9992 lines" in rendered and "Full output: /tmp/full.log" in rendered
    small = tmp_path / "small.log"
    small.write_text("just this\n")
    assert excerpt_file(small).render() == "just this\n" and not excerpt_file(small).truncated
