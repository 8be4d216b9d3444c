"""Real processes: killed mid-write, out of disk, and two writers on one file. Nothing acknowledged is lost."""

from __future__ import annotations

import signal
from pathlib import Path

from navtui.session.manager import SessionManager
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


def test_a_process_killed_mid_write_loses_nothing_it_acknowledged(
    session: SessionManager, child_env: dict[str, str]
) -> None:
    path = _started(session)
    acknowledged: list[str] = []
    for pad in ("50000", "300000", "7"):
        child = spawn(APPEND_FOREVER, str(path), pad, env=child_env)
        assert child.stdout is not None
        for _ in range(40):
            line = child.stdout.readline()
            assert line, child.stderr.read() if child.stderr else ""
            acknowledged.append(line.strip())
        child.send_signal(signal.SIGKILL)
        rest, _ = child.communicate()
        acknowledged.extend(rest.split())
        assert child.returncode == -signal.SIGKILL
        loaded = SessionManager.open(path)
        ids = {entry.id for entry in loaded.entries}
        assert set(acknowledged) <= ids
        assert len(loaded.warnings) <= 1  # at most the torn tail of the kill
    # The next writer starts on a fresh line: everything stays readable afterwards.
    after = SessionManager.open(path)
    last = after.append_message(user("after the crashes"))
    final = SessionManager.open(path)
    assert final.get_entry(last) is not None and set(acknowledged) <= {e.id for e in final.entries}


def test_a_write_torn_by_a_kill_is_skipped_and_never_fused_with_the_next(
    session: SessionManager, child_env: dict[str, str]
) -> None:
    path = _started(session)
    child = spawn(DIE_HALFWAY_THROUGH_A_WRITE, str(path), env=child_env)
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


def test_a_full_disk_keeps_every_acknowledged_entry_and_no_half_line(
    session: SessionManager, child_env: dict[str, str]
) -> None:
    path = _started(session)
    child = spawn(FILL_THE_DISK, str(path), "40000", env=child_env)
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


def test_two_processes_appending_to_one_file_keep_each_others_entries(
    session: SessionManager, child_env: dict[str, str]
) -> None:
    path = _started(session)
    root_id = SessionManager.open(path).entries[0].id
    children = [spawn(APPEND_N, str(path), name, "250", env=child_env) for name in ("alpha", "beta")]
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
