"""A stream line nested deeper than Python's stack (a broken or hostile server): the turn ends with a clear error,
the run goes on. ``json.loads`` raised RecursionError, which ended ``navtui --print`` with ``navtui:
RecursionError: maximum recursion depth exceeded`` (exit 1, no word of the server) and would end the app's turn
task the same way."""

from __future__ import annotations

import pytest

from tests.fakes import RawLine, Text
from tests.fakes.server import FakeServer
from tests.run_main import run_main

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("provider", "model", "who"), [("ollama", "qwen2.5-coder:7b", "Ollama"), ("openai", "gpt-4o", "The server")]
)
def test_a_stream_line_nested_too_deep_ends_the_turn_with_a_clear_error(
    fake_server: FakeServer, workspace, provider: str, model: str, who: str
) -> None:
    fake_server.script(Text("partial "), RawLine(DEEP))
    base = fake_server.url + ("/v1" if provider == "openai" else "")
    env = {"OPENAI_API_KEY": "test"}
    run = run_main("-p", provider, "-b", base, "-m", model, "--print", "hi", cwd=workspace, env=env)
    assert run.returncode == 1
    assert "RecursionError" not in run.stderr and "Traceback" not in run.stderr
    assert f"navtui: {who} sent a line nested too deeply to read" in run.stderr, run.stderr
    assert run.stdout.startswith("partial")  # what came before it was shown
