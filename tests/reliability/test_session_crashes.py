"""Session scenarios with real processes: killed mid-write or mid-rewrite, out of disk, two writers, a crash
between a tool call and its result, secrets. Nothing acknowledged is lost (I1), history stays valid (I2)."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from navtui.session.manager import SessionManager
from tests.fakes import FakeServer, HttpError, Text, ToolCall
from tests.fakes.crash import CRASHED, child_env, run_navtui
from tests.reliability.conftest import CANARY, secrets_on_disk
from tests.run_main import run_main
from tests.session.conftest import spawn
from tests.session.helpers import user

APPEND_FOREVER = """
import sys
from pathlib import Path
from navtui.core.messages import UserMessage
from navtui.session.manager import SessionManager

session = SessionManager.open(Path(sys.argv[1]))
pad = "x" * int(sys.argv[2])
i = 0
while True:
    entry_id = session.append_message(UserMessage(content=f"{i} {pad}"))
    if session.unsaved_count == 0:
        print(entry_id, flush=True)
    i += 1
"""

DIE_HALFWAY_THROUGH_A_WRITE = """
import os, signal, sys
from pathlib import Path
from navtui.core.messages import UserMessage
from navtui.session import store
from navtui.session.manager import SessionManager

writes = 0
real_write_all = store._write_all

