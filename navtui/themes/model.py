"""A resolved theme: every token a ``#rrggbb`` (or ``""``), plus the few colours navtui derives from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

from navtui.themes.palette import blend, is_dark
from navtui.themes.schema import ThemeSymbols
from navtui.themes.tokens import is_background_token

ThemeSource = Literal["builtin", "user", "project", "file"]

# Textual's own defaults, used when a theme leaves the page background to the terminal.
DEFAULT_DARK_BACKGROUND = "#121212"
DEFAULT_LIGHT_BACKGROUND = "#efefef"
_LIGHT_TEXT = "#e4e4e4"
_DARK_TEXT = "#1c1c1c"


@dataclass(frozen=True)
class NavTheme:
    """A validated theme with all references resolved.

    ``colors`` maps every token to ``#rrggbb`` or ``""`` (terminal default). navtui paints its own background,
    so :meth:`color` turns ``""`` into the theme foreground (text tokens) or background (``*Bg`` tokens).
    """

    name: str
    colors: Mapping[str, str]
    export: Mapping[str, str] = field(default_factory=dict)
    symbols: ThemeSymbols | None = None
    source: ThemeSource = "file"
    path: Path | None = None

    @cached_property
    def dark(self) -> bool:
        page = self.export.get("pageBg")
        if page:
            return is_dark(page)
        for token in ("userMessageBg", "toolPendingBg", "selectedBg", "statusLineBg"):
            if self.colors.get(token):
                return is_dark(self.colors[token])
        text = self.colors.get("text")
        return not is_dark(text) if text else True

    @cached_property
    def background(self) -> str:
        return self.export.get("pageBg") or (DEFAULT_DARK_BACKGROUND if self.dark else DEFAULT_LIGHT_BACKGROUND)

    @cached_property
    def foreground(self) -> str:
        return self.colors.get("text") or (_LIGHT_TEXT if is_dark(self.background) else _DARK_TEXT)

    @cached_property
    def surface(self) -> str:
        return self.export.get("cardBg") or blend(self.background, self.foreground, 0.05)

    @cached_property
    def panel(self) -> str:
        return self.export.get("infoBg") or blend(self.background, self.foreground, 0.10)

    def color(self, token: str) -> str:
        """The ``#rrggbb`` to paint ``token`` with (``""`` filled in from the foreground or background)."""
        value = self.colors[token]
        if value:
            return value
        return self.background if is_background_token(token) else self.foreground

    @property
    def is_custom(self) -> bool:
        return self.source in ("user", "project")
