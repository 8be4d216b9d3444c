"""The user's own commands from the prompt, as in pi and omp: ``!cmd`` runs a shell command, ``$code`` Python.

The output joins the conversation as pi's ``bashExecution`` / omp's ``pythonExecution`` message (the model sees
"Ran `cmd`" and its output with the next prompt); ``!!cmd`` / ``$$code`` keep it out of the model's context.
They are the user's commands, typed by the user: no approval is asked.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from navtui.core.programs import find_program

if TYPE_CHECKING:
    from navtui.core.messages import UserMessage

# navtui.core.messages (pydantic) is imported where a message is made: the prompt's border asks prompt_mode on
# the first key typed, often before the runtime (and pydantic) has loaded, and must not wait ~70 ms for it.

MAX_OUTPUT = 100_000  # characters kept (the tail, like a terminal's scrollback)
TIMEOUT = 600.0


@dataclass(frozen=True)
class UserCommand:
    kind: Literal["bash", "python"]
    code: str
    excluded: bool  # "!!" / "$$": shown and saved, never sent to the model

    @property
    def prefix(self) -> str:
        mark = "!" if self.kind == "bash" else "$"
        return mark * (2 if self.excluded else 1)


def parse_user_command(text: str) -> UserCommand | None:
    """``!ls`` / ``!!ls`` / ``$print(1)`` / ``$$...``, else ``None`` (a bare ``!`` or ``$`` is an ordinary prompt)."""
    stripped = text.strip()
    for mark, kind in (("!", "bash"), ("$", "python")):
        if stripped.startswith(mark):
            excluded = stripped.startswith(mark * 2)
            code = stripped[2 if excluded else 1 :].strip()
            return UserCommand(kind, code, excluded) if code else None  # type: ignore[arg-type]
    return None


def prompt_mode(text: str) -> Literal["bash", "python"] | None:
    """What the prompt is about to run, for its border: the mode shows as soon as the prefix is typed."""
    stripped = text.lstrip()
    return "bash" if stripped.startswith("!") else "python" if stripped.startswith("$") else None


async def run_user_command(
    command: UserCommand, cwd: Path, on_output: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Run it and return the session message (pi's/omp's shape). Cancelling kills the process. ``on_output`` is
    given what it prints as it comes (the card shows it while it runs).

    The run ends when the command does, as a terminal gives its prompt back: a process it left behind in a
    session of its own (``setsid``) that still holds the output does not hold the run, nor does it keep a stop
    (Esc, ctrl+c) waiting. The output is our own pipe, read as it comes and drained once the command has ended
    (asyncio's ``Process.wait`` waits for its pipes to close as well).
    """
    from navtui.core.messages import now_ms

    if command.kind == "bash":
        argv = [find_program("bash") or "/bin/sh", "-c", command.code]
    else:  # the project's Python (the one on PATH), not the one navtui runs in
        argv = [find_program("python3") or sys.executable, "-c", command.code]
    output, into = os.pipe()
    try:
        os.set_blocking(output, False)
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=into, stderr=into, start_new_session=True
        )
    except BaseException:
        os.close(output)
        raise
    finally:
        os.close(into)
    data = bytearray()  # what it printed so far: a run stopped (Esc, ctrl+c) keeps it, as a terminal does
    loop = asyncio.get_running_loop()

    decode = codecs.getincrementaldecoder("utf-8")("replace").decode

    def take() -> None:
        count = _read(output, data)
        if count == 0:  # the end: every writer is gone
            loop.remove_reader(output)
        elif count and on_output is not None:
            on_output(decode(bytes(data[-count:])))

    loop.add_reader(output, take)
    cancelled = False
    try:
        async with asyncio.timeout(TIMEOUT):
            await process.wait()
    except (TimeoutError, asyncio.CancelledError):
        cancelled = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 9)
        await process.wait()
    finally:
        loop.remove_reader(output)
        try:
            drained = 0  # what it wrote before it ended (a detached child that writes on: a bounded part of it)
            while drained < 4 * MAX_OUTPUT and (count := _read(output, data)):
                drained += count
        finally:
            os.close(output)  # a detached child writing on finds no reader, as after a terminal closed
    text = data.decode("utf-8", "replace")
    truncated = len(text) > MAX_OUTPUT
    message: dict[str, Any] = {
        "role": "bashExecution" if command.kind == "bash" else "pythonExecution",
        ("command" if command.kind == "bash" else "code"): command.code,
        "output": text[-MAX_OUTPUT:],
        "exitCode": None if cancelled else process.returncode,
        "cancelled": cancelled,
        "truncated": truncated,
        "timestamp": now_ms(),
    }
    if command.excluded:
        message["excludeFromContext"] = True
    return message


def _read(output: int, data: bytearray) -> int | None:
    """Read what the pipe holds into ``data`` (its tail is kept): how many bytes, 0 at its end (every writer
    gone), ``None`` when it holds nothing now."""
    try:
        chunk = os.read(output, 65536)
    except BlockingIOError:
        return None
    except OSError:
        chunk = b""
    data += chunk
    del data[: max(0, len(data) - 4 * MAX_OUTPUT)]  # the tail is what is kept
    return len(chunk)


def context_message(message: dict[str, Any]) -> UserMessage | None:
    """What the model gets of a run (``None`` when it is kept out of the context)."""
    from navtui.session.context import execution_text

    if message.get("excludeFromContext"):
        return None
    from navtui.core.messages import UserMessage, now_ms

    return UserMessage(content=execution_text(message), timestamp=message.get("timestamp") or now_ms())
