"""A pi v3 session written by hand resumes in --print mode, and its history reaches the model in order."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from navtui.session.context import BRANCH_PREFIX, COMPACTION_PREFIX
from navtui.session.manager import SessionManager
from tests.fakes import Text
from tests.session.test_compat import PI_V3

MODEL = "qwen2.5-coder:7b"


def test_a_pi_session_resumes_in_print_mode(fake_server, workspace: Path, child_env: dict[str, str]) -> None:
    path = workspace.parent / "pi-session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in PI_V3))
    fake_server.script(Text("a.py defines main()"))
    command = [sys.executable, "-m", "navtui", "--print", "what next?", "-r", str(path)]
    command += ["-p", "ollama", "-b", fake_server.url, "-m", MODEL]
    result = subprocess.run(
        command, capture_output=True, text=True, cwd=workspace, env=child_env, timeout=60, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stderr
    assert "a.py defines main()" in result.stdout
    sent = [(m["role"], m["content"]) for m in fake_server.chat_requests[-1].json["messages"] if m["role"] != "system"]
    assert sent == [
        ("user", f"{COMPACTION_PREFIX}User listed files.\n</summary>"),
        ("assistant", "a.py and b.py"),
        ("user", f"{BRANCH_PREFIX}Asked something, dropped it.\n</summary>"),
        ("user", "Ran `git status`\n```\nclean\n```"),
        ("user", "Injected context"),
        ("user", "Now read a.py"),
        ("user", "what next?"),
    ]
    resumed = SessionManager.open(path)
    assert [m.text for m in resumed.build_context().messages][-2:] == ["what next?", "a.py defines main()"]
    assert resumed.get_entry("u0000003") is not None and resumed.warnings == []
