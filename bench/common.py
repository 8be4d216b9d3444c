"""Shared helpers for navtui's benchmarks: a deterministic LLM-like Markdown corpus, frame hooks, statistics.

The method follows ``reference/research-textual-performance.md`` (appendix B): frames are timestamped by a
wrapper around ``App._display``, keys are injected from a thread every 50 ms exactly as the driver's input
thread does, and a 60 Hz timer measures event-loop stalls.
"""

from __future__ import annotations

import asyncio
import json
import random
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

WORDS = [
    "the",
    "agent",
    "reads",
    "file",
    "and",
    "then",
    "writes",
    "a",
    "patch",
    "to",
    "fix",
    "bug",
    "in",
    "parser",
    "while",
    "keeping",
    "tests",
    "green",
    "so",
    "we",
    "check",
    "output",
    "of",
    "command",
    "before",
    "commit",
    "because",
    "users",
    "want",
    "fast",
    "streaming",
    "markdown",
    "with",
    "code",
    "blocks",
    "lists",
    "tables",
    "and",
    "diffs",
]

CODE = [
    "def handle(event: Event) -> None:",
    '    if event.kind == "token":',
    "        buffer.append(event.text)",
    '    elif event.kind == "tool":',
    "        await run_tool(event.name, **event.args)",
    "    return None",
    "for i, line in enumerate(lines):",
    '    print(f"{i:4d} {line}")',
]


def make_markdown(n_chars: int, seed: int = 1) -> str:
    """Deterministic LLM-like Markdown: headings, prose, bullet/numbered lists, fenced code, quotes."""
    rnd = random.Random(seed)
    parts: list[str] = []
    size = 0
    k = 0
    while size < n_chars:
        kind = k % 6
        k += 1
        if kind == 0:
            s = "## " + " ".join(rnd.choice(WORDS) for _ in range(4)).title() + "\n\n"
        elif kind in (1, 3):
            sentences = []
            for _ in range(rnd.randint(3, 6)):
                w = [rnd.choice(WORDS) for _ in range(rnd.randint(8, 16))]
                if rnd.random() < 0.3:
                    w[2] = f"**{w[2]}**"
                if rnd.random() < 0.3:
                    w[4] = f"`{w[4]}()`"
                sentences.append(" ".join(w).capitalize() + ".")
            s = " ".join(sentences) + "\n\n"
        elif kind == 2:
            numbered = rnd.random() < 0.5
            items = [
                (f"{i + 1}." if numbered else "-")
                + " "
                + " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(5, 12)))
                for i in range(rnd.randint(3, 6))
            ]
            s = "\n".join(items) + "\n\n"
        elif kind == 4:
            body = "\n".join(rnd.choice(CODE) for _ in range(rnd.randint(4, 12)))
            s = "```python\n" + body + "\n```\n\n"
        else:
            s = "> " + " ".join(rnd.choice(WORDS) for _ in range(12)) + "\n\n"
        parts.append(s)
        size += len(s)
    return "".join(parts)[:n_chars]


def chunk(text: str, size: int = 4) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100.0 * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50": statistics.median(values),
        "p95": pct(values, 95),
        "p99": pct(values, 99),
        "max": max(values),
    }


def install_frame_hook(app: Any) -> dict[str, Any]:
    """Wrap ``App._display`` to timestamp every compositor frame (headless and on a pty)."""
    state: dict[str, Any] = {"frames": [], "waiters": []}
    original = app._display

    def _display(screen: Any, renderable: Any) -> None:
        original(screen, renderable)
        if renderable is not None and not app._batch_count:
            now = time.perf_counter()
            state["frames"].append(now)
            waiters, state["waiters"] = state["waiters"], []
            for future in waiters:
                if not future.done():
                    future.set_result(now)

    app._display = _display
    return state


def frame_waiter(state: dict[str, Any]) -> asyncio.Future[float]:
    """A future resolved with the time of the next frame (nothing forces one)."""
    future = asyncio.get_running_loop().create_future()
    state["waiters"].append(future)
    return future


async def next_frame(app: Any, state: dict[str, Any]) -> float:
    future = asyncio.get_running_loop().create_future()
    state["waiters"].append(future)
    app.screen.refresh()  # make sure a frame comes even if nothing else is dirty
    async with asyncio.timeout(30):
        return await future


def fmt_ms(value: float | None) -> str:
    return "   -   " if value is None or value != value else f"{value:7.1f}"


def verdict(value: float | None, target: float, *, lower_is_better: bool = True) -> str:
    if value is None or value != value:
        return "n/a"
    ok = value <= target if lower_is_better else value >= target
    return "ok" if ok else "MISS"


def emit(obj: dict[str, Any]) -> None:
    print("RESULT " + json.dumps(obj), flush=True)
