"""The check loop: after the model's final answer, run the check; on failure give it the output and ask again.

Small models claim a fix they never tested, or test it once and stop at the first failure. When a check is in
force, navtui runs it itself after the model's edits and, while it fails, shows the model the output and asks
again, up to ``agent.check_rounds`` times (3); the run ends saying whether it passed. Every protocol gets it.

A check is in force when ``agent.check_command`` is set, or when the prompt names one: a test command
(``python3 test_calc.py``, ``pytest -q tests/``, ``python -m unittest``, ``npm test``, ``go test ./...``, ``cargo
test``, ``make test``), a script it says fails ("python3 app.py fails with ...", "run python3 build.py ... until
it succeeds") or to run after the change ("..., then run python3 main.py": it must not crash), or "make the
test(s) pass" with one test file in the repository. It runs as a ``shell``
call through the agent (approval, sandbox, a card with its output, ``--json``): a repository's setting cannot make
navtui run anything the user would not be asked about. It runs when the run changed a file since the last check,
or once when the prompt named it (a model that changed nothing is told the check still fails); when the model ran
the check itself after its last change, that run's result counts and it is not run again.
"""

from __future__ import annotations

import re
import secrets
import shlex
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.agent.hooks import AgentHooks, Nudge
from navtui.core.events import CheckFinished, Notice, ToolCallFinished, ToolCallStarted
from navtui.core.messages import AssistantMessage, ToolCall, ToolResultMessage, ask_to_write
from navtui.tools.files.dropped import shadowed_note, without_copies

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.core.events import AgentEvent

EDITING_TOOLS = ("write", "edit")
OUTPUT_TAIL = 3000  # characters of a failing check's output the model sees (the end: where the error is)

# A flag, or a path-like argument (never a plain word: "fails." is not one).
_ARG = r"\s+(?:-{1,2}[\w=-]+|[\w-]*(?:/|:|\.(?=[\w/.]))[\w./:=-]*)"
_TEST_COMMAND = re.compile(
    r"(?:^|(?<=[\s`'\"(]))("
    rf"(?:python3?|py)\s+(?:-m\s+(?:pytest|unittest)(?:{_ARG})*|[\w./-]*test[\w./-]*\.py(?:{_ARG})*)"
    rf"|pytest(?:{_ARG})*"
    r"|(?:npm|pnpm|yarn)\s+(?:run\s+)?test"
    rf"|go\s+test(?:{_ARG})*"
    r"|cargo\s+test"
    r"|make\s+(?:test|check)"
    r")(?=$|[\s`'\".,;:)!?])",
    re.IGNORECASE | re.MULTILINE,
)
_PASS_WISH = re.compile(
    r"\b(?:tests?|checks?)\b[^.\n]{0,40}\bpass(?:es)?\b|\bpass(?:ing)?\b[^.\n]{0,20}\btests?\b", re.I
)
_FAILING_RUN = re.compile(
    r"((?:python3?|node|bash|sh)\s+[\w./-]+\.(?:py|js|sh))`?[^.\n]{0,40}?\b(?:fails|failing|crashes|errors|raises)\b"
    r"|((?:python3?|node|bash|sh)\s+[\w./-]+\.(?:py|js|sh))`?[^\n]{0,60}?\buntil it (?:succeeds|passes|works|runs)\b",
    re.IGNORECASE,
)
# "..., then run python3 main.py": the user wants the run to work; a crash (an import left behind by a rename) is
# what the check loop is for. Only a script given by path, never "run it".
# With its arguments: flags, paths and numbers ("then run python3 cli.py --verbose 2 3"; run as python3 cli.py, the
# 1.5B's right answer failed the check on argparse's "the following arguments are required", until the time ran out).
_THEN_RUN = re.compile(
    r"\b(?:then|and(?:\s+then)?|after\s+that,?)\s+run\s+`?((?:python3?|node|bash|sh)\s+[\w./-]+\.(?:py|js|sh)"
    rf"(?:{_ARG}|\s+-?\d+(?:\.\d+)?(?![\w.]\w))*)`?(?=$|[\s.,;:!?)])",
    re.IGNORECASE,
)
_TEST_FILE = re.compile(r"^(?:test_[\w-]+|[\w-]+_test)\.py$")


