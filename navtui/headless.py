"""``navtui --print`` and ``navtui --json``: one prompt, no screen.

--print writes the final answer to stdout and a short line per tool call to stderr; --json writes every
AgentEvent as one JSON object per line. Calls that would need an approval prompt are refused by policy.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from typing import Any, TextIO

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.errors import ConfigError, NavtuiError
from navtui.core.events import AgentError, Notice, RunFinished, ToolCallFinished, ToolCallStarted

EXIT_OK, EXIT_PROVIDER, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _short(text: str, limit: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class _PrintSink:
    """Final answer to stdout; tool activity, notices and errors to stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.error: str | None = None

    def __call__(self, event: Any) -> None:
        if isinstance(event, ToolCallStarted):
            args = ", ".join(f"{k}={v!r}" for k, v in event.call.arguments.items())
            print(f"→ {event.call.name}({_short(args)})", file=self.err, flush=True)
        elif isinstance(event, ToolCallFinished) and event.result.is_error:
            print(f"  ✗ {_short(event.result.text, 160)}", file=self.err, flush=True)
        elif isinstance(event, Notice):
            print(f"[{event.level}] {event.text}", file=self.err, flush=True)
        elif isinstance(event, AgentError):
            self.error = event.message + (f" ({event.hint})" if event.hint else "")
        elif isinstance(event, RunFinished):  # partial text of a failed turn is kept too
            text = event.text.rstrip("\n")
            if text:
                print(text, file=self.out, flush=True)


class _JsonSink:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.error: str | None = None

    def __call__(self, event: Any) -> None:
        if isinstance(event, AgentError):
            self.error = event.message + (f" ({event.hint})" if event.hint else "")
        self.out.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
        self.out.flush()


async def _run(runtime: Runtime, prompt: str, sink: Any) -> str:
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, runtime.abort)
    except (NotImplementedError, RuntimeError):
        pass
    stop_reason = "stop"
    try:
        async for event in runtime.run(prompt):
            sink(event)
            if isinstance(event, RunFinished):
                stop_reason = event.stop_reason
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass
        await runtime.aclose()
    return stop_reason


def run_headless(options: LaunchOptions, prompt: str, *, json_mode: bool) -> int:
    try:
        runtime = Runtime.create(options)
    except ConfigError as exc:
        print(f"navtui: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except NavtuiError as exc:
        print(f"navtui: {exc}", file=sys.stderr)
        return EXIT_PROVIDER
    for warning in runtime.warnings:
        print(f"navtui: warning: {warning}", file=sys.stderr)
    sink = _JsonSink(sys.stdout) if json_mode else _PrintSink(sys.stdout, sys.stderr)
    try:
        stop_reason = asyncio.run(_run(runtime, prompt, sink))
    except NavtuiError as exc:
        print(f"navtui: {exc}", file=sys.stderr)
        return EXIT_PROVIDER
    if stop_reason == "aborted":
        print("navtui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if stop_reason == "error" or sink.error:
        print(f"navtui: {sink.error or 'the model request failed'}", file=sys.stderr)
        return EXIT_PROVIDER
    return EXIT_OK
