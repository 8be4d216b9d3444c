"""A file the request asks for that the run never made is asked for once before the run ends.

Measured in the eval: asked to "write the number into a new file count.txt" (or "its path into answer.txt"),
Qwen2.5-Coder 1.5B answered the number in words, or copied the input file out, and the run ended with the file
missing. When the request says to create, write or save something and names a file that does not exist (not one
given as an example: "like a/b.py"), and that file still does not exist when the model gives its final answer,
the model is told which file is missing and asked once to write it. Whatever it answers then ends the run.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from navtui.agent.hooks import AgentHooks, Nudge

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.core.messages import AssistantMessage

ASKED_OPENING = "A file the request asks for does not exist yet"
_MAKES = re.compile(r"\b(?:create|write|save|put|store|output|generate|produce|make)\b", re.IGNORECASE)


def asked_message(paths: list[str], answer: str | None = None) -> str:
    """The nudge; with ``answer`` (a value the final answer gave) the block that puts it into the one file."""
    names = ", ".join(paths)
    first = paths[0]
    if answer is not None and len(paths) == 1:
        return (
            f"{ASKED_OPENING}: {first}. If it should hold your answer, send its path and this fenced block:\n\n{first}\n```\n{answer}\n```"
            "\n\nOtherwise write it now with what it should hold, or say why it cannot be done."
        )
    return (
        f"{ASKED_OPENING}: {names}. Write it now (for {first}: the line {first}, then its content in a fenced "
        "block, or create it with a command), or say why it cannot be done."
    )


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
    words = text.rstrip(".").split()
    return text.rstrip(".") if "\n" not in text and len(words) <= 2 and len(text) <= 120 else None


class AskedFiles(AgentHooks):
    """Asks once for the new files a request names when the final answer comes and they are still missing."""

    def __init__(self) -> None:
        self._wanted: list[str] = []
        self._asked = False

    def start_run(self, agent: Agent, prompt: str | None) -> None:
        from navtui.agent.files_in_play import new_files

        if prompt is None:
            return  # a continued run keeps what its request asked for
        words = prompt.split("<attached_file", 1)[0]
        self._wanted = new_files([words], agent) if _MAKES.search(words) else []
        self._asked = False

    async def after_final_answer(self, agent: Agent, message: AssistantMessage) -> Nudge | None:
        if self._asked or not self._wanted or message.tool_calls or message.stop_reason != "stop":
            return None
        missing = [shown for shown in self._wanted if not _exists(agent, shown)]
        if not missing:
            return None
        self._asked = True
        return Nudge(
            message=asked_message(missing, answer_value(message.text)),
            notice=f"The request asks for {', '.join(missing)}, which does not exist; asking the model once to write it.",
        )


def _exists(agent: Agent, shown: str) -> bool:
    try:
        return agent.ctx.workspace.resolve(shown).exists()
    except Exception:
        return False
