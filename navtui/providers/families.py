"""The tool protocol ``auto`` picks for model families the eval measured (docs/eval.md, docs/providers.md).

A family not listed keeps ``auto``'s usual choice: native tools where the model and server support them, the
text protocol otherwise. An explicit ``providers.tool_protocol`` always wins over this table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Protocol = Literal["native", "text", "constrained", "edits"]


@dataclass(frozen=True)
class FamilyDefault:
    pattern: re.Pattern[str]
    protocol: Protocol
    reason: str  # what the eval showed, said in the notice


DEFAULTS: tuple[FamilyDefault, ...] = (
    FamilyDefault(
        re.compile(r"qwen2\.5-coder[-:_ ]?(0\.5|1\.5)b"),
        "edits",
        "in the eval these sizes finished more tasks answering with edit blocks on files in the prompt than with "
        "tool calls, constrained or not",
    ),
)


def family_default(model: str) -> FamilyDefault | None:
    """The measured default for ``model`` (an Ollama tag, a llama.cpp alias or a file name), if any."""
    name = model.lower()
    return next((d for d in DEFAULTS if d.pattern.search(name)), None)