def check_in_prompt(prompt: str, cwd: Path) -> str | None:
    """The check a prompt names: a test command it writes, or "make the test pass" with one test file here."""
    words = prompt.split("<attached_file", 1)[0]
    match = _TEST_COMMAND.search(words)
    if match is not None:
        command = match.group(1).strip()
        return command if command.endswith("...") else command.rstrip(".")
    failing = _FAILING_RUN.search(
        words
    )  # "python3 app.py fails with ...", "Run python3 build.py ... until it succeeds"
    if failing is not None:
        return (failing.group(1) or failing.group(2)).strip()
    then_run = _THEN_RUN.search(words)
    if then_run is not None:
        return then_run.group(1).strip()
    if _PASS_WISH.search(words):
        tests = sorted(p.name for p in cwd.glob("*.py") if _TEST_FILE.match(p.name))
        if len(tests) == 1:
            return f"python3 {tests[0]}"
    return None


@dataclass
class CheckState:
    """One run's check: its command, rounds used, whether files changed since it last ran, the last outcome."""

    command: str | None = None
    rounds: int = 0
    named: bool = False  # the prompt named it: it runs even when nothing was changed
    ran: bool = False
    changed: bool = False
    passed: bool | None = None
    model_ran: ToolResultMessage | None = None  # the model's own run of the check, after its last change
    output: str = ""  # the end of the last failing run's output
    pressed: bool = False  # the model answered a failure without a change once, and was asked again
    seen_calls: set[str] = field(default_factory=set)


MAX_OFFERED_LINES = 80  # a file offered whole, without the copy that hides an import


class CheckHooks(AgentHooks):
    """Runs the check after a final answer (``verify``); a failure becomes a nudge with the output."""

    def __init__(self, cwd: Path, command: str | None = None, rounds: int = 3) -> None:
        self.cwd = cwd
        self.command = command.strip() if command and command.strip() else None
        self.max_rounds = rounds
        self.state = CheckState()

    def start_run(self, agent: Agent, prompt: str | None) -> None:
        named = check_in_prompt(prompt, self.cwd) if prompt else None
        if prompt is None and self.state.command is not None:
            return  # a continued run keeps its check
        self.state = CheckState(command=self.command or named, named=named is not None and not self.command)
        # Calls of earlier runs are no change of this one.
        self.state.seen_calls = {c.id for m in agent.messages if isinstance(m, AssistantMessage) for c in m.tool_calls}

    async def verify(self, agent: Agent, message: AssistantMessage) -> AsyncGenerator[AgentEvent | Nudge, None]:
        state = self.state
        if state.command is None or self.max_rounds <= 0:
            return
        self._note_changes(agent)
        result = state.model_ran  # the model ran the check itself after its last change: no need to run it again
        if result is None and not state.changed and (state.ran or not state.named):
            if state.ran and state.passed is False:
                if not state.pressed and state.rounds < self.max_rounds:
                    # A small model often answers a failing check in words ("The import is fixed now"); asked
                    # once more, with the error again and what it did not do, it makes the edit.
                    state.pressed = True
                    state.rounds += 1
                    yield Nudge(
                        message=f"You did not change any file, and the check `{state.command}` still fails:\n\n"
                        f"{state.output}\n\n{self._copies(agent)}Change the code now so that the check passes: "
                        "make the edit, do not describe it.",
                        notice=f"The model changed nothing and the check `{state.command}` still fails; asking "
                        f"once more (round {state.rounds} of {self.max_rounds}).",
                    )
                    return
                yield self._final(agent, state.command)
            return
        state.ran, state.changed, state.model_ran = True, False, None
        call = ToolCall(id=f"check_{secrets.token_hex(4)}", name="shell", arguments={"command": state.command})
        if result is None:
            yield ToolCallStarted(call=call)
            async for item in agent.run_tool(call):
                if isinstance(item, ToolResultMessage):
                    result = item
                else:
                    yield item
            assert result is not None
            yield ToolCallFinished(call=call, result=result)
        exit_code = (result.details or {}).get("exit_code")
        if result.is_error and not _ran(result):  # declined, or it could not start
            state.command, state.passed = None, None
            agent.check_note = f"Check `{call.arguments['command']}` not run: {result.text.strip()[:200]}"
            yield Notice(text=agent.check_note, level="warning")
            return
        state.passed = not result.is_error
        last = state.passed or state.rounds >= self.max_rounds
        yield CheckFinished(
            command=state.command,
            passed=state.passed,
            exit_code=exit_code if isinstance(exit_code, int) else None,
            round=state.rounds,
            final=last,
            output=result.text[-OUTPUT_TAIL:],
        )
        if last:
            yield self._final(agent, state.command)
            return
        state.rounds += 1
        output = result.text if len(result.text) <= OUTPUT_TAIL else "..." + result.text[-OUTPUT_TAIL:]
        state.output = output
        yield Nudge(
            message=f"I ran the check `{state.command}` and it fails:\n\n{output}\n\n"
            f"{self._copies(agent)}Fix the code so that the check passes (do not change the check itself).",
            notice=f"The check `{state.command}` fails; asking the model to fix it "
            f"(round {state.rounds} of {self.max_rounds}).",
        )

    def _copies(self, agent: Agent) -> str:
        command = self.state.command
        return hidden_copies(self.cwd, command, _blocks(agent)) if command else ""

    def _final(self, agent: Agent, command: str) -> Notice:
        passed = self.state.passed
        text = f"Check `{command}` passed." if passed else f"Check `{command}` still fails."
        agent.check_note = text
        return Notice(text=text, level="info" if passed else "warning")

    def _note_changes(self, agent: Agent) -> None:
        """Whether a write or edit succeeded since the check last looked."""
        state = self.state
        answered = {m.tool_call_id: m for m in agent.messages if isinstance(m, ToolResultMessage)}
        for message in agent.messages:
            if not isinstance(message, AssistantMessage):
                continue
            for call in message.tool_calls:
                if call.id in state.seen_calls:
                    continue
                state.seen_calls.add(call.id)
                result = answered.get(call.id)
                if result is None:
                    continue
                if call.name in EDITING_TOOLS and not result.is_error:
                    state.changed, state.model_ran = True, None
                elif call.name == "shell" and _same(call.arguments.get("command"), state.command) and _ran(result):
                    state.changed, state.model_ran = False, result


