"""Auto mode: choose the dark or the light theme from what the terminal says about its background."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

AUTO = "auto"


def terminal_background(environ: Mapping[str, str] | None = None) -> Literal["dark", "light"] | None:
    """``dark``/``light`` from ``COLORFGBG`` (``"fg;bg"`` or ``"fg;extra;bg"``, set by rxvt, Konsole, iTerm2...).

    ``None`` when the variable is missing or unreadable (``default``, garbage). Like Vim, background indices
    0-6 and 8 count as dark and 7, 9-15 as light.
    """
    value = (os.environ if environ is None else environ).get("COLORFGBG", "")
    last = value.rsplit(";", 1)[-1].strip()
    if not last.isdigit():
        return None
    index = int(last)
    if index > 15:
        return None
    return "dark" if index < 7 or index == 8 else "light"


def resolve_theme_setting(
    setting: str,
    environ: Mapping[str, str] | None = None,
    *,
    dark: str = "dark",
    light: str = "light",
) -> str:
    """The theme to use for ``ui.theme``: the setting itself, or for ``"auto"`` the dark or light slot.

    Falls back to the dark slot when the terminal does not say.
    """
    if setting != AUTO:
        return setting
    return light if terminal_background(environ) == "light" else dark
