"""``navtui --print`` and ``navtui --json``: one prompt, no screen.

--print streams the answer's text to stdout as it comes (each turn's text on its own lines) and a short line per
tool call to stderr; --json writes every
AgentEvent as one JSON object per line, with the format's version ``"v"`` (docs/events.md). Calls that would
need an approval prompt are refused by policy.

What --print writes to a terminal goes through ``display_safe`` (a model's escape sequences are shown, never
run by the terminal); written to a pipe or a file it stays byte for byte what the model wrote, as does --json.

Input piped in (``git diff | navtui --print "review this"``) is attached to the prompt, as ``claude -p`` does:
``piped_input`` reads it when stdin is a pipe or a file (never a terminal or a device such as /dev/null), up to
``STDIN_LIMIT`` bytes; what is cut is said, in the prompt and on stderr.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO, TextIO

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.display import display_safe
from navtui.core.errors import ConfigError, NavtuiError
from navtui.core.events import (
    JSON_EVENTS_VERSION,
    AgentError,
    AgentEvent,
    ModelLoading,
    Notice,
    RunFinished,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnStarted,
)
from navtui.core.secrets import mask_secrets
from navtui.core.terminal import is_terminal
from navtui.core.text import json_text
from navtui.tools.base import ToolRegistry

EXIT_OK, EXIT_PROVIDER, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
_MODEL_PROBLEMS = frozenset({"auth", "not_found"})  # no key, or no such model: another model is a way out
_LOCAL_EXAMPLE = " (a local one: -m qwen2.5-coder:7b with Ollama running)"
MODELS_SHOWN = 8  # models named when the one asked for is not on the server
LIST_TIMEOUT = 5.0  # seconds to ask the server what it has, after a run that found no such model
STDIN_LIMIT = 100_000  # bytes of piped input attached to the prompt (as an @path file)
_CHUNK = 65536


@dataclass(frozen=True)
class PipedInput:
    text: str
    size: int  # bytes piped in, all of them
    limit: int = STDIN_LIMIT  # bytes kept

    @property
    def cut(self) -> bool:
        return self.size > len(self.text.encode("utf-8", "surrogateescape"))

    @property
    def cut_note(self) -> str:
        return f"stdin held {_human_bytes(self.size)}; only its first {_human_bytes(self.limit)} were attached"


def _human_bytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} KB" if size >= 1e3 else f"{size} bytes"


def piped_input(stream: BinaryIO, limit: int = STDIN_LIMIT) -> PipedInput | None:
    """What was piped into stdin (read to its end: the writer is never cut off), or None when stdin is a
    terminal, a device, closed, or empty. Blocking."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
        return None
    kept = b""
    size = 0
    while chunk := stream.read(_CHUNK):
        size += len(chunk)
        if len(kept) < limit:
            kept += chunk[: limit - len(kept)]
    if not size:
        return None
    if len(kept) < size:  # do not end inside a UTF-8 sequence
        kept = kept.decode("utf-8", "ignore").encode("utf-8")
    return PipedInput(kept.decode("utf-8", "replace"), size, limit)


def with_piped_input(prompt: str, piped: PipedInput) -> str:
    """The prompt with the piped text after it (the text alone when there is no prompt)."""
    text = piped.text
    if piped.cut:
        text += f"\n[cut: {piped.cut_note}]"
    if not prompt:
        return text
    return f"{prompt}\n\n<stdin>\n{text}\n</stdin>"


