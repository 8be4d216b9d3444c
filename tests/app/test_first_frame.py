"""The first frame ``navtui`` writes to a real terminal (drawn by the benchmark's VT emulator, as a user's
terminal would): complete in one synchronized update, and for a resumed session its tail."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from navtui.core.messages import AssistantMessage, TextBlock, UserMessage
from navtui.session.manager import SessionManager

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from terminal import Terminal  # noqa: E402

MODEL = "qwen2.5-coder:7b"


def complete_after(workspace: Path, shows: str, *args: str) -> int:
    """How many synchronized updates navtui had written when ``shows``, its prompt box and status line were on screen."""
    argv = [sys.executable, "-m", "navtui", "-p", "ollama", "-b", "http://127.0.0.1:9", "-m", MODEL, *args]
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", PYTHONPATH=str(ROOT))
    term = Terminal(argv, env=env, cwd=str(workspace))
    try:
        condition = term.watch(
            lambda lines: (
                any(shows in line for line in lines) and MODEL in lines[-1] and lines[-2].lstrip().startswith("╰")
            )
        )
        assert condition.event.wait(60) and condition.when, "\n".join(term.display())
        return condition.synced
    finally:
        term.close()


def test_the_first_frame_is_complete_in_one_write(workspace: Path) -> None:
    # Welcome card, prompt box and status line: before, they came in three writes as the widgets arrived.
    assert complete_after(workspace, "attach a file") == 1


def test_a_resumed_session_shows_its_tail_in_the_first_frame(workspace: Path) -> None:
    session = SessionManager.create(workspace)
    for turn in range(200):
        session.append_message(UserMessage(content=f"question {turn}"))
        session.append_message(AssistantMessage(content=[TextBlock(text=f"answer number {turn}")]))
    session.sync()
    session.close()
    # Before the runtime has read the whole file: the tail comes from the file's end.
    assert complete_after(workspace, "answer number 199", "-r", session.path.stem) == 1
