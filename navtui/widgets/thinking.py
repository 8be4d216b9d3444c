"""The model's reasoning: a dim block, collapsed to one line (the latest thought while it streams)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.widget import Widget

from navtui.core.display import display_safe
from navtui.widgets.coalesce import Coalescer
from navtui.widgets.entries import ThinkingEntry


class ThinkingView(Widget):
    FLUSH_INTERVAL = 1 / 20  # reasoning is read less closely than the answer

    def __init__(self, entry: ThinkingEntry) -> None:
        super().__init__()
        self.entry = entry
        self._coalescer = Coalescer(self, self._apply, self.FLUSH_INTERVAL)

    def append(self, text: str) -> None:
        self._coalescer.add(text)

    def finish(self) -> None:
        self.entry.streaming = False
        self._coalescer.flush_now()
        self.refresh(layout=True)

    def set_expanded(self, expanded: bool) -> None:
        self.entry.expanded = expanded
        self.refresh(layout=True)

    def toggle(self) -> None:
        self.set_expanded(not self.entry.expanded)

    def _apply(self, text: str) -> None:
        self.entry.text += text
        self.refresh(layout=self.entry.expanded)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()

    def render(self) -> RenderableType:
        entry = self.entry
        body = display_safe(entry.text.strip())
        lines = body.count("\n") + 1 if body else 0
        head = Text(no_wrap=not entry.expanded, overflow="ellipsis")
        head.append("▾ " if entry.expanded else "▸ ")
        head.append("Thinking…" if entry.streaming else "Thought")
        if entry.expanded:
            head.append("\n")
            head.append(body)
            return head
        if entry.streaming and body:
            head.append("  " + body.rsplit("\n", 1)[-1][-200:])
        elif lines:
            head.append(f"  ({lines} line{'s' * (lines != 1)} · click or ctrl+o)")
        return head
