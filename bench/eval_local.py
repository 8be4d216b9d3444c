"""The local-model eval: real tasks in scratch repositories, run by navtui and by aider against the same endpoint.

    python bench/eval_local.py -b http://127.0.0.1:8081 -m qwen2.5-coder-1.5b --protocol edits aider-whole --runs 2
    python bench/eval_local.py -b http://127.0.0.1:11434 -m qwen2.5-coder:1.5b -p ollama --tasks fix_test rename

Each run makes a fresh repository (``bench/eval_tasks.py``), then runs one agent in it:

- a navtui protocol (``edits``, ``constrained``, ``native``, ``text``, ``auto``): ``navtui --json PROMPT`` with
  approval ``yolo`` and a private ``NAVTUI_HOME`` whose settings choose the protocol; the task's "files a user
  would add" go with the prompt as ``@path`` (``--no-user-files`` leaves them out);
- ``aider-whole`` / ``aider-diff``: aider (its own install, ``--aider PATH``) with ``--edit-format whole`` or
  ``diff``, the same files added on its command line, ``--yes-always``, no commits;

then asks the task's checker (files and exit codes, never the model's words). It prints one row per run:
finished, tool calls (valid/invalid; for aider: edits applied/failed), requests, prompt tokens, the largest
request, wall time, and why a run did not finish, with the 1-minute load average at the start and end of each
batch. ``--json-out`` keeps the rows for ``bench/eval_report.py``; ``--keep DIR`` keeps the repository and the
session of each failed run; ``--navtui-src`` runs another checkout of navtui (a "before"). Model runs are slow on
CPU: run it under ``nice`` on a shared machine. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.eval_tasks import ALL_TASKS, SETS, Task  # noqa: E402

# Results whose text says the call itself was wrong (not that the tool failed at its work).
INVALID_MARKERS = ("could not be read", "Invalid arguments for", "Unknown tool", "not valid JSON", "must be a JSON")
AIDER_FORMATS = {"aider-whole": "whole", "aider-diff": "diff"}
# What aider prints: one "Tokens:" line per request, one line per edit applied or refused.
_AIDER_TOKENS = re.compile(r"Tokens: ([\d.]+)(k?) sent")
_AIDER_APPLIED = re.compile(r"^Applied edit to ", re.M)
_AIDER_FAILED = re.compile(r"(failed to match|did not conform to the edit format|SearchReplaceNoExactMatch)", re.I)


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
    max_request: int = 0  # the largest prompt one request sent, in tokens as the server counted them
    window: int | None = None
    wall_s: float = 0.0
    exit_code: int | None = None
    run: int = 1
    load_start: float = 0.0
    agent: str = ""  # navtui's commit, or aider's version
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
            prompt = int((event.get("usage") or {}).get("input") or 0)
            result.prompt_tokens += prompt
            result.max_request = max(result.max_request, prompt)
            result.window = event.get("context_window") or result.window
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


def tally_aider(stdout: str, result: RunResult) -> None:
    for match in _AIDER_TOKENS.finditer(stdout):
        tokens = int(float(match.group(1)) * (1000 if match.group(2) else 1))
        result.requests += 1
        result.prompt_tokens += tokens
        result.max_request = max(result.max_request, tokens)
    result.valid_calls = len(_AIDER_APPLIED.findall(stdout))
    result.invalid_calls = len(_AIDER_FAILED.findall(stdout))
    result.answer = stdout.strip()[-400:]


def _result_text(outcome: dict[str, Any]) -> str:
    content = outcome.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return str(outcome.get("text") or "")


def navtui_prompt(task: Task, args: argparse.Namespace) -> str:
    """The prompt as a navtui user types it: the request, then ``@path`` for each file they would add."""
    if args.no_user_files or not task.user_files:
        return task.prompt
    return task.prompt + "\n\n" + " ".join(f"@{rel}" for rel in task.user_files)


def navtui_command(task: Task, protocol: str, args: argparse.Namespace, home: Path) -> tuple[list[str], dict[str, str]]:
    (home / "settings.json").write_text(json.dumps(settings_for(protocol, args)), encoding="utf-8")
    env = {**os.environ, "NAVTUI_HOME": str(home)}
    if args.navtui_src:
        env["PYTHONPATH"] = str(Path(args.navtui_src).resolve())
    command = [sys.executable, "-m", "navtui", "-p", args.provider, "-b", args.base_url, "-m", args.model]
    return [*command, "--json", navtui_prompt(task, args)], env


def aider_command(task: Task, protocol: str, args: argparse.Namespace, home: Path) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    if args.provider == "ollama":
        model = f"ollama_chat/{args.model}"
        env["OLLAMA_API_BASE"] = args.base_url
        endpoint: list[str] = []
    else:
        model = f"openai/{args.model}"
        endpoint = ["--openai-api-base", args.base_url.rstrip("/") + "/v1", "--openai-api-key", "none"]
    metadata = home / "model-metadata.json"
    window = args.context_window or args.discovered_window
    if window:  # aider then knows the window, as it would for a model it knows (it warns and trims by it)
        limits = {"max_input_tokens": window, "max_tokens": window, "max_output_tokens": args.max_tokens or window}
        costs = {"input_cost_per_token": 0, "output_cost_per_token": 0, "mode": "chat"}
        provider = "ollama_chat" if args.provider == "ollama" else "openai"
        metadata.write_text(json.dumps({model: {**limits, **costs, "litellm_provider": provider}}), encoding="utf-8")
    command = [
        args.aider, "--model", model, *endpoint, "--edit-format", AIDER_FORMATS[protocol],
        "--yes-always", "--no-auto-commits", "--no-dirty-commits", "--no-gitignore", "--no-check-update",
        "--no-show-model-warnings", "--no-show-release-notes", "--analytics-disable", "--no-pretty",
        "--no-fancy-input", "--timeout", str(int(args.timeout)),
        "--chat-history-file", str(home / "chat.md"), "--input-history-file", str(home / "input.txt"),
        "--llm-history-file", str(home / "llm.txt"),
    ]  # fmt: skip
    if window:
        command += ["--model-metadata-file", str(metadata)]
    if args.temperature is not None:
        settings = home / "model-settings.yml"
        settings.write_text(
            f"- name: {model}\n  extra_params:\n    temperature: {args.temperature}\n", encoding="utf-8"
        )
        command += ["--model-settings-file", str(settings)]
    files = [] if args.no_user_files else list(task.user_files)
    return [*command, "--message", task.prompt, *files], {**env, "HOME": str(home)}


def run_task(task: Task, protocol: str, args: argparse.Namespace, run: int = 1) -> RunResult:
    result = RunResult(task=task.name, protocol=protocol, model=args.model, finished=False, run=run)
    result.load_start = os.getloadavg()[0]
    is_aider = protocol in AIDER_FORMATS
    result.agent = args.aider_version if is_aider else args.navtui_commit
    with tempfile.TemporaryDirectory(prefix=f"navtui-eval-{task.name}-") as scratch:
        root = Path(scratch) / "repo"
        home = Path(scratch) / "home"
        root.mkdir()
        home.mkdir()
        task.make(root)
        subprocess.run(["git", "init", "-q"], cwd=root, check=False)
        make = aider_command if is_aider else navtui_command
        command, env = make(task, protocol, args, home)
        started = time.monotonic()
        out = _run_bounded(command, root, env, args.run_timeout)
        result.wall_s = round(time.monotonic() - started, 1)
        result.exit_code = out[0]
        events: list[dict[str, Any]] = []
        if is_aider:
            tally_aider(out[1], result)
            result.window = args.context_window or args.discovered_window
        else:
            events = [e for e in (_json_line(line) for line in out[1].splitlines()) if e]
            tally(events, result)
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
            result.why = f"exited {out[0]}: " + (out[2].strip().splitlines() or [""])[-1][:120]
        if args.keep and not result.finished:
            _keep(Path(scratch), args.keep / f"{args.model}-{protocol}-{task.name}-{run}", out)
    return result


def _keep(scratch: Path, dest: Path, out: tuple[int | None, str, str]) -> None:
    """The failed run's repository, navtui's home (its session) or aider's history, and what the agent printed."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(scratch, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    (dest / "stdout.txt").write_text(out[1], encoding="utf-8")
    (dest / "stderr.txt").write_text(out[2], encoding="utf-8")


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
    head = (
        f"{'task':<15} {'protocol':<11} {'run':>3} {'done':<4} {'calls ok/bad':>12} {'req':>4} {'prompt tok':>10} "
        f"{'max req':>7} {'wall s':>7}  why"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        calls = f"{r.valid_calls}/{r.invalid_calls}"
        done = "yes" if r.finished else "no"
        lines.append(
            f"{r.task:<15} {r.protocol:<11} {r.run:>3} {done:<4} {calls:>12} {r.requests:>4} {r.prompt_tokens:>10} "
            f"{r.max_request:>7} {r.wall_s:>7.1f}  {r.why[:70]}"
        )
    return "\n".join(lines)


def summary(rows: list[RunResult]) -> str:
    lines = []
    for protocol in dict.fromkeys(r.protocol for r in rows):
        mine = [r for r in rows if r.protocol == protocol]
        valid = sum(r.valid_calls for r in mine)
        invalid = sum(r.invalid_calls for r in mine)
        over = sum(1 for r in mine if r.window and r.max_request > r.window)
        lines.append(
            f"{protocol:<11} finished {sum(r.finished for r in mine)}/{len(mine)}, calls {valid}/{invalid}, "
            f"requests {sum(r.requests for r in mine)}, prompt tokens {sum(r.prompt_tokens for r in mine)}, "
            f"largest request {max((r.max_request for r in mine), default=0)} ({over} runs over the window), "
            f"wall {sum(r.wall_s for r in mine):.0f} s"
        )
    return "\n".join(lines)


def discover_window(args: argparse.Namespace) -> int | None:
    """llama.cpp's window (``/props``), to tell aider; None for other servers."""
    try:
        with urllib.request.urlopen(args.base_url.rstrip("/") + "/props", timeout=5) as response:
            props = json.load(response)
    except (OSError, ValueError):
        return None
    n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
    return int(n_ctx) if isinstance(n_ctx, int) and n_ctx > 0 else None


def describe_agents(args: argparse.Namespace) -> None:
    source = Path(args.navtui_src or Path(__file__).resolve().parent.parent)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=source, capture_output=True, text=True)
    args.navtui_commit = "navtui " + (head.stdout.strip() or source.name)  # a snapshot (git archive) by its name
    args.aider_version = ""
    if any(p in AIDER_FORMATS for p in args.protocol):
        version = subprocess.run([args.aider, "--version"], capture_output=True, text=True, check=False)
        args.aider_version = version.stdout.strip() or "aider ?"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-b", "--base-url", required=True, help="the endpoint (llama.cpp, vLLM, LM Studio, Ollama)")
    parser.add_argument("-m", "--model", required=True)
    parser.add_argument("-p", "--provider", default="openai", choices=("openai", "ollama"))
    parser.add_argument(
        "--protocol", nargs="+", default=["auto", "aider-whole"], help="navtui protocols and aider-whole/aider-diff"
    )
    parser.add_argument("--tasks", nargs="+", help="task names, of any set (default: the whole --set)")
    parser.add_argument(
        "--set", default="base", choices=sorted(SETS), help="base: the 25 tasks (default); hard: the harder 9; all"
    )
    parser.add_argument("--runs", type=int, default=1, help="runs of each task and protocol")
    parser.add_argument("--aider", default=shutil.which("aider") or "aider", help="the aider executable")
    parser.add_argument("--no-user-files", action="store_true", help="give neither agent the task's files")
    parser.add_argument("--max-turns", type=int, default=10)
    parser.add_argument("--run-timeout", type=float, default=300, help="seconds one run may take")
    parser.add_argument("--timeout", type=float, default=300, help="providers.request_timeout")
    parser.add_argument("--context-window", type=int, help="providers.context_window (default: as discovered)")
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--max-tokens", type=int, help="providers.max_tokens (a small model can ramble for minutes)")
    parser.add_argument("--navtui-src", help="run navtui from this checkout (PYTHONPATH)")
    parser.add_argument("--json-out", type=Path, help="append the rows to this JSON-lines file")
    parser.add_argument("--keep", type=Path, help="keep each failed run's repository and session under this folder")
    parser.add_argument("--label", default="", help="a label stored with the rows (e.g. before/after)")
    parser.add_argument(
        "--first-run", type=int, default=1, help="number the runs from here (runs of one label on two servers)"
    )
    return parser.parse_args(argv)


