"""Markdown tables from the rows ``bench/eval_local.py --json-out`` wrote: navtui's protocols and aider side by side.

    python bench/eval_report.py before.jsonl after.jsonl > report.md

Three tables: finished runs per model with one column per protocol (navtui's, then aider's), a summary line per
(model, protocol, label) with the run count, requests, the largest request against the window and the load, and
one table per model with a cell per task. A row repeated for the same (label, model, protocol, task, run) counts
once: the last one wins.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

Row = dict[str, Any]


def load(paths: list[Path]) -> list[Row]:
    rows: dict[tuple[str, str, str, str, int], Row] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows[(row["label"], row["model"], row["protocol"], row["task"], int(row.get("run", 1)))] = row
    return list(rows.values())


def _order(protocol: str) -> tuple[int, str]:
    return (1 if protocol.startswith("aider") else 0, protocol)


def _column(protocol: str, label: str) -> str:
    return f"{protocol} {label}".strip()


def side_by_side(rows: list[Row]) -> str:
    """Finished runs out of all runs, one row per model, one column per protocol and label."""
    columns = sorted({(r["protocol"], r["label"]) for r in rows}, key=lambda c: (_order(c[0]), c[1]))
    lines = [
        "| model | " + " | ".join(_column(p, label) for p, label in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for model in sorted({r["model"] for r in rows}):
        cells = []
        for protocol, label in columns:
            mine = [r for r in rows if (r["model"], r["protocol"], r["label"]) == (model, protocol, label)]
            if not mine:
                cells.append("")
                continue
            done = sum(r["finished"] for r in mine)
            cells.append(f"{done}/{len(mine)} ({100 * done / len(mine):.0f} %)")
        lines.append(f"| {model} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows: list[Row]) -> str:
    groups: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(row["model"], row["protocol"], row["label"])].append(row)
    lines = [
        "| model | protocol | label | runs | finished | calls or edits ok/bad | requests | prompt tokens "
        "| largest request / window | wall s | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (model, protocol, label), mine in sorted(groups.items(), key=lambda g: (g[0][0], _order(g[0][1]), g[0][2])):
        loads = [r.get("load_start", r.get("load", 0.0)) for r in mine] + [r.get("load", 0.0) for r in mine]
        runs = len({int(r.get("run", 1)) for r in mine})
        largest = max(r.get("max_request", 0) for r in mine)
        windows = {r.get("window") for r in mine if r.get("window")}
        window = "/".join(str(w) for w in sorted(windows)) or "?"
        over = sum(1 for r in mine if r.get("window") and r.get("max_request", 0) > r["window"])
        over_note = f" ({over} over)" if over else ""
        lines.append(
            f"| {model} | {protocol} | {label} | {runs} | {sum(r['finished'] for r in mine)}/{len(mine)} "
            f"| {sum(r['valid_calls'] for r in mine)}/{sum(r['invalid_calls'] for r in mine)} "
            f"| {sum(r['requests'] for r in mine)} | {sum(r['prompt_tokens'] for r in mine)} "
            f"| {largest} / {window}{over_note} "
            f"| {sum(r['wall_s'] for r in mine):.0f} | {min(loads):.1f}-{max(loads):.1f} |"
        )
    return "\n".join(lines)


def per_task(rows: list[Row], model: str) -> str:
    mine = [r for r in rows if r["model"] == model]
    columns = sorted({(r["protocol"], r["label"]) for r in mine}, key=lambda c: (_order(c[0]), c[1]))
    tasks = list(dict.fromkeys(r["task"] for r in mine))
    cells: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for r in mine:
        cells[(r["task"], r["protocol"], r["label"])].append(r)
    head = "| task | " + " | ".join(_column(p, label) for p, label in columns) + " |"
    lines = [head, "|---|" + "---|" * len(columns)]
    for task in tasks:
        out = []
        for protocol, label in columns:
            runs = cells.get((task, protocol, label), [])
            if not runs:
                out.append("")
                continue
            done = sum(r["finished"] for r in runs)
            mark = f"**{done}/{len(runs)}**" if done else f"0/{len(runs)}"
            calls = "+".join(f"{r['valid_calls']}/{r['invalid_calls']}" for r in runs)
            wall = "+".join(f"{r['wall_s']:.0f}" for r in runs)
            out.append(f"{mark} {calls} · {wall}s")
        lines.append(f"| {task} | " + " | ".join(out) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    rows = load([Path(p) for p in argv])
    print("Finished runs (all tasks x runs):\n")
    print(side_by_side(rows))
    print()
    print(summary(rows))
    for model in sorted({r["model"] for r in rows}):
        print(f"\n{model} (cells: finished runs, calls or edits ok/bad per run, wall time per run)\n")
        print(per_task(rows, model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
