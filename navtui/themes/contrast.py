"""Readability check of a theme: WCAG contrast of the text/background pairs the UI actually draws.

``contrast_issues`` holds the built-ins to WCAG AA (4.5:1 for text, 3:1 for quiet parts). ``readability_warnings``
is what ``navtui themes validate`` says of any theme: a marker (border, status segment, diff sign) painted in its
own background's colour, which makes it invisible, and text under 3:1.
"""

from __future__ import annotations

from dataclasses import dataclass

from navtui.themes.model import NavTheme
from navtui.themes.palette import contrast_ratio
from navtui.themes.tokens import TOKEN_GROUPS

MAIN_MINIMUM = 4.5
"""WCAG AA for body text: prose, tool output, code, diffs and status segments."""

SECONDARY_MINIMUM = 3.0
"""WCAG AA for large text and UI parts: deliberately quieter text (comments, muted hints, separators)."""

# Pseudo tokens for the derived surfaces every theme has.
_BACKGROUND = "background"
_SURFACE = "surface"
_TOOL_BGS = ("toolPendingBg", "toolSuccessBg", "toolErrorBg")
_CODE_BGS = (_BACKGROUND, _SURFACE)

MAIN_PAIRS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("text", (_BACKGROUND, _SURFACE, "selectedBg", "userMessageBg", "customMessageBg", *_TOOL_BGS)),
    ("userMessageText", ("userMessageBg",)),
    ("customMessageText", ("customMessageBg",)),
    ("customMessageLabel", ("customMessageBg",)),
    ("toolTitle", _TOOL_BGS),
    ("toolOutput", _TOOL_BGS),
    ("accent", (_BACKGROUND,)),
    ("success", (_BACKGROUND, "toolSuccessBg")),
    ("error", (_BACKGROUND, "toolErrorBg")),
    ("warning", (_BACKGROUND,)),
    ("mdHeading", (_BACKGROUND,)),
    ("mdLink", (_BACKGROUND,)),
    ("mdCode", _CODE_BGS),
    ("mdCodeBlock", _CODE_BGS),
    ("mdListBullet", (_BACKGROUND,)),
    ("toolDiffAdded", (_BACKGROUND, *_TOOL_BGS)),
    ("toolDiffRemoved", (_BACKGROUND, *_TOOL_BGS)),
    *(
        (token, _CODE_BGS)
        for token in (
            "syntaxKeyword",
            "syntaxFunction",
            "syntaxVariable",
            "syntaxString",
            "syntaxNumber",
            "syntaxType",
            "syntaxOperator",
            "syntaxPunctuation",
        )
    ),
    *(
        (token, ("statusLineBg",))
        for token in TOKEN_GROUPS["Status line segments"]
        if token != "statusLineSep"  # the separator is deliberately quiet: a secondary pair
    ),
)

SECONDARY_PAIRS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("muted", (_BACKGROUND, _SURFACE)),
    ("thinkingText", (_BACKGROUND,)),
    ("mdQuote", (_BACKGROUND,)),
    ("mdLinkUrl", (_BACKGROUND,)),
    ("toolDiffContext", (_BACKGROUND, *_TOOL_BGS)),
    ("syntaxComment", _CODE_BGS),
    ("statusLineSep", ("statusLineBg",)),
    ("borderAccent", (_BACKGROUND,)),
)


@dataclass(frozen=True)
class ContrastIssue:
    foreground: str
    background: str
    ratio: float
    minimum: float

    def __str__(self) -> str:
        return (
            f"colors.{self.foreground} on {self.background}: contrast {self.ratio:.2f} is below "
            f"{self.minimum} — make one of them lighter or darker"
        )


def _paint(theme: NavTheme, token: str) -> str:
    if token == _BACKGROUND:
        return theme.background
    if token == _SURFACE:
        return theme.surface
    return theme.color(token)


def contrast_issues(theme: NavTheme) -> list[ContrastIssue]:
    """Every drawn pair below its minimum (empty for a readable theme)."""
    issues = []
    for pairs, minimum in ((MAIN_PAIRS, MAIN_MINIMUM), (SECONDARY_PAIRS, SECONDARY_MINIMUM)):
        for foreground, backgrounds in pairs:
            for background in backgrounds:
                ratio = contrast_ratio(_paint(theme, foreground), _paint(theme, background))
                if ratio < minimum:
                    issues.append(ContrastIssue(foreground, background, ratio, minimum))
    return issues


