"""A :class:`NavTheme` as a ``textual.theme.Theme``: Textual's base colours plus a ``$nav-*`` variable per token."""

from __future__ import annotations

import re
from functools import cache

from textual.design import ColorSystem
from textual.theme import Theme

from navtui.themes.model import NavTheme
from navtui.themes.tokens import REQUIRED_TOKENS

# Short aliases the app may use for the busiest families: $nav-status-model, $nav-diff-added.
_ALIAS_PREFIXES = (("status-line-", "status-"), ("tool-diff-", "diff-"))


def variable_name(token: str) -> str:
    """``toolSuccessBg`` -> ``nav-tool-success-bg``; ``statusLineModel`` -> ``nav-status-line-model``."""
    return "nav-" + re.sub(r"(?<!^)(?=[A-Z])", "-", token).lower()


def _alias(name: str) -> str | None:
    for long, short in _ALIAS_PREFIXES:
        if name.startswith("nav-" + long):
            return "nav-" + short + name[len("nav-" + long) :]
    return None


TOKEN_VARIABLES: dict[str, str] = {token: variable_name(token) for token in REQUIRED_TOKENS}
"""Theme token -> CSS variable name (without ``$``), for every required token."""

VARIABLE_ALIASES: dict[str, str] = {
    alias: name for name in TOKEN_VARIABLES.values() if (alias := _alias(name)) is not None
}
"""Short alias -> full name: ``nav-status-*`` for ``nav-status-line-*``, ``nav-diff-*`` for ``nav-tool-diff-*``."""

DERIVED_VARIABLES: tuple[str, ...] = ("nav-code-bg",)
"""navtui additions that are not omp tokens: ``nav-code-bg`` (code blocks) is the theme's surface colour."""

NAV_VARIABLES: tuple[str, ...] = (*TOKEN_VARIABLES.values(), *VARIABLE_ALIASES, *DERIVED_VARIABLES)
"""Every ``nav-*`` variable a navtui theme defines; .tcss files may use any of them."""


def nav_variables(theme: NavTheme) -> dict[str, str]:
    """Every ``nav-*`` variable -> ``#rrggbb`` (terminal-default tokens filled in from the theme)."""
    values = {name: theme.color(token) for token, name in TOKEN_VARIABLES.items()}
    values.update({alias: values[name] for alias, name in VARIABLE_ALIASES.items()})
    values["nav-code-bg"] = theme.surface
    return values


def to_textual_theme(theme: NavTheme) -> Theme:
    """Textual's base colours from the closest tokens, plus every ``$nav-*`` variable."""
    color = theme.color
    heading = color("mdHeading")
    variables = {
        # Textual's own widgets (focus borders, markdown headings, footer keys) follow the theme too.
        "border": color("borderAccent"),
        "border-blurred": color("borderMuted"),
        "footer-key-foreground": color("accent"),
        "link-color": color("mdLink"),
        "markdown-h1-color": heading,
        "markdown-h2-color": heading,
        "markdown-h3-color": heading,
        **nav_variables(theme),
    }
    return Theme(
        name=theme.name,
        primary=color("borderAccent"),
        secondary=color("border"),
        accent=color("accent"),
        warning=color("warning"),
        error=color("error"),
        success=color("success"),
        foreground=theme.foreground,
        background=theme.background,
        surface=theme.surface,
        panel=theme.panel,
        dark=theme.dark,
        variables=variables,
    )


def nav_variable_defaults() -> dict[str, str]:
    """The built-in ``dark`` theme's ``nav-*`` values, for ``App.get_theme_variable_defaults()``.

    With these the app's CSS parses even while a theme without ``nav-*`` variables (e.g. ``textual-dark``) is active.
    """
    from navtui.themes.loader import builtin_themes

    return nav_variables(builtin_themes()["dark"])


@cache
def textual_base_variables() -> frozenset[str]:
    """Every variable Textual's colour system defines for any theme (``primary``, ``text-muted``, ``border``...)."""
    names: set[str] = set()
    for dark in (True, False):
        for ansi in (True, False):
            names |= ColorSystem(primary="#0178d4", dark=dark, ansi=ansi).generate().keys()
    return frozenset(names)


_COMMENT_RE = re.compile(r"/\*.*?\*/", re.DOTALL)
_USE_RE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_-]*)")
_DEFINE_RE = re.compile(r"^\s*\$([A-Za-z_][A-Za-z0-9_-]*)\s*:", re.MULTILINE)


def undefined_tcss_variables(tcss_text: str) -> set[str]:
    """``$variables`` used in a .tcss text that neither Textual, navtui themes, nor the text itself define."""
    text = _COMMENT_RE.sub("", tcss_text)
    defined = set(_DEFINE_RE.findall(text)) | textual_base_variables() | set(NAV_VARIABLES)
    return set(_USE_RE.findall(text)) - defined
