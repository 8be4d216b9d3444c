"""The status line: where you are, which model, how full the context is, what it cost, and whether it is working.

Updates never trigger a layout (the line is always one row tall), and the spinner only turns while working.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from rich.console import RenderableType
from rich.style import Style
from rich.text import Text
from textual.strip import Strip
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
    tokens_cached: int = 0  # of tokens_in, those read from the server's prompt cache (Anthropic, OpenAI...)


DIRECTORY, GIT = 5, 6  # the parts' priorities (0 is kept longest)


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
        # The line at each spinner frame, for what else it shows now.
        self._frames: dict[tuple[int, str], Strip] = {}  # (row, glyph) -> the line
        self._frames_for: tuple[object, ...] | None = None  # the width and looks they were drawn for

    def update_status(self, data: StatusData) -> None:
        self.data = data
        self._frames.clear()
        self.refresh()

    def set_working(self, working: bool, activity: str = "") -> None:
        self.working = working
        self.activity = activity
        self._frames.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        self._frames.clear()  # the CSS changed (a theme, a class): the parts' looks with it
        super().notify_style_update()

    def render_line(self, y: int) -> Strip:
        # While the agent works the line changes ten times a second, only in the spinner's glyph, and Textual drew
        # it whole through its content pipeline each time (~1 ms of the UI loop, ten times a second while a reply
        # streams). There are ten glyphs: each frame's line is kept until the data, the label, the width or the
        # looks change.
        if not self.working or self.spinner_index is None:
            return super().render_line(y)
        looks = (self.size.width, self.rich_style, self.app.current_theme)
        if looks != self._frames_for:  # a width or a theme (a Theme is compared, it cannot be a key)
            self._frames.clear()
            self._frames_for = looks
        key = (y, frame(self.spinner_index))
        line = self._frames.get(key)
        if line is None:
            line = self._frames[key] = super().render_line(y)
        return line

    def tick(self, index: int | None) -> None:
        self.spinner_index = index
        if self.working:
            self.refresh()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"status-line--{name}", partial=True)

    def _segments(self) -> list[tuple[int, Text]]:
        """The line's parts in display order, each with its priority (0 is kept longest; see ``render``)."""
        data = self.data
        sep = (" │ ", self._style("sep"))
        parts: list[tuple[int, Text]] = []

        def part(priority: int) -> Text:
            text = Text(no_wrap=True, end="")
            parts.append((priority, text))
            return text

        parts.append((DIRECTORY, self._directory(short_path(data.cwd))))
        if data.git_branch:
            git = part(GIT)
            git.append(
                f"  {display_safe(data.git_branch)}", self._style("git-dirty" if data.git_dirty else "git-clean")
            )
            counts = (
                ("*", data.git_unstaged, "unstaged"),
                ("+", data.git_staged, "staged"),
                ("?", data.git_untracked, "untracked"),
            )
            for mark, count, kind in counts:  # omp's order and marks
                if count:
                    git.append(f" {mark}{count}", self._style(f"git-{kind}"))
            if data.git_dirty and not any(count for _, count, _ in counts):
                git.append("*", self._style("git-dirty"))
        model = part(0)
        model.append(*sep)
        model.append(display_safe(data.model or "no model"), self._style("model"))
        if data.advisor_on:
            part(3).append("++", self._style("subagents"))
        if data.provider:
            part(7).append(f" ({data.provider})", self._style("sep"))
        context = part(1)
        context.append(*sep)
        context.append_text(self._context_text())
        if data.tokens_in or data.tokens_out:
            spend = part(8)
            spend.append(*sep)
            spend.append(f"↑{human_tokens(data.tokens_in)}", self._style("spend"))
            spend.append(f" ↓{human_tokens(data.tokens_out)}", self._style("output"))
            if data.cost:
                spend.append(f" ${data.cost:.2f}" if data.cost >= 0.01 else f" ${data.cost:.4f}", self._style("cost"))
            if data.tokens_cached:  # of ↑, read from the server's prompt cache; the first part to go when narrow
                part(9).append(f" · {human_tokens(data.tokens_cached)} cached", self._style("spend"))
        approval = part(2)
        approval.append(*sep)
        approval.append(data.approval, self._style("approval-yolo" if data.approval == "yolo" else "approval"))
        if data.sandbox:
            unconfined = data.sandbox.startswith("off")
            sandbox = part(2 if unconfined else 7)  # a sandbox that is off is a warning: kept with the mode
            sandbox.append(" · ", self._style("sep"))
            text = f"sandbox {data.sandbox}" if unconfined else data.sandbox
            sandbox.append(text, self._style("sandbox-off" if unconfined else "sandbox"))
        if data.handover_count:
            part(3).append(f"  ⇄{data.handover_count}", self._style("marker"))
        if data.mcp:
            mcp = part(4)
            mcp.append(*sep)
            starting = data.mcp.startswith("mcp starting")
            mcp.append(data.mcp, self._style("marker" if starting else "context-warning"))
        if data.background_jobs:
            part(4).append(f"  ⚙{data.background_jobs}", self._style("subagents"))
        return parts

    def _directory(self, shown: str) -> Text:
        # One line: a directory named with a newline pushed the model, the context and the mode off the line.
        return Text(" " + display_safe(shown).replace("\n", "\u240a"), self._style("path"), no_wrap=True, end="")

    def render(self) -> RenderableType:
        """What fits: when the line is too narrow, parts go by priority (the cached count, tokens and cost first,
        then the provider's name and a sandbox that is on; the directory is cut to its last folder; then git, the
        directory, MCP and jobs, the markers); the
        model, the context meter and the approval mode stay. The spinner's label is shortened before they go."""
        parts = self._segments()
        width = self.size.width or 10_000
        right = Text("", end="")
        if self.working:
            label = self.activity or "working"
            room = width - sum(text.cell_len for priority, text in parts if priority <= 3) - 4  # with the markers
            if room < 9:
                room = width - sum(text.cell_len for priority, text in parts if priority <= 2) - 4
            if len(label) > room:
                label = label[: room - 1] + "…" if room >= 4 else ""
            right = Text(
                f" {frame(self.spinner_index)} {label} " if label else f" {frame(self.spinner_index)} ",
                self._style("spinner"),
            )
        room = width - right.cell_len
        short = True  # the directory as its last folder ("…/repo") before git goes
        while sum(text.cell_len for _, text in parts) > room and any(priority > 2 for priority, _ in parts):
            lowest = max(priority for priority, _ in parts)
            if lowest <= GIT and short:
                short = False
                at = next((index for index, (priority, _) in enumerate(parts) if priority == DIRECTORY), None)
                cut = self._directory(short_path(self.data.cwd, limit=0))
                if at is not None and cut.cell_len < parts[at][1].cell_len:
                    parts[at] = (DIRECTORY, cut)
                    continue
            dropped = max(index for index, (priority, _) in enumerate(parts) if priority == lowest)
            del parts[dropped]
        at = next((index for index, (priority, _) in enumerate(parts) if priority == DIRECTORY), None)
        if not short and at is not None and all(priority != GIT for priority, _ in parts):
            # Git went anyway: the whole directory again, if it fits where the cut one is
            whole = self._directory(short_path(self.data.cwd))
            if sum(text.cell_len for _, text in parts) - parts[at][1].cell_len + whole.cell_len <= room:
                parts[at] = (DIRECTORY, whole)
        left = Text(no_wrap=True, overflow="ellipsis", end="")
        for _, text in parts:
            if not left and text.plain.startswith(" │ "):  # the directory went: no separator before the model
                text = text[2:]
            left.append_text(text)
        if self.working and room > 0:
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
