"""Fallback values for the ``nav-*`` theme variables the stylesheet and the Markdown renderer use.

navtui's own themes define every ``nav-<token>`` (the omp token names in kebab case); any other Textual
theme (``textual-dark``, ``nord``...) gets these, derived from its standard colours, so the CSS always parses.
"""

from __future__ import annotations

from textual.color import Color


def _hex(color: Color) -> str:
    return color.hex6


def nav_defaults(base: dict[str, str]) -> dict[str, str]:
    """``base`` is a generated Textual colour system (``Theme.to_color_system().generate()``)."""

    def get(name: str, fallback: str = "#808080") -> Color:
        try:
            return Color.parse(base.get(name, fallback))
        except Exception:
            return Color.parse(fallback)

    background = get("background", "#121212")
    foreground = get("foreground", "#e0e0e0")
    primary, accent = get("primary"), get("accent")
    success, error, warning = get("success"), get("error"), get("warning")
    muted = background.blend(foreground, 0.55)
    dim = background.blend(foreground, 0.4)

    def tint(color: Color, amount: float) -> str:
        return _hex(background.blend(color, amount))

    values = {
        "accent": _hex(accent),
        "border": _hex(primary),
        "border-accent": _hex(accent),
        "border-muted": _hex(background.blend(foreground, 0.25)),
        "success": _hex(success),
        "error": _hex(error),
        "warning": _hex(warning),
        "muted": _hex(muted),
        "dim": _hex(dim),
        "text": _hex(foreground),
        "thinking-text": _hex(muted),
        "selected-bg": tint(primary, 0.3),
        "user-message-bg": tint(foreground, 0.08),
        "custom-message-bg": tint(accent, 0.1),
        "tool-pending-bg": tint(foreground, 0.05),
        "tool-success-bg": tint(success, 0.12),
        "tool-error-bg": tint(error, 0.16),
        "status-line-bg": tint(foreground, 0.06),
        "user-message-text": _hex(foreground),
        "custom-message-text": _hex(foreground),
        "custom-message-label": _hex(accent),
        "tool-title": _hex(foreground),
        "tool-output": _hex(background.blend(foreground, 0.75)),
        "md-heading": _hex(accent),
        "md-link": _hex(primary.lighten(0.15)),
        "md-link-url": _hex(muted),
        "md-code": _hex(accent.lighten(0.1)),
        "md-code-block": _hex(foreground),
        "md-code-block-border": _hex(background.blend(foreground, 0.3)),
        "md-quote": _hex(muted),
        "md-quote-border": _hex(dim),
        "md-hr": _hex(dim),
        "md-list-bullet": _hex(accent),
        "tool-diff-added": _hex(success),
        "tool-diff-removed": _hex(error),
        "tool-diff-context": _hex(muted),
        "syntax-comment": _hex(dim),
        "syntax-keyword": _hex(primary.lighten(0.2)),
        "syntax-function": _hex(accent),
        "syntax-variable": _hex(foreground),
        "syntax-string": _hex(success.lighten(0.1)),
        "syntax-number": _hex(warning),
        "syntax-type": _hex(accent.lighten(0.15)),
        "syntax-operator": _hex(foreground),
        "syntax-punctuation": _hex(background.blend(foreground, 0.7)),
        "thinking-off": _hex(dim),
        "thinking-minimal": _hex(dim),
        "thinking-low": _hex(primary),
        "thinking-medium": _hex(primary),
        "thinking-high": _hex(accent),
        "thinking-xhigh": _hex(error),
        "bash-mode": _hex(warning),
        "python-mode": _hex(primary),
        "status-line-sep": _hex(dim),
        "status-line-model": _hex(accent),
        "status-line-path": _hex(primary.lighten(0.2)),
        "status-line-git-clean": _hex(success),
        "status-line-git-dirty": _hex(warning),
        "status-line-context": _hex(muted),
        "status-line-spend": _hex(muted),
        "status-line-staged": _hex(success),
        "status-line-dirty": _hex(warning),
        "status-line-untracked": _hex(muted),
        "status-line-output": _hex(muted),
        "status-line-cost": _hex(muted),
        "status-line-subagents": _hex(muted),
        # navtui's own additions (not omp tokens): the code-block background.
        "code-bg": tint(foreground, 0.05),
    }
    return {f"nav-{name}": value for name, value in values.items()}
