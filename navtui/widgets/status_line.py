"""The status line: where you are, which model, how full the context is, what it cost, and whether it is working.

Updates never trigger a layout (the line is always one row tall), and the spinner only turns while working.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from navtui.core.display import display_safe
from navtui.widgets.spinner import frame


@dataclass
class StatusData:
    """What the status line shows (the app fills it from ``Runtime.status()``)."""

    cwd: str = ""
    git_branch: str | None = None
    git_dirty: bool = False
    provider: str = ""
    model: str = ""
    context_tokens: int = 0
    context_window: int | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float | None = None
    approval: str = "ask"
    handover_count: int = 0
    advisor_on: bool = False
    session_name: str | None = None
    mcp: str | None = None  # MCP servers starting, failed or waiting for approval
    sandbox: str = ""  # shown next to the approval mode when known: workspace-write, read-only, off, off!
    git_staged: int = 0
    git_unstaged: int = 0
    git_untracked: int = 0
    background_jobs: int = 0  # running shell jobs: with the advisor, the agents and jobs beside the main one


def short_path(path: str, limit: int = 40) -> str:
    home = os.path.expanduser("~")
    if home and home != "/" and (path == home or path.startswith(home + os.sep)):
        path = "~" + path[len(home) :]
    if len(path) <= limit:
        return path
    parts = path.split(os.sep)
    tail = parts[-1]
    for part in reversed(parts[:-1]):
        candidate = part + os.sep + tail
        if len(candidate) + 2 > limit:
            break
        tail = candidate
    return "…" + os.sep + tail


def human_tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    if count < 100_000:
        return f"{count / 1000:.1f}k"
    return f"{count // 1000}k"


class StatusLine(Widget):
    COMPONENT_CLASSES = {
        "status-line--sep",
        "status-line--path",
        "status-line--git-clean",
        "status-line--git-dirty",
        "status-line--git-staged",
        "status-line--git-unstaged",
        "status-line--git-untracked",
        "status-line--model",
        "status-line--context",
        "status-line--context-warning",
        "status-line--context-error",
        "status-line--spend",
        "status-line--output",
        "status-line--cost",
        "status-line--approval",
        "status-line--approval-yolo",
        "status-line--sandbox",
        "status-line--sandbox-off",
        "status-line--marker",
        "status-line--subagents",
        "status-line--spinner",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data = StatusData()
        self.working = False
        self.activity = ""
        self.spinner_index: int | None = None

    def update_status(self, data: StatusData) -> None:
        self.data = data
        self.refresh()

    def set_working(self, working: bool, activity: str = "") -> None:
        self.working = working
        self.activity = activity
        self.refresh()

    def tick(self, index: int | None) -> None:
        self.spinner_index = index
        if self.working:
            self.refresh()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"status-line--{name}", partial=True)

    def render(self) -> RenderableType:
        data = self.data
        sep = (" │ ", self._style("sep"))
        left = Text(no_wrap=True, overflow="ellipsis", end="")
        left.append(" " + display_safe(short_path(data.cwd)), self._style("path"))
        if data.git_branch:
            left.append(
                f"  {display_safe(data.git_branch)}", self._style("git-dirty" if data.git_dirty else "git-clean")
            )
            counts = (
                ("*", data.git_unstaged, "unstaged"),
                ("+", data.git_staged, "staged"),
                ("?", data.git_untracked, "untracked"),
            )
            for mark, count, kind in counts:  # omp's order and marks
                if count:
                    left.append(f" {mark}{count}", self._style(f"git-{kind}"))
            if data.git_dirty and not any(count for _, count, _ in counts):
                left.append("*", self._style("git-dirty"))
        left.append(*sep)
        left.append(display_safe(data.model or "no model"), self._style("model"))
        if data.advisor_on:
            left.append("++", self._style("subagents"))
        if data.provider:
            left.append(f" ({data.provider})", self._style("sep"))
        left.append(*sep)
        left.append_text(self._context_text())
        if data.tokens_in or data.tokens_out:
            left.append(*sep)
            left.append(f"↑{human_tokens(data.tokens_in)}", self._style("spend"))
            left.append(f" ↓{human_tokens(data.tokens_out)}", self._style("output"))
            if data.cost:
                left.append(f" ${data.cost:.2f}" if data.cost >= 0.01 else f" ${data.cost:.4f}", self._style("cost"))
        left.append(*sep)
        left.append(data.approval, self._style("approval-yolo" if data.approval == "yolo" else "approval"))
        if data.sandbox:
            unconfined = data.sandbox.startswith("off")
            text = f"sandbox {data.sandbox}" if unconfined else data.sandbox
            left.append(" · ", self._style("sep"))
            left.append(text, self._style("sandbox-off" if unconfined else "sandbox"))
        if data.handover_count:
            left.append(f"  ⇄{data.handover_count}", self._style("marker"))
        if data.mcp:
            left.append(*sep)
            starting = data.mcp.startswith("mcp starting")
            left.append(data.mcp, self._style("marker" if starting else "context-warning"))
        if data.background_jobs:
            left.append(f"  ⚙{data.background_jobs}", self._style("subagents"))
        if self.working:
            right = Text(f" {frame(self.spinner_index)} {self.activity or 'working'} ", self._style("spinner"))
            width = self.size.width
            room = width - right.cell_len
            if room > 0:
                left.truncate(room, overflow="ellipsis", pad=True)
            return left + right
        return left

    def _context_text(self) -> Text:
        data = self.data
        used = data.context_tokens
        window = data.context_window
        if not window:
            return Text(f"ctx {human_tokens(used)}", self._style("context"))
        percent = used * 100 / window if window else 0
        style = "context-error" if percent > 90 else "context-warning" if percent > 70 else "context"
        return Text(f"ctx {human_tokens(used)}/{human_tokens(window)} {percent:.0f}%", self._style(style))
