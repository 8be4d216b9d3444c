"""Workspace checkpoints: the time a turn's checkpoint adds, disk per checkpoint, and restore time.

    .venv/bin/python bench/bench_checkpoint.py [--files 10000] [--runs 15] [--keep DIR]

A generated repository (``--files`` files of 0.2-8 KB in 3 levels of folders, a .gitignore, an ignored build
folder) under a temporary NAVTUI_HOME. Measured:

- the first walk of a process with an empty store (every file read), and a new process on a filled store
  (the stat cache: nothing read);
- ``record_turn`` after a turn that changed 3 files (one edited, one created, one deleted): the walk, the
  objects written and the session entry, with inotify (the default) and with the stat walk (no inotify);
- the store's growth per such checkpoint;
- ``/undo`` of such a turn (plan + writes) and of a turn that changed 200 files.

Target (issue 30): <= 100 ms for the checkpoint after a turn on 10,000 files with 3 changed, on the 2-core box.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from navtui.checkpoints.service import Checkpointer  # noqa: E402
from navtui.session.manager import SessionManager  # noqa: E402
from tests.session.helpers import assistant, call, result, user  # noqa: E402


def make_repo(root: Path, files: int, rng: random.Random) -> list[Path]:
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    for i in range(200):
        (root / "build" / f"out{i}.o").write_bytes(os.urandom(512))
    made = []
    for i in range(files):
        folder = root / f"pkg{i // 1000}" / f"mod{i // 100 % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"file{i}.py"
        path.write_text(f"# file {i}\n" + "value = 1  # padding\n" * rng.randint(10, 400))
        made.append(path)
    return made


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def spread(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
    return f"median {ms(statistics.median(values))}, p90 {ms(p90)}, max {ms(values[-1])}"


def turn(session: SessionManager, changes: list[Path], rng: random.Random, n: int) -> None:
    """What one turn's tools do: edit one file, create one, delete one (and what a session records)."""
    session.append_message(user(f"turn {n}"))
    tool_call = call(f"c{n}", "shell", command="...")
    session.append_message(assistant("", tool_call))
    edited = rng.choice(changes)
    edited.write_text(edited.read_text() + f"# turn {n}\n")
    (changes[0].parent / f"new_{n}.py").write_text(f"created in turn {n}\n")
    victim = changes.pop(rng.randrange(1, len(changes)))
    victim.unlink()
    session.append_message(result(tool_call.id, name="shell"))


def measure(root: Path, files: list[Path], runs: int, watch: bool, rng: random.Random) -> tuple[list[float], float]:
    checkpoints = Checkpointer(root, watch=watch)
    session = SessionManager.create(root)
    session.append_message(user("start"))
    checkpoints.record_base(session)
    store = checkpoints.store
    before = store.disk_bytes()
    times = []
    for n in range(runs):
        turn(session, files, rng, n)
        started = time.perf_counter()
        checkpoint = checkpoints.record_turn(session)
        times.append(time.perf_counter() - started)
        assert checkpoint is not None
    growth = (store.disk_bytes() - before) / runs
    checkpoints.close()
    return times, growth


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    args = parser.parse_args()
    rng = random.Random(30)
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-checkpoint-"))
    os.environ["NAVTUI_HOME"] = str(base / "home")
    root = base / "repo"
    root.mkdir(parents=True, exist_ok=True)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.files:,} files")
    files = make_repo(root, args.files, rng)

    started = time.perf_counter()
    first = Checkpointer(root)
    snap = first.snapshot()
    assert snap is not None
    print(
        f"first walk, empty store:          {ms(time.perf_counter() - started)} ({snap.files:,} entries, {snap.read:,} read)"
    )
    first.close()
    started = time.perf_counter()
    again = Checkpointer(root)
    snap = again.snapshot()
    assert snap is not None
    print(f"first walk of a new process:      {ms(time.perf_counter() - started)} ({snap.read} read: the stat cache)")
    print(
        f"store after the first walk:       {again.store.disk_bytes() / 1e6:.1f} MB (the repository: "
        f"{sum(p.stat().st_size for p in files) / 1e6:.1f} MB)"
    )
    again.close()

    for watch in (True, False):
        times, growth = measure(root, files, args.runs, watch, rng)
        how = "inotify" if watch else "stat walk"
        print(
            f"checkpoint after a turn, 3 files changed ({how}): {spread(times)}; {growth / 1024:.1f} KB per checkpoint"
        )

    checkpoints = Checkpointer(root)
    session = SessionManager.create(root)
    session.append_message(user("start"))
    checkpoints.record_base(session)
    restore_times = []
    for n in range(5):
        turn(session, files, rng, 1000 + n)
        checkpoints.record_turn(session)
        started = time.perf_counter()
        proposal = checkpoints.propose_undo(session.get_branch())
        assert proposal is not None
        checkpoints.apply(session, proposal)
        restore_times.append(time.perf_counter() - started)
    print(f"/undo of a 3-file turn (plan + writes + record): {spread(restore_times)}")
    session.append_message(user("big turn"))
    checkpoints.record_base(session)
    session.append_message(assistant("", call("big", "shell", command="...")))
    for path in files[:200]:
        path.write_text(path.read_text() + "# changed by a big turn\n")
    session.append_message(result("big", name="shell"))
    checkpoints.record_turn(session)
    started = time.perf_counter()
    proposal = checkpoints.propose_undo(session.get_branch())
    assert proposal is not None and len(proposal.plan.files) == 200
    checkpoints.apply(session, proposal)
    print(f"/undo of a 200-file turn:          {ms(time.perf_counter() - started)}")
    checkpoints.close()
    if args.keep is None:
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
