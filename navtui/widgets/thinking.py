"""The model's reasoning: a dim block, collapsed to one line (the latest thought while it streams)."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.widget import Widget

from navtui.core.display import display_safe
from navtui.widgets.coalesce import Coalescer
from navtui.widgets.items import ThinkingItem


class ThinkingView(Widget):
    FLUSH_INTERVAL = 1 / 20  # reasoning is read less closely than the answer

    def __init__(self, item: ThinkingItem) -> None:
        super().__init__()
        self.item = item
        self._coalescer = Coalescer(self, self._apply, self.FLUSH_INTERVAL)

    def append(self, text: str) -> None:
        self._coalescer.add(text)

    def finish(self) -> None:
        self.item.streaming = False
        self._coalescer.flush_now()
        self.refresh(layout=True)

    def set_expanded(self, expanded: bool) -> None:
        self.item.expanded = expanded
        self.refresh(layout=True)

    def toggle(self) -> None:
        self.set_expanded(not self.item.expanded)

    def _apply(self, text: str) -> None:
        self.item.text += text
        self.refresh(layout=self.item.expanded)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()

    def render(self) -> RenderableType:
        item = self.item
        body = display_safe(item.text.strip())
        lines = body.count("\n") + 1 if body else 0
        head = Text(no_wrap=not item.expanded, overflow="ellipsis")
        head.append("▾ " if item.expanded else "▸ ")
        head.append("Thinking…" if item.streaming else "Thought")
        if item.expanded:
            head.append("\n")
            head.append(body)
            return head
        if item.streaming and body:
            head.append("  " + body.rsplit("\n", 1)[-1][-200:])
        elif lines:
            head.append(f"  ({lines} line{'s' * (lines != 1)} · click or ctrl+o)")
        return head
