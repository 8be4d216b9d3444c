"""A unified diff as coloured Rich text (markup off, controls made visible: diff lines are file contents)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from navtui.core.display import display_safe


@dataclass(frozen=True)
class DiffStyles:
    added: Style
    removed: Style
    hunk: Style
    header: Style
    context: Style


def render_diff(lines: list[str], styles: DiffStyles) -> Text:
    """Colour each line by its first character; file headers (---/+++) are dimmed, hunks highlighted."""
    text = Text(no_wrap=False, overflow="fold")
    for index, line in enumerate(lines):
        if index:
            text.append("\n")
        if line.startswith(("+++", "---")):
            style = styles.header
        elif line.startswith("+"):
            style = styles.added
        elif line.startswith("-"):
            style = styles.removed
        elif line.startswith("@@"):
            style = styles.hunk
        else:
            style = styles.context
        text.append(display_safe(line), style)
    return text
