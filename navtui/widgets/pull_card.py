"""A model download in the transcript: Ollama's current step and a progress bar, then how it ended."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from navtui.core.display import display_safe
from navtui.widgets.items import PullItem

BAR_WIDTH = 30


def human_bytes(size: int) -> str:
    """Decimal units, as Ollama itself shows model sizes ("4.7 GB")."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"


def progress_bar(fraction: float, width: int = BAR_WIDTH) -> str:
    filled = round(fraction * width)
    return "█" * filled + "░" * (width - filled)


class PullCard(Widget):
    COMPONENT_CLASSES = {"pull-card--bar", "pull-card--meta"}

    def __init__(self, item: PullItem) -> None:
        super().__init__(classes=f"-{item.state}")
        self.item = item

    def update_from(self, item: PullItem) -> None:
        """The item changed (a progress line arrived, or the download ended)."""
        self.item = item
        self.set_class(item.state == "done", "-done")
        self.set_class(item.state in ("failed", "cancelled"), "-failed")
        self.refresh(layout=item.state != "running")

    def render(self) -> Text:
        item = self.item
        meta = self.get_component_rich_style("pull-card--meta", partial=True)
        text = Text()
        icon = {"running": "⇣", "done": "✓", "failed": "✗", "cancelled": "✗"}[item.state]
        text.append(f"{icon} pull ", "bold")
        text.append(display_safe(item.model), "bold")  # the name the user typed, as Ollama echoes it
        if item.state != "running":
            text.append("  " + display_safe(item.message), meta)
            return text
        text.append("\n")
        if item.total:
            fraction = min(1.0, (item.completed or 0) / item.total)
            text.append(progress_bar(fraction), self.get_component_rich_style("pull-card--bar", partial=True))
            text.append(f" {fraction:4.0%}  {human_bytes(item.completed or 0)} / {human_bytes(item.total)}  ")
        text.append(display_safe(item.status), meta)
        text.append("  · Esc stops", meta)
        return text
