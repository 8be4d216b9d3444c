"""Rich styles for tool cards, taken straight from the theme's ``nav-*`` variables.

Component classes would give the same colours through CSS, but Textual resolves them per widget instance:
with a window of a hundred cards that was the largest part of opening a long session. These are computed
once per theme.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rich.style import Style

from navtui.widgets.diff_view import DiffStyles
from navtui.widgets.markdown.render import rich_color

_VARIABLES = (
    "nav-tool-title",
    "nav-tool-output",
    "nav-muted",
    "nav-warning",
    "nav-success",
    "nav-error",
    "nav-tool-diff-added",
    "nav-tool-diff-removed",
    "nav-tool-diff-context",
    "nav-accent",
)


@dataclass(frozen=True)
class CardStyles:
    title: Style
    args: Style
    output: Style
    hint: Style
    icon: dict[str, Style]
    diff: DiffStyles


@lru_cache(maxsize=8)
def _styles(values: tuple[str, ...]) -> CardStyles:
    title, output, muted, warning, success, error, added, removed, context, accent = map(rich_color, values)
    return CardStyles(
        title=Style(color=title, bold=True),
        args=Style(color=title),
        output=Style(color=output),
        hint=Style(color=muted, italic=True),
        icon={
            "pending": Style(color=warning),
            "success": Style(color=success, bold=True),
            "error": Style(color=error, bold=True),
        },
        diff=DiffStyles(
            added=Style(color=added),
            removed=Style(color=removed),
            hunk=Style(color=accent),
            header=Style(color=muted, bold=True),
            context=Style(color=context),
        ),
    )


def card_styles(variables: dict[str, str]) -> CardStyles:
    return _styles(tuple(variables.get(name, "") for name in _VARIABLES))
