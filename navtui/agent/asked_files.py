"""A file the request asks for that the run never made is asked for once before the run ends.

Measured in the eval: asked to "write the number into a new file count.txt" (or "its path into answer.txt"),
Qwen2.5-Coder 1.5B answered the number in words, or copied the input file out, and the run ended with the file
missing. When the request says to create, write or save something and names a file that does not exist (not one
given as an example: "like a/b.py"), and that file still does not exist when the model gives its final answer,
the model is told which file is missing and asked once to write it. Whatever it answers then ends the run.

Likewise for an existing file the request asks to change ("add a test for it to test_mathutil.py", "in
config.py, change ..."): when the run changed some file but left that one exactly as it was, the model is told
so, once (the 1.5B added clamp to mathutil.py, ran the old tests and was done). One question per request in all.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from navtui.agent.claims import changed_since_request
from navtui.agent.hooks import AgentHooks, Nudge
from navtui.agent.targets import change_targets
from navtui.core.messages import ask_to_write

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.core.messages import AssistantMessage

ASKED_OPENING = "A file the request asks for does not exist yet"
UNCHANGED_OPENING = "The request asks for a change to"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# "<what> is <one value>.": kept when it is a number or a path (a digit, a dot or a slash in it), not a word ("done")
_IS_VALUE = re.compile(r"^[^\n]{3,200}?\s(?:is|are|equals)\s+([\w./:+-]*\w)\.?$", re.I)
_MAKES = re.compile(r"\b(?:create|write|save|put|store|output|generate|produce|make)\b", re.IGNORECASE)


def asked_message(paths: list[str], answer: str | None = None) -> str:
    """The nudge; with ``answer`` (a value the final answer gave) the block that puts it into the one file."""
    names = ", ".join(paths)
    first = paths[0]
    write = ask_to_write(first, "its content")
    if answer is not None and len(paths) == 1:
        return (
            f"{ASKED_OPENING}: {first}. {write}. If it should hold your answer, that is:\n\n{first}\n```\n{answer}\n```"
        )
    return f"{ASKED_OPENING}: {names}. {write} (or create it with a command), or say why it cannot be done."


def unchanged_message(path: str) -> str:
    return f"{UNCHANGED_OPENING} {path}, which is still exactly as it was. {ask_to_write(path)}. If it needs no change, say why."


def answer_value(text: str) -> str | None:
    """The value a short final answer gives ("pkg/net/wire.py", "`17`"), not a sentence about it.

    Seen in the eval (grep_define): the 1.5B answered the path in words; asked for answer.txt, with its answer
    hidden from it, it wrote the whole of the file it had found into answer.txt.
    """
    text = text.strip()
    if not text or "```" in text or len(text) > 300:
        return None
    # read_answer: 'The first line of README.md is "Project codeword: amber-falcon-42". This line has been
    # written into answer.txt.' (no answer.txt), then, told so, the whole README written into answer.txt.
    quoted = re.findall(r"`([^`\n]+)`", text) or re.findall(r"[\"\u201c]([^\"\u201d\n]+)[\"\u201d]", text)
    if len(set(quoted)) == 1:
        return quoted[0].strip()
    # count_rows: "The number of rows in data.csv is 17. This number has been written to count.txt." Left
    # without the value, the 1.5B wrote 16, the last number of data.csv, into count.txt.
    stated = {found.group(1) for sentence in _SENTENCE.split(text) if (found := _IS_VALUE.match(sentence.strip()))}
    stated = {value for value in stated if re.search(r"\d|[\w-][./]\w", value)}
    if len(stated) == 1:
        return stated.pop()
    words = text.rstrip(".").split()
    return text.rstrip(".") if "\n" not in text and len(words) <= 2 and len(text) <= 120 else None


class AskedFiles(AgentHooks):
    """Asks once for the new files a request names when the final answer comes and they are still missing."""

    def __init__(self) -> None:
        self._wanted: list[str] = []
        self._targets: dict[str, bytes | None] = {}  # files the request asks to change → their bytes at the start
        self._asked = False

    def start_run(self, agent: Agent, prompt: str | None) -> None:
        from navtui.agent.files_in_play import new_files

        if prompt is None:
            return  # a continued run keeps what its request asked for
        words = prompt.split("<attached_file", 1)[0]
        self._wanted = new_files([words], agent) if _MAKES.search(words) else []
        targets = {path: _read(agent, path) for path in change_targets(words) if path not in self._wanted}
        self._targets = {path: data for path, data in targets.items() if data is not None}
        self._asked = False

    async def after_final_answer(self, agent: Agent, message: AssistantMessage) -> Nudge | None:
        if self._asked or message.tool_calls or message.stop_reason != "stop":
            return None
        missing = [shown for shown in self._wanted if not _exists(agent, shown)]
        if missing:
            self._asked = True
            return Nudge(
                message=asked_message(missing, answer_value(message.text)),
                notice=f"The request asks for {', '.join(missing)}, which does not exist; asking the model once to "
                "write it.",
            )
        left = [path for path, data in self._targets.items() if _read(agent, path) == data]
        if not left or len(left) == len(self._targets) and not changed_since_request(agent):
            return None  # every file changed; or nothing at all (an answer that no change is needed, or a claim)
        self._asked = True
        return Nudge(
            message=unchanged_message(left[0]),
            notice=f"The request asks for a change to {left[0]}, which is unchanged; asking the model once.",
        )


def _read(agent: Agent, shown: str) -> bytes | None:
    try:
        path = agent.ctx.workspace.resolve(shown)
        return path.read_bytes() if path.is_file() and path.stat().st_size <= 1_000_000 else None
    except Exception:
        return None


def _exists(agent: Agent, shown: str) -> bool:
    try:
        return agent.ctx.workspace.resolve(shown).exists()
    except Exception:
        return False