def selected_tasks(args: argparse.Namespace) -> list[Task]:
    """``--tasks`` by name from every set, in the sets' order; else the whole ``--set`` (the 25 by default)."""
    return [t for t in ALL_TASKS if t.name in args.tasks] if args.tasks else SETS[args.set]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    tasks = selected_tasks(args)
    if args.tasks and len(tasks) != len(args.tasks):
        known = ", ".join(t.name for t in ALL_TASKS)
        print(f"unknown task in {args.tasks}; known: {known}", file=sys.stderr)
        return 2
    describe_agents(args)
    args.discovered_window = discover_window(args)
    rows: list[RunResult] = []
    print(f"model {args.model} at {args.base_url} ({args.provider}), window {args.discovered_window}", flush=True)
    for run in range(args.first_run, args.first_run + args.runs):
        for protocol in args.protocol:
            start = os.getloadavg()[0]
            print(f"# {protocol} run {run}: load {start:.1f} at the start", flush=True)
            for task in tasks:
                row = run_task(task, protocol, args, run)
                rows.append(row)
                print(table([row]).splitlines()[-1], flush=True)
                if args.json_out:
                    with args.json_out.open("a", encoding="utf-8") as out:
                        out.write(json.dumps({**asdict(row), "label": args.label, "load": os.getloadavg()[0]}) + "\n")
            print(f"# {protocol} run {run}: load {start:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    print()
    print(table(rows))
    print()
    print(summary(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
