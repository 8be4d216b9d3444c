"""Telling a user who looked away that a long turn ended or an approval waits: a terminal notification.

``ui.notify`` chooses how: ``osc9`` (iTerm2, WezTerm, Ghostty, kitty: a desktop notification), ``osc777``
(foot, urxvt, VTE terminals built with it), ``bell`` (BEL: every terminal, and tmux marks the window), ``off``;
``auto`` picks by what the environment says the terminal is, and rings the bell when it cannot tell (inside tmux or
screen an OSC would not reach the outer terminal). A turn's end is announced once it has run ``ui.notify_after``
seconds (default 30); an approval, when the turn asking has run that long or the terminal says the app lost focus.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from navtui.core.display import display_safe

METHODS = ("osc9", "osc777", "bell")
_OSC9_PROGRAMS = frozenset({"iterm.app", "wezterm", "ghostty"})


def choose(setting: str, env: Mapping[str, str] | None = None) -> str | None:
    """The method for ``setting`` in this environment (None: off)."""
    if setting == "off":
        return None
    if setting in METHODS:
        return setting
    env = os.environ if env is None else env
    if env.get("TMUX") or env.get("STY") or env.get("TERM", "").startswith(("screen", "tmux")):
        return "bell"  # a multiplexer keeps OSC sequences from the terminal outside; it shows a bell
    program = env.get("TERM_PROGRAM", "").lower()
    term = env.get("TERM", "").lower()
    if program in _OSC9_PROGRAMS or "kitty" in term or env.get("KITTY_WINDOW_ID"):
        return "osc9"
    if term.startswith(("foot", "rxvt")):
        return "osc777"
    return "bell"


def sequence(method: str, title: str, body: str) -> str:
    """What to write to the terminal. The text is made safe and has no ``;`` (a field separator in OSC 777)."""
    title, body = (display_safe(" ".join(text.split())).replace(";", ",")[:200] for text in (title, body))
    if method == "osc9":
        return f"\x1b]9;{title}: {body}\x07"
    if method == "osc777":
        return f"\x1b]777;notify;{title};{body}\x07"
    return "\x07"


def send(app: Any, method: str | None, title: str, body: str) -> bool:
    """Write the notification through the app's driver (nothing without a terminal). True when written."""
    driver = getattr(app, "_driver", None)
    if method is None or driver is None:
        return False
    driver.write(sequence(method, title, body))
    driver.flush()
    return True