def write_all(fd, data):
    global writes
    writes += 1
    if writes == 5:
        os.write(fd, data[: len(data) // 2])
        os.kill(os.getpid(), signal.SIGKILL)
    real_write_all(fd, data)

store._write_all = write_all
session = SessionManager.open(Path(sys.argv[1]))
for i in range(10):
    print(session.append_message(UserMessage(content=f"{i} " + "w" * 10000)), flush=True)
"""

FILL_THE_DISK = """
import resource, signal, sys
from pathlib import Path
from navtui.core.errors import NavtuiError
from navtui.core.messages import UserMessage
from navtui.session.manager import SessionManager

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG from write() instead of being killed
session = SessionManager.open(Path(sys.argv[1]))
limit = session.path.stat().st_size + int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
for i in range(60):
    entry_id = session.append_message(UserMessage(content=f"{i} " + "y" * 3000))
    print(("ACK " if session.unsaved_count == 0 else "PENDING ") + entry_id, flush=True)
try:
    session.sync()
    print("SYNCED", flush=True)
except NavtuiError as exc:
    print("SYNC-FAILED " + exc.message, flush=True)
"""

APPEND_N = """
import sys
from pathlib import Path
from navtui.core.messages import UserMessage
from navtui.session.manager import SessionManager

session = SessionManager.open(Path(sys.argv[1]))
print("ready", flush=True)
sys.stdin.readline()  # both processes have read the file before either writes
name = sys.argv[2]
for i in range(int(sys.argv[3])):
    session.append_message(UserMessage(content=f"{name} {i} " + "z" * (i * 37 % 4000)))
session.sync()
print("done", flush=True)
"""


def _started(session: SessionManager) -> Path:
    session.append_message(user("root"))
    session.close()
    return session.path


def kill_a_writer(path: Path, pad: int, acknowledgements: int) -> list[str]:
    """Start a process appending to ``path``, SIGKILL it after that many acknowledged entries; their ids."""
    child = spawn(APPEND_FOREVER, str(path), str(pad), env=child_env())
    assert child.stdout is not None
    acknowledged = []
    for _ in range(acknowledgements):
        line = child.stdout.readline()
        assert line, child.stderr.read() if child.stderr else ""
        acknowledged.append(line.strip())
    child.send_signal(signal.SIGKILL)
    rest, _ = child.communicate()
    assert child.returncode == -signal.SIGKILL
    return acknowledged + rest.split()


def test_s01_a_writer_killed_at_random_loses_nothing_it_acknowledged(session: SessionManager) -> None:
    path = _started(session)
    acknowledged: list[str] = []
    for pad in (50000, 300000, 7):
        acknowledged.extend(kill_a_writer(path, pad, 40))
        loaded = SessionManager.open(path)
        ids = {entry.id for entry in loaded.entries}
        assert set(acknowledged) <= ids
        assert len(loaded.warnings) <= 1  # at most the torn tail of the kill
    # The next writer starts on a fresh line: everything stays readable afterwards.
    after = SessionManager.open(path)
    last = after.append_message(user("after the crashes"))
    final = SessionManager.open(path)
    assert final.get_entry(last) is not None and set(acknowledged) <= {e.id for e in final.entries}


def test_s01_a_record_torn_by_a_kill_is_skipped_and_never_fused_with_the_next(session: SessionManager) -> None:
    path = _started(session)
    child = spawn(DIE_HALFWAY_THROUGH_A_WRITE, str(path), env=child_env())
    out, _ = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    acknowledged = out.split()
    assert len(acknowledged) == 4
    torn = SessionManager.open(path)
    assert [e.id for e in torn.entries][1:] == acknowledged
    assert len(torn.warnings) == 1 and "cut short" in torn.warnings[0]
    later = torn.append_message(user("resumed"))
    final = SessionManager.open(path)
    assert [e.id for e in final.entries][1:] == [*acknowledged, later]
    assert len(final.warnings) == 1


def test_s07_a_full_disk_keeps_every_acknowledged_entry_and_no_half_line(session: SessionManager) -> None:
    path = _started(session)
    child = spawn(FILL_THE_DISK, str(path), "40000", env=child_env())
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    lines = out.splitlines()
    acked = [line.split()[1] for line in lines if line.startswith("ACK ")]
    pending = [line.split()[1] for line in lines if line.startswith("PENDING ")]
    assert acked and pending, out
    assert lines[-1].startswith("SYNC-FAILED Could not save the session")
    loaded = SessionManager.open(path)
    assert loaded.warnings == []  # the failed writes were rolled back: no torn line
    assert [e.id for e in loaded.entries][1:] == acked
    assert not {e.id for e in loaded.entries} & set(pending)
    assert path.read_bytes().endswith(b"\n")


def test_s08_two_processes_appending_to_one_file_keep_each_others_entries(session: SessionManager) -> None:
    path = _started(session)
    root_id = SessionManager.open(path).entries[0].id
    children = [spawn(APPEND_N, str(path), name, "250", env=child_env()) for name in ("alpha", "beta")]
    for child in children:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0 and out.strip() == "done", err
    loaded = SessionManager.open(path)
    assert loaded.warnings == []
    assert len(loaded.entries) == 1 + 500
    for name in ("alpha", "beta"):
        chain = [e for e in loaded.entries if e.type == "message" and e.message.text.startswith(f"{name} ")]  # type: ignore[union-attr]
        assert len(chain) == 250
        assert chain[0].parent_id == root_id
        assert all(b.parent_id == a.id for a, b in zip(chain, chain[1:], strict=False))
    [root] = loaded.get_tree()
    assert len(root.children) == 2


# ------------------------------------------------------------------------------------- through the real product
MODEL = "qwen2.5-coder:7b"
PI_V1 = [
    {"type": "session", "id": "old-pi-session", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/p"},
    {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z", "message": {"role": "user", "content": "one"}},
    {"type": "message", "timestamp": "2025-01-01T00:00:02.000Z",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "two"}], "stopReason": "stop"}},
]  # fmt: skip


def _headless(
    server: FakeServer, *args: str, cwd: Path, crash_at: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """A crash point needs a process to die; a run without one is called in this process."""
    argv = ("-p", "ollama", "-b", server.url, "-m", MODEL, *args)
    if crash_at is not None:
        return run_navtui(*argv, cwd=cwd, crash_at=crash_at, env=env)
    return run_main(*argv, cwd=cwd, env=env)


def _texts(path: Path) -> list[str]:
    return [e.message.text for e in SessionManager.open(path).entries if e.type == "message"]  # type: ignore[union-attr]


@pytest.mark.parametrize("label", ["session:after_temp_write", "session:after_temp_fsync", "session:after_link"])
def test_s06_a_crash_at_each_step_of_writing_a_session_file_leaves_nothing_half_written(
    fake_server: FakeServer, workspace: Path, tmp_path: Path, label: str
) -> None:
    """navtui never rewrites a session file: a pi v1 file continues in a new v3 file, written temp-fsync-link."""
    path = tmp_path / "pi-v1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in PI_V1))
    original = path.read_bytes()
    crashed = _headless(fake_server, "--print", "three", "-r", str(path), cwd=workspace, crash_at=label)
    assert crashed.returncode == CRASHED, crashed.stderr
    assert path.read_bytes() == original  # the original is never touched
    written = [p for p in tmp_path.glob("*.jsonl") if p != path]
    for new in written:  # the new file is whole, or absent
        assert SessionManager.open(new).warnings == [] and _texts(new)[:2] == ["one", "two"]
    assert len(written) == (1 if label == "session:after_link" else 0)
    debris = list(tmp_path.glob(".*.tmp"))
    assert len(debris) == 1
    again = _headless(fake_server, "--print", "three", "-r", str(written[0] if written else path), cwd=workspace)
    assert again.returncode == 0, again.stderr
    assert "Removed 1 temporary file left by an interrupted write" in again.stderr
    assert list(tmp_path.glob(".*.tmp")) == [] and path.read_bytes() == original
    [continued] = [p for p in tmp_path.glob("*.jsonl") if p != path]
    assert _texts(continued)[:2] == ["one", "two"] and _texts(continued)[-2:] == ["three", "ok"]


def test_s10_a_crash_between_a_tool_call_and_its_result_is_answered_on_resume(
    fake_server: FakeServer, workspace: Path
) -> None:
    fake_server.script(ToolCall("shell", {"command": "echo started > started.txt"}))
    crashed = _headless(
        fake_server, "--print", "run it", "--approval", "yolo", cwd=workspace, crash_at="tool:after_spawn"
    )
    assert crashed.returncode == CRASHED, crashed.stderr
    fake_server.script(Text("The command was interrupted; nothing was recorded."))
    resumed = _headless(fake_server, "--print", "what happened?", "-c", cwd=workspace)
    assert resumed.returncode == 0, resumed.stderr
    messages = fake_server.chat_requests[-1].json["messages"]
    [result] = [m for m in messages if m["role"] == "tool"]
    assert "interrupted" in result["content"]  # the model is told the call never finished, not that it worked
    assert [m["content"] for m in messages if m["role"] == "user"] == ["run it", "what happened?"]


def test_s13_a_canary_secret_never_reaches_the_session_files(
    fake_server: FakeServer, workspace: Path, navtui_home: Path
) -> None:
    env_secret = "canary-env-value-7f3a9b1c"
    (workspace / ".env").write_text(f"ANTHROPIC_API_KEY={CANARY}\nSERVICE={env_secret}\n")
    fake_server.script(ToolCall("read", {"path": ".env"}))
    fake_server.script(ToolCall("shell", {"command": "cat .env"}))
    fake_server.script(HttpError(400, f"invalid request: key {CANARY} and {env_secret} rejected"))
    run = _headless(
        fake_server, "--print", f"use {CANARY}", "--approval", "yolo", cwd=workspace,
        env={"MY_SERVICE_TOKEN": env_secret},
    )  # fmt: skip
    assert run.returncode == 1, run.stderr
    sessions = list((navtui_home / "sessions").rglob("*.jsonl"))
    assert len(sessions) == 1
    text = sessions[0].read_text()
    assert "sk-ant-****" in text and "rejected" in text  # the prompt, the read output and the error were recorded
    for canary in (CANARY, env_secret):
        leaked = [p for p in secrets_on_disk(navtui_home, canary) if "artifacts" not in p.parts]
        assert leaked == [], canary
    # A command's full output is kept raw, as a terminal's scrollback would be: readable by the user only.
    for artifact in (navtui_home / "artifacts").rglob("*"):
        assert artifact.stat().st_mode & 0o077 == 0, artifact
