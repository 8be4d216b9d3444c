"""Every required token is used by something that paints: a .tcss rule or a widget that reads its variable."""

from __future__ import annotations

import re
from pathlib import Path

import navtui
from navtui.themes.textual_theme import TOKEN_VARIABLES, VARIABLE_ALIASES
from navtui.themes.tokens import REQUIRED_TOKENS

PACKAGE = Path(navtui.__file__).parent
# Where colours are applied: styles and the UI code (theme_defaults only declares fallbacks).
PAINTERS = [
    *PACKAGE.joinpath("styles").glob("*.tcss"),
    *(p for p in PACKAGE.joinpath("widgets").rglob("*.py")),
    *(p for p in PACKAGE.joinpath("app").rglob("*.py") if p.name != "theme_defaults.py"),
]


def test_every_required_token_has_a_painter() -> None:
    text = "\n".join(path.read_text() for path in PAINTERS)
    short = {full: alias for alias, full in VARIABLE_ALIASES.items()}
    unused = [
        token
        for token in REQUIRED_TOKENS
        if not any(
            re.search(re.escape(name) + r"(?![\w-])", text)
            for name in (TOKEN_VARIABLES[token], short.get(TOKEN_VARIABLES[token], "-"))
        )
    ]
    assert unused == []
