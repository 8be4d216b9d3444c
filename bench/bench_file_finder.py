"""Benchmark ``@`` completion's fuzzy finder (navtui/app/file_finder.py) on a generated tree of 50,000 files.

Times the walk (the tools' walker, ``.gitignore`` applied) and ``rank`` for queries of 1 to 20 characters, as a
user types them (each prefix of a path's name), the way the completion list asks after every key.
Run: ``.venv/bin/python bench/bench_file_finder.py [--files N] [--rounds N]``
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from navtui.app.file_finder import FileList  # noqa: E402

PARTS = [
    "src",
    "lib",
    "app",
    "core",
    "util",
    "helpers",
    "models",
    "views",
    "tests",
    "api",
    "server",
    "client",
    "parser",
    "render",
    "config",
    "store",
]
NAMES = [
    "main",
    "index",
    "helpers",
    "parser",
    "render",
    "config",
    "store",
    "session",
    "token",
    "stream",
    "cache",
    "router",
    "widget",
]


def make_tree(root: Path, files: int, rng: random.Random) -> list[str]:
    made = []
    (root / ".gitignore").write_text("build/\n*.log\n")
    for number in range(files):
        depth = rng.randint(1, 5)
        folder = "/".join(
            rng.choice(PARTS) + (str(rng.randint(0, 9)) if rng.random() < 0.5 else "") for _ in range(depth)
        )
        rel = f"{folder}/{rng.choice(NAMES)}_{number}.{rng.choice(('py', 'ts', 'md', 'json'))}"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
        made.append(rel)
    for number in range(files // 10):  # ignored: never walked into, never offered
        (root / "build").mkdir(exist_ok=True)
        (root / "build" / f"out_{number}.js").write_bytes(b"")
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=20, help="paths whose name is typed key by key")
    args = parser.parse_args()
    rng = random.Random(7)
    root = Path(tempfile.mkdtemp(prefix="navtui-finder-"))
    try:
        made = make_tree(root, args.files, rng)
        files = FileList(root)
        started = time.perf_counter()
        index = files.index()
        walk = time.perf_counter() - started
        assert len(index) == args.files + 1, (len(index), args.files)  # and .gitignore
        times: dict[int, list[float]] = {}
        for rel in rng.sample(made, args.rounds):
            name = rel.rsplit("/", 1)[1]
            for length in range(1, min(len(name), 20) + 1):
                started = time.perf_counter()
                found = index.rank(name[:length], 50)
                times.setdefault(length, []).append(time.perf_counter() - started)
            assert found[0] == rel, (name, found[:3])
        every = [t for ts in times.values() for t in ts]
        print(f"{args.files:,} files; walk {walk * 1000:.0f} ms")
        print(
            f"rank, {len(every)} queries: p50 {statistics.median(every) * 1000:.1f} ms, max {max(every) * 1000:.1f} ms"
        )
        for length in (1, 2, 3, 5, 10):
            if length in times:
                print(f"  {length:2d} characters: p50 {statistics.median(times[length]) * 1000:.1f} ms")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
