"""The files a stretch of conversation read and changed, as one ``<files>`` block (omp's format).

Compaction summaries and branch summaries both end with it, one ``path (Read|Write|RW)`` a line, modified
files first, at most 20. File activity is cumulative: a new summary takes over the files an earlier one
listed, including pi's older ``<read-files>`` / ``<modified-files>`` tags, which are replaced by ``<files>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from navtui.core.messages import AssistantMessage
from navtui.providers.base import AnyMessage

READ_TOOLS = frozenset({"read"})
WRITE_TOOLS = frozenset({"write", "edit"})
PATH_KEYS = ("path", "file_path", "file")
MAX_LISTED_FILES = 20
_BLOCKS = re.compile(r"\n*<(files|read-files|modified-files)>(.*?)</\1>\s*", re.DOTALL)
_FILE_LINE = re.compile(r"^(?P<path>.+) \((?P<mark>Read|Write|RW)\)$")


@dataclass
class FileOps:
    read: set[str] = field(default_factory=set)
    modified: set[str] = field(default_factory=set)

    def add_calls(self, messages: Iterable[AnyMessage]) -> None:
        """The paths the assistant's read, write and edit calls named."""
        for message in messages:
            if not isinstance(message, AssistantMessage):
                continue
            for call in message.tool_calls:
                path = next((call.arguments[k] for k in PATH_KEYS if isinstance(call.arguments.get(k), str)), None)
                if not path:
                    continue
                if call.name in READ_TOOLS:
                    self.read.add(path)
                elif call.name in WRITE_TOOLS:
                    self.modified.add(path)

    def add_listed(self, summary: str) -> None:
        """Take over the files an earlier summary listed (``<files>``, or pi's read/modified tags)."""
        for tag, body in _BLOCKS.findall(summary):
            for line in body.splitlines():
                line = line.strip()
                if not line or line.startswith("..."):
                    continue
                if tag == "read-files":
                    self.read.add(line)
                elif tag == "modified-files":
                    self.modified.add(line)
                elif (match := _FILE_LINE.match(line)) is not None:
                    if match["mark"] in ("Read", "RW"):
                        self.read.add(match["path"])
                    if match["mark"] in ("Write", "RW"):
                        self.modified.add(match["path"])

    def block(self) -> str:
        """``<files>`` with one ``path (Read|Write|RW)`` a line, modified files first, at most 20; "" when none."""
        marks = {p: ("RW" if p in self.read else "Write") for p in self.modified}
        marks.update({p: "Read" for p in self.read if p not in self.modified})
        if not marks:
            return ""
        ordered = sorted(marks, key=lambda p: (marks[p] == "Read", p))
        lines = [f"{p} ({marks[p]})" for p in ordered[:MAX_LISTED_FILES]]
        if len(ordered) > MAX_LISTED_FILES:
            lines.append(f"... ({len(ordered) - MAX_LISTED_FILES} more files omitted)")
        return "<files>\n" + "\n".join(lines) + "\n</files>"

    def details(self) -> dict[str, list[str]]:
        """The session entry's ``details`` (pi's keys)."""
        return {"readFiles": sorted(self.read - self.modified), "modifiedFiles": sorted(self.modified)}


def strip_files(summary: str) -> str:
    """A summary without its file lists (they are rebuilt and appended again)."""
    return _BLOCKS.sub("\n", summary).strip()


def with_files(summary: str, files: FileOps) -> str:
    """``summary`` followed by its ``<files>`` block (when it lists any)."""
    listed = files.block()
    return f"{summary}\n\n{listed}" if listed else summary
