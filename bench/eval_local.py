"""The local-model eval: real tasks in scratch repositories, run by navtui headless against a real endpoint.

    python bench/eval_local.py -b http://127.0.0.1:8080 -m qwen2.5-coder-1.5b -p openai --protocol text native
    python bench/eval_local.py -b http://127.0.0.1:11434 -m qwen2.5-coder:1.5b -p ollama --tasks fix_test rename

Each run makes a fresh repository (``bench/eval_tasks.py``), runs ``navtui --json PROMPT`` in it with approval
``yolo`` and a private ``NAVTUI_HOME`` whose settings choose the tool protocol, then asks the task's checker
(files and exit codes, never the model's words). It prints one row per run: finished, tool calls (valid/invalid),
requests, prompt tokens, wall time, and why a run did not finish. ``--json-out`` keeps the rows for later
tables; ``--navtui-src`` runs another checkout of navtui (the "before" numbers). Model runs are slow on CPU:
run it under ``nice -n 19`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.eval_tasks import TASKS, Task  # noqa: E402

# Results whose text says the call itself was wrong (not that the tool failed at its work).
INVALID_MARKERS = ("could not be read", "Invalid arguments for", "Unknown tool", "not valid JSON", "must be a JSON")


@dataclass
class RunResult:
    task: str
    protocol: str
    model: str
    finished: bool
    why: str = ""
    valid_calls: int = 0
    invalid_calls: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    wall_s: float = 0.0
    exit_code: int | None = None
    notices: list[str] = field(default_factory=list)
    answer: str = ""  # the end of the model's final text, to see why a run did not finish


def settings_for(protocol: str, args: argparse.Namespace) -> dict[str, Any]:
    providers: dict[str, Any] = {"tool_protocol": protocol, "request_timeout": args.timeout}
    if args.context_window:
        providers["context_window"] = args.context_window
    if args.temperature is not None:
        providers["temperature"] = args.temperature
    if args.max_tokens:
        providers["max_tokens"] = args.max_tokens
    return {
        "approval": "yolo",
        "max_turns": args.max_turns,
        "index": {"inject": "off"},
        "compaction": {"unexpected_stop": "heuristic"},
        "providers": providers,
    }


def tally(events: list[dict[str, Any]], result: RunResult) -> None:
    for event in events:
        kind = event.get("type")
        if kind == "turn_started":
            result.requests += 1
        elif kind == "usage_update":
            result.prompt_tokens += int((event.get("usage") or {}).get("input") or 0)
        elif kind == "tool_call_finished":
            outcome = event.get("result") or {}
            text = _result_text(outcome)
            failed = outcome.get("isError") or outcome.get("is_error")
            if failed and any(marker in text for marker in INVALID_MARKERS):
                result.invalid_calls += 1
            else:
                result.valid_calls += 1
        elif kind == "run_finished":
            result.answer = str(event.get("text") or "")[-400:]
        elif kind in ("notice", "error") and event.get("text" if kind == "notice" else "message"):
            result.notices.append(str(event.get("text") or event.get("message"))[:160])


def _result_text(outcome: dict[str, Any]) -> str:
    content = outcome.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return str(outcome.get("text") or "")


def run_task(task: Task, protocol: str, args: argparse.Namespace) -> RunResult:
    result = RunResult(task=task.name, protocol=protocol, model=args.model, finished=False)
    with tempfile.TemporaryDirectory(prefix=f"navtui-eval-{task.name}-") as scratch:
        root = Path(scratch) / "repo"
        home = Path(scratch) / "home"
        root.mkdir()
        home.mkdir()
        task.make(root)
        subprocess.run(["git", "init", "-q"], cwd=root, check=False)
        (home / "settings.json").write_text(json.dumps(settings_for(protocol, args)), encoding="utf-8")
        env = {**os.environ, "NAVTUI_HOME": str(home)}
        if args.navtui_src:
            env["PYTHONPATH"] = str(Path(args.navtui_src).resolve())
        command = [sys.executable, "-m", "navtui", "-p", args.provider, "-b", args.base_url, "-m", args.model]
        command += ["--json", task.prompt]
        started = time.monotonic()
        out = _run_bounded(command, root, env, args.run_timeout)
        result.wall_s = round(time.monotonic() - started, 1)
        result.exit_code = out[0]
        events = [_json_line(line) for line in out[1].splitlines()]
        tally([e for e in events if e], result)
        if out[0] == 2 and not events:
            result.why = "navtui refused the settings: " + out[2].strip().splitlines()[-1][:120] if out[2] else ""
            return result
        problem = task.check(root, task.files)
        result.finished = problem is None and out[0] == 0
        if problem:
            result.why = problem
        elif out[0] is None:
            result.why = f"timed out after {args.run_timeout:.0f} s"
        elif out[0] != 0:
            result.why = f"navtui exited {out[0]}: " + (out[2].strip().splitlines() or [""])[-1][:120]
    return result


def _json_line(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _run_bounded(command: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[int | None, str, str]:
    """Run in its own process group; on timeout the whole group is killed and the exit code is None."""
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        stdout, stderr = process.communicate(timeout=timeout)
        return process.returncode, stdout, stderr
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        return None, stdout, stderr


def table(rows: list[RunResult]) -> str:
    head = f"{'task':<13} {'protocol':<11} {'done':<4} {'calls ok/bad':>12} {'req':>4} {'prompt tok':>10} {'wall s':>7}  why"
    lines = [head, "-" * len(head)]
    for r in rows:
        calls = f"{r.valid_calls}/{r.invalid_calls}"
        done = "yes" if r.finished else "no"
        lines.append(
            f"{r.task:<13} {r.protocol:<11} {done:<4} {calls:>12} {r.requests:>4} {r.prompt_tokens:>10} "
            f"{r.wall_s:>7.1f}  {r.why[:70]}"
        )
    return "\n".join(lines)


def summary(rows: list[RunResult]) -> str:
    lines = []
    for protocol in dict.fromkeys(r.protocol for r in rows):
        mine = [r for r in rows if r.protocol == protocol]
        valid = sum(r.valid_calls for r in mine)
        invalid = sum(r.invalid_calls for r in mine)
        lines.append(
            f"{protocol:<11} finished {sum(r.finished for r in mine)}/{len(mine)}, calls {valid}/{invalid}, "
            f"requests {sum(r.requests for r in mine)}, prompt tokens {sum(r.prompt_tokens for r in mine)}, "
            f"wall {sum(r.wall_s for r in mine):.0f} s"
        )
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-b", "--base-url", required=True, help="the endpoint (llama.cpp, vLLM, LM Studio, Ollama)")
    parser.add_argument("-m", "--model", required=True)
    parser.add_argument("-p", "--provider", default="openai", choices=("openai", "ollama"))
    parser.add_argument("--protocol", nargs="+", default=["text", "native"], help="tool protocols to run")
    parser.add_argument("--tasks", nargs="+", help="task names (default: all)")
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument("--run-timeout", type=float, default=300, help="seconds one run may take")
    parser.add_argument("--timeout", type=float, default=300, help="providers.request_timeout")
    parser.add_argument("--context-window", type=int, help="providers.context_window (default: as discovered)")
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--max-tokens", type=int, help="providers.max_tokens (a small model can ramble for minutes)")
    parser.add_argument("--navtui-src", help="run navtui from this checkout (PYTHONPATH)")
    parser.add_argument("--json-out", type=Path, help="append the rows to this JSON-lines file")
    parser.add_argument("--label", default="", help="a label stored with the rows (e.g. before/after)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tasks = [t for t in TASKS if not args.tasks or t.name in args.tasks]
    if args.tasks and len(tasks) != len(args.tasks):
        known = ", ".join(t.name for t in TASKS)
        print(f"unknown task in {args.tasks}; known: {known}", file=sys.stderr)
        return 2
    rows: list[RunResult] = []
    print(f"model {args.model} at {args.base_url} ({args.provider}); load {os.getloadavg()[0]:.1f}", flush=True)
    for protocol in args.protocol:
        for task in tasks:
            row = run_task(task, protocol, args)
            rows.append(row)
            print(table([row]).splitlines()[-1], flush=True)
            if args.json_out:
                with args.json_out.open("a", encoding="utf-8") as out:
                    out.write(json.dumps({**asdict(row), "label": args.label, "load": os.getloadavg()[0]}) + "\n")
    print()
    print(table(rows))
    print()
    print(summary(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
