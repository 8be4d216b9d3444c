"""Markdown tables from the rows ``bench/eval_local.py --json-out`` wrote: a summary and one table per model.

    python bench/eval_report.py before.jsonl after.jsonl > report.md

A row repeated for the same (label, model, protocol, task) counts once: the last one wins.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

Row = dict[str, Any]


def load(paths: list[Path]) -> list[Row]:
    rows: dict[tuple[str, str, str, str], Row] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows[(row["label"], row["model"], row["protocol"], row["task"])] = row
    return list(rows.values())


def summary(rows: list[Row]) -> str:
    groups: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(row["model"], row["protocol"], row["label"])].append(row)
    lines = [
        "| model | protocol | navtui | finished | tool calls valid/invalid | requests | prompt tokens | wall s | load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (model, protocol, label), mine in sorted(groups.items()):
        loads = [r.get("load", 0.0) for r in mine]
        lines.append(
            f"| {model} | {protocol} | {label} | {sum(r['finished'] for r in mine)}/{len(mine)} "
            f"| {sum(r['valid_calls'] for r in mine)}/{sum(r['invalid_calls'] for r in mine)} "
            f"| {sum(r['requests'] for r in mine)} | {sum(r['prompt_tokens'] for r in mine)} "
            f"| {sum(r['wall_s'] for r in mine):.0f} | {min(loads):.1f}-{max(loads):.1f} |"
        )
    return "\n".join(lines)


def per_task(rows: list[Row], model: str) -> str:
    columns = sorted({(r["protocol"], r["label"]) for r in rows if r["model"] == model})
    tasks = list(dict.fromkeys(r["task"] for r in rows if r["model"] == model))
    cell = {(r["task"], r["protocol"], r["label"]): r for r in rows if r["model"] == model}
    head = "| task | " + " | ".join(f"{p} {label}" for p, label in columns) + " |"
    lines = [head, "|---|" + "---|" * len(columns)]
    for task in tasks:
        cells = []
        for protocol, label in columns:
            row = cell.get((task, protocol, label))
            if row is None:
                cells.append("")
                continue
            mark = "**yes**" if row["finished"] else "no"
            cells.append(
                f"{mark} {row['valid_calls']}/{row['invalid_calls']} · {row['requests']} req · {row['wall_s']:.0f}s"
            )
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    rows = load([Path(p) for p in argv])
    print(summary(rows))
    for model in sorted({r["model"] for r in rows}):
        print(f"\n{model} (cells: finished, tool calls valid/invalid, requests, wall time)\n")
        print(per_task(rows, model))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