HARD_TO_READ = 3.0
"""Below this, ``themes validate`` warns about a text/background pair (WCAG's minimum for large text)."""

_MARKERS: tuple[tuple[str, str], ...] = (
    *((token, "statusLineBg") for token in TOKEN_GROUPS["Status line segments"]),
    *((token, _BACKGROUND) for token in TOKEN_GROUPS["Thinking and mode borders"]),
    *(
        (token, _BACKGROUND)
        for token in ("border", "borderAccent", "borderMuted", "mdQuoteBorder", "mdCodeBlockBorder", "mdHr")
    ),
    *((token, _BACKGROUND) for token in ("success", "error", "warning", "mdListBullet", "accent")),
    *((token, _BACKGROUND) for token in ("toolDiffAdded", "toolDiffRemoved")),
)


@dataclass(frozen=True)
class Invisible:
    token: str
    background: str

    def __str__(self) -> str:
        return f"colors.{self.token} is the same colour as {self.background}: it cannot be seen — change one of them"


def readability_warnings(theme: NavTheme) -> list[Invisible | ContrastIssue]:
    """Markers that vanish into their background, then text/background pairs under 3:1."""
    warnings: list[Invisible | ContrastIssue] = [
        Invisible(token, background)
        for token, background in _MARKERS
        if _paint(theme, token) == _paint(theme, background)
    ]
    invisible = {(w.token, w.background) for w in warnings if isinstance(w, Invisible)}
    for pairs in (MAIN_PAIRS, SECONDARY_PAIRS):
        for foreground, backgrounds in pairs:
            for background in backgrounds:
                if (foreground, background) in invisible:
                    continue
                ratio = contrast_ratio(_paint(theme, foreground), _paint(theme, background))
                if ratio < HARD_TO_READ:
                    warnings.append(ContrastIssue(foreground, background, ratio, HARD_TO_READ))
    return warnings


# ------------------------------------------------------------------ legibility where safety depends on it
SAFETY_MINIMUM = 3.0
"""What the approval dialogs, warnings and the status line must reach whatever the theme says (WCAG large text)."""

SAFETY_PAIRS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # The approval dialogs: the command or path (text on the code background, the dialog's surface), why it
    # asks (muted), the border and title (warning), a diff's signs.
    ("text", (_BACKGROUND, _SURFACE)),
    ("muted", (_SURFACE,)),
    ("warning", (_BACKGROUND, _SURFACE)),
    ("error", (_BACKGROUND, "toolErrorBg")),
    ("toolDiffAdded", (_SURFACE,)),
    ("toolDiffRemoved", (_SURFACE,)),
    ("toolTitle", _TOOL_BGS),
    *((token, ("statusLineBg",)) for token in TOKEN_GROUPS["Status line segments"]),
)


def safety_issues(theme: NavTheme) -> list[ContrastIssue]:
    """The pairs of ``SAFETY_PAIRS`` a user could not read in ``theme``."""
    issues = []
    for foreground, backgrounds in SAFETY_PAIRS:
        for background in backgrounds:
            ratio = contrast_ratio(_paint(theme, foreground), _paint(theme, background))
            if ratio < SAFETY_MINIMUM:
                issues.append(ContrastIssue(foreground, background, ratio, SAFETY_MINIMUM))
    return issues


def made_legible(theme: NavTheme) -> NavTheme:
    """``theme`` with each unreadable safety foreground replaced: by the theme's text colour when that reads on
    all of the token's safety backgrounds, else by white or black, whichever reads better."""
    from dataclasses import replace

    colors = dict(theme.colors)
    for _round in range(2):  # correcting ``text`` can make it the fix for the others
        current = replace(theme, colors=colors)
        failing = {issue.foreground for issue in safety_issues(current)}
        if not failing:
            break
        for token in failing:
            backgrounds = [_paint(current, bg) for fg, bgs in SAFETY_PAIRS if fg == token for bg in bgs]
            candidates = ([current.foreground] if token != "text" else []) + ["#ffffff", "#000000"]

            def worst(colour: str, backgrounds: list[str] = backgrounds) -> float:
                return min(contrast_ratio(colour, bg) for bg in backgrounds)

            readable = [c for c in candidates if worst(c) >= MAIN_MINIMUM]
            colors[token] = readable[0] if readable else max(candidates, key=worst)
    return replace(theme, colors=colors)
