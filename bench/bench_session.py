"""Session load benchmark: a 50 MB session file, full parse + context build, and the tail for a first paint.

    .venv/bin/python bench/bench_session.py [--size-mb 50] [--runs 3] [--keep DIR]

Targets (DESIGN.md section 12): the tail on screen-ready <= 50 ms; the full parse <= 300 ms ideally,
< 2 s required. The baseline is the straightforward loader (``json.loads`` then full pydantic validation of
every entry, garbage collector on) measured in the same run.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from navtui.core.messages import (  # noqa: E402
    AssistantMessage,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    message_from_json,
)
from navtui.session.entries import (  # noqa: E402
    CompactionEntry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
)
from navtui.session.manager import SessionManager  # noqa: E402
from navtui.session.store import encode_line  # noqa: E402

WORDS = [
    "def",
    "return",
    "self",
    "import",
    "class",
    "if",
    "else",
    "for",
    "while",
    "with",
    "yield",
    "async",
    "await",
    "the",
    "model",
    "tool",
    "file",
    "path",
    "read",
    "edit",
    "write",
    "shell",
    "test",
    "assert",
    "value",
    "result",
    "error",
    "index",
    "session",
    "context",
    "token",
]


def _prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _code(rng: random.Random, lines: int) -> str:
    return "\n".join(f"{i + 1:6d}\t    {_prose(rng, rng.randint(3, 12))}" for i in range(lines))


def generate(path: Path, size_mb: float, seed: int = 7) -> int:
    """A realistic session: prompts, thinking, tool calls with file reads and shell output, compactions."""
    rng = random.Random(seed)
    target = int(size_mb * 1_000_000)
    header = SessionHeader(id="bench0000000000", cwd="/home/dev/project")
    written = 0
    count = 0
    parent: str | None = None
    ids: list[str] = []
    with open(path, "wb") as handle:
        written += handle.write(encode_line(header.to_json()))
        turn = 0
        while written < target:
            turn += 1
            entries = [MessageEntry(id=f"{count:08x}", parent_id=parent, message=UserMessage(content=_prose(rng, 30)))]
            for step in range(rng.randint(1, 4)):
                call = ToolCall(
                    id=f"call_{turn}_{step}",
                    name=rng.choice(["read", "grep", "shell"]),
                    arguments={"path": f"src/m{step}.py"},
                )
                thinking = ThinkingBlock(thinking=_prose(rng, rng.randint(20, 120)))
                assistant = AssistantMessage(
                    content=[thinking, TextBlock(text=_prose(rng, rng.randint(10, 60))), call],
                    provider="ollama",
                    model="qwen3-coder:30b",
                    usage=Usage(input=rng.randint(1000, 30000), output=rng.randint(50, 900)),
                    stop_reason="tool_use",
                )
                output = _code(rng, rng.randint(20, 300))
                result = ToolResultMessage(tool_call_id=call.id, tool_name=call.name, content=[TextBlock(text=output)])
                entries += [MessageEntry(id="", message=assistant), MessageEntry(id="", message=result)]
            final = AssistantMessage(
                content=[TextBlock(text=_prose(rng, rng.randint(40, 200)))], model="qwen3-coder:30b"
            )
            entries.append(MessageEntry(id="", message=final))
            if turn % 40 == 0:
                entries.append(
                    CompactionEntry(id="", summary=_prose(rng, 300), first_kept_entry_id=ids[-20], tokens_before=90000)
                )
            if turn % 25 == 0:
                entries.append(LabelEntry(id="", target_id=ids[-5], label=f"checkpoint {turn}"))
            if turn % 60 == 0:
                entries.append(ModelChangeEntry(id="", provider="ollama", model_id="qwen3-coder:30b"))
            for entry in entries:
                entry.id = f"{count:08x}"
                entry.parent_id = parent
                parent = entry.id
                ids.append(entry.id)
                count += 1
                written += handle.write(encode_line(entry.to_json()))
    return count


def _time(fn: Callable[[], object], runs: int) -> tuple[tuple[float, float], object]:
    """(median, best) seconds over ``runs``; the previous result is dropped before each run."""
    samples = []
    value: object = None
    for _ in range(runs):
        value = None
        gc.collect()
        start = time.perf_counter()
        value = fn()
        samples.append(time.perf_counter() - start)
    return (statistics.median(samples), min(samples)), value


def _naive_load(path: Path) -> int:
    records = [json.loads(line) for line in path.read_bytes().split(b"\n") if line]
    for record in records[1:]:
        if record.get("type") == "message":
            message_from_json(record["message"])
    return len(records)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the generated file into this directory and keep it")
    args = parser.parse_args()

    directory = args.keep or Path(tempfile.mkdtemp(prefix="navtui-bench-session-"))
    directory.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("NAVTUI_HOME", str(directory / "home"))
    path = directory / "2026-01-01T00-00-00-000Z_bench0000000000.jsonl"
    start = time.perf_counter()
    count = generate(path, args.size_mb)
    size = path.stat().st_size
    print(f"generated {size / 1e6:.1f} MB, {count} entries in {time.perf_counter() - start:.1f} s -> {path}")
    path.read_bytes()  # warm the page cache: we measure parsing, not the disk

    runs = args.runs
    tail_s, tail = _time(lambda: SessionManager.read_tail(path, 100), runs * 3)
    open_s, session = _time(lambda: SessionManager.open(path), runs)
    assert isinstance(session, SessionManager)
    context_s, context = _time(lambda: session.build_context(), runs)
    tree_s, _ = _time(session.get_tree, runs)
    naive_s, _ = _time(lambda: _naive_load(path), runs)

    def append_and_sync() -> None:
        session.append_message(UserMessage(content="one more prompt"))
        session.sync()

    append_s, _ = _time(append_and_sync, 20)
    list_s, _ = _time(lambda: SessionManager.list_sessions(None, root=directory.parent), runs)

    def row(name: str, figures: tuple[float, float], target: str = "") -> None:
        print(f"{name:46} {figures[0] * 1000:8.1f} ms {figures[1] * 1000:8.1f} ms  {target}")

    print(f"\n{'measure':46} {'median':>11} {'best':>11}  target")
    row("read_tail(100) (first paint, parsed)", tail_s, "<= 50 ms")
    row("open (full parse, tree index)", open_s, "<= 300 ms ideal, < 2 s required")
    row("build_context(leaf)", context_s)
    row("open + build_context", (open_s[0] + context_s[0], open_s[1] + context_s[1]), "< 2 s")
    row("get_tree()", tree_s)
    row("append + fsync one entry", append_s, "<= 20 ms")
    row("list_sessions (summary of the 50 MB file)", list_s)
    row("baseline: json.loads + validate all, gc on", naive_s)
    print(
        f"\ncontext: {len(context.messages)} messages (after the latest compaction) of {len(session.entries)} entries; "  # type: ignore[union-attr]
        f"tail: {len(tail.entries)} entries, {len(tail.leaf_path)} on the leaf's path"  # type: ignore[union-attr]
    )
    if args.keep is None:
        path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