def hidden_copies(cwd: Path, command: str, block: bool = False) -> str:
    """A paragraph for each Python file the check runs that defines its own copy of a name it imports, else "";
    with ``block`` (the edits protocol) and a file of at most ``MAX_OFFERED_LINES``, the file without the copy too.

    Seen in the eval (test_and_fix): the 1.5B wrote a copy of the buggy chunk into test_lists.py under
    ``from lists import chunk``; the write's note said so, but three turns later the failing check was all it
    read, and it copied lists.py out unchanged until the run stopped. The check runs the copy: no fix of lists.py
    can make it pass, so the failure says so, and gives the block that takes the copy out."""
    notes: list[str] = []
    for word in _words(command):
        path = cwd / word
        if not word.endswith(".py"):
            continue
        try:
            if not path.is_file() or path.stat().st_size > 200_000:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        note = shadowed_note(cwd, path, text)
        if not note:
            continue
        fixed = without_copies(text) if block else None
        if fixed is not None and fixed.count("\n") <= MAX_OFFERED_LINES and "```" not in fixed:
            # Asked by name, the reply starts with the file's block (providers/edits.reply_start): offered the block
            # in a sentence ("send this block"), the 1.5B copied lists.py out unchanged again.
            note += f" {ask_to_write(word, 'this content')}:\n\n{word}\n```\n{fixed.rstrip()}\n```"
        notes.append(note + "\n\n")
    return "".join(notes)


def _blocks(agent: Agent) -> bool:
    """Whether the model writes files as blocks (the edits protocol) rather than with tool calls."""
    return getattr(agent.provider, "offers_tools", True) is False


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _ran(result: ToolResultMessage) -> bool:
    """The command ran (it was not declined and did start): its result has a job status."""
    return "status" in (result.details or {})


def _same(command: object, check: str | None) -> bool:
    return isinstance(command, str) and check is not None and command.split() == check.split()