def _short(text: str, limit: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def writer(stream: TextIO, *, mask: bool = False) -> Callable[[str], None]:
    """Print lines to ``stream``; on a terminal, untrusted text is made safe first (a pipe gets it raw).

    ``mask``: secrets are masked too (errors, notices and tool lines; never the answer itself).
    """
    safe = is_terminal(stream)

    def write(line: str) -> None:
        if mask:
            line = mask_secrets(line)
        print(display_safe(line) if safe else line, file=stream, flush=True)

    return write


class _PrintSink:
    """The answer's text to stdout as it streams; tool activity, notices and errors to stderr."""

    def __init__(self, out: TextIO, err: TextIO, tools: ToolRegistry) -> None:
        self.stream, self.safe = out, is_terminal(out)
        self.err = writer(err, mask=True)
        self.tools = tools
        self.error: str | None = None
        self.streamed = False  # text went out during this run
        self.line_open = False  # the last text written did not end its line

    def _text(self, text: str) -> None:
        self.stream.write(display_safe(text) if self.safe else text)
        self.stream.flush()
        self.streamed = True
        self.line_open = not text.endswith("\n")

    def _end_line(self) -> None:
        if self.line_open:
            self._text("\n")

    def __call__(self, event: AgentEvent) -> None:
        match event:
            case TextDelta(text=text) if text:
                self._text(text)
            case TurnStarted():
                self._end_line()  # the next turn's text starts on a line of its own
            case ToolCallStarted(call=call):  # as the app's card titles: "→ read src/main.py"
                self._end_line()
                self.err(f"→ {call.name} {_short(self.tools.describe(call))}".rstrip())
            case ToolCallFinished(result=result) if result.is_error:
                self.err(f"  ✗ {_short(result.text, 160)}")
            case ModelLoading(model=model, done=False):
                self.err(f"[info] loading {model} into memory…")
            case ModelLoading(model=model, seconds=seconds):
                self.err(f"[info] {model} loaded" + (f" in {seconds:g} s" if seconds is not None else ""))
            case Notice(level=level, text=text):
                self.err(f"[{level}] {text}")
            case AgentError(message=message, hint=hint):
                self.error = message + (f" ({hint})" if hint else "")
            case RunFinished(text=text):  # partial text of a failed turn was streamed too
                if not self.streamed and text.rstrip("\n"):  # a provider that sent no deltas
                    self._text(text.rstrip("\n"))
                self._end_line()


class _JsonSink:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.error: str | None = None

    def __call__(self, event: AgentEvent) -> None:
        if isinstance(event, AgentError):
            self.error = event.message + (f" ({event.hint})" if event.hint else "")
        line = {"v": JSON_EVENTS_VERSION, **event.to_json()}
        self.out.write(json_text(line) + "\n")  # valid UTF-8 and inert on a terminal, same values
        self.out.flush()


async def _installed(runtime: Runtime) -> list[str] | None:
    """What the server has, when the run failed on a model it does not have (None: not that, or no list)."""
    last = runtime.agent.last_error
    if last is None or last.kind != "not_found":
        return None
    try:
        async with asyncio.timeout(LIST_TIMEOUT):
            return await runtime.list_models()
    except Exception:  # a list to pick from is a convenience: the error still says what happened
        return None


def model_steps(provider: str, model: str, installed: list[str] | None, mode: str) -> list[str]:
    """What to do after a run that found no such model (``installed``: what the server has) or had no key."""
    if installed is None:
        return [f"to use another model: navtui -m MODEL {mode} …{_LOCAL_EXAMPLE}"]
    if not installed:
        steps = ["the server has no model yet"]
    else:
        names = ", ".join(installed[:MODELS_SHOWN]) + (
            f" … ({len(installed)} in all)" if len(installed) > MODELS_SHOWN else ""
        )
        steps = [f"the server has: {names}", f"to use one: navtui -m {installed[0]} {mode} …"]
    if provider == "ollama":
        steps.append(f"or get {model}: ollama pull {model}")
    return steps


async def _run(runtime: Runtime, prompt: str, sink: _PrintSink | _JsonSink) -> tuple[str, list[str] | None]:
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, runtime.abort)
    except (NotImplementedError, RuntimeError):
        pass
    stop_reason = "stop"
    skipped = runtime.mcp.skipped_notice() if runtime.mcp is not None else None
    if skipped:  # no screen to ask on: the repository's servers stay off, and the user learns how to allow them
        sink(Notice(text=skipped, level="warning"))
    if runtime.mcp is not None:
        # No screen to keep responsive: the first request waits for the servers' whole start-up, not 10 s.
        runtime.mcp.request_wait = runtime.settings.mcp.startup_timeout
        # A server's crash, restart or lost session is reported when it happens.
        runtime.mcp.listener = lambda text, level: sink(Notice(text=text, level=level)) if text else None
    try:
        if runtime.model_choice.restored:  # a resumed session's model: check it, fall back if it cannot be reached
            status = await runtime.check_provider()
            if status.notice:
                sink(Notice(text=status.notice, level="warning"))
        async for event in runtime.run(prompt):
            sink(event)
            if isinstance(event, RunFinished):
                stop_reason = event.stop_reason
        installed = await _installed(runtime) if stop_reason == "error" or sink.error else None
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass
        await runtime.aclose()
    return stop_reason, installed


def run_headless(options: LaunchOptions, prompt: str, *, json_mode: bool) -> int:
    err = writer(sys.stderr, mask=True)  # error text may quote a server's reply: masked and made safe
    try:
        runtime = Runtime.create(options)
    except ConfigError as exc:
        err(f"navtui: {exc}")
        return EXIT_USAGE
    except NavtuiError as exc:
        err(f"navtui: {exc}")
        return EXIT_PROVIDER
    for warning in runtime.warnings:
        err(f"navtui: warning: {warning}")
    sink = _JsonSink(sys.stdout) if json_mode else _PrintSink(sys.stdout, sys.stderr, runtime.tools)
    try:
        stop_reason, installed = asyncio.run(_run(runtime, prompt, sink))
    except NavtuiError as exc:
        err(f"navtui: {exc}")
        return EXIT_PROVIDER
    if stop_reason == "aborted":
        err("navtui: interrupted")
        return EXIT_INTERRUPTED
    if stop_reason == "error" or sink.error:
        last = runtime.agent.last_error
        if last is not None and last.kind == "not_found" and runtime.provider.name == "ollama":
            err(f"navtui: {last.message}")  # its hint is the app's /models pull: the steps say a shell's way
        else:
            err(f"navtui: {sink.error or 'the model request failed'}")
        if last is not None and last.kind in _MODEL_PROBLEMS:
            provider = runtime.provider
            for step in model_steps(provider.name, provider.model, installed, "--json" if json_mode else "--print"):
                err(f"navtui: {step}")
        return EXIT_PROVIDER
    return EXIT_OK
