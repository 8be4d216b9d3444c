"""CPU cost of streaming Markdown through navtui's block splitter and renderer, without a screen.

A 20,000-token reply (the corpus of ``bench_stream.py``, 4-character tokens) is fed token by token and rendered
after every 20 tokens, as ``MarkdownView`` does on each 20 ms flush at 1,000 tok/s. Reported: process CPU time
in all, and per flush (p50 / p99 / max), which is what a frame pays. CPU time, not wall time, so the figure
holds up on a busy machine better than the frame benchmarks do.

    .venv/bin/python bench/bench_markdown_blocks.py [--tokens 20000] [--per-flush 20] [--width 118]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from common import chunk, make_markdown  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.style import Style  # noqa: E402

from navtui.widgets.markdown.render import palette_for  # noqa: E402


def run(document: object, text: str, per_flush: int, width: int) -> tuple[float, list[float]]:
    console = Console(width=width, color_system="truecolor", force_terminal=True)
    palette, style = palette_for({}), Style()
    tokens = chunk(text, 4)
    flushes: list[float] = []
    started = time.process_time()
    for start in range(0, len(tokens), per_flush):
        before = time.process_time()
        document.feed("".join(tokens[start : start + per_flush]))  # type: ignore[attr-defined]
        document.render(console, width, style, palette)  # type: ignore[attr-defined]
        flushes.append(time.process_time() - before)
    return time.process_time() - started, flushes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=20000)
    parser.add_argument("--per-flush", type=int, default=20)
    parser.add_argument("--width", type=int, default=118)
    parser.add_argument("--document", default="navtui.widgets.markdown.document:MarkdownDocument")
    args = parser.parse_args()
    module, _, name = args.document.partition(":")
    document_class = getattr(__import__(module, fromlist=[name]), name)
    text = make_markdown(args.tokens * 4, seed=1)
    total, flushes = run(document_class(), text, args.per_flush, args.width)
    ms = sorted(f * 1000 for f in flushes)
    print(
        f"{args.document}: {args.tokens} tokens, {len(ms)} flushes: CPU {total:.2f} s; per flush "
        f"p50 {statistics.median(ms):.2f} ms, p99 {ms[int(len(ms) * 0.99)]:.2f} ms, max {ms[-1]:.2f} ms"
    )


if __name__ == "__main__":
    main()
