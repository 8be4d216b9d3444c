"""Readability check of a theme: WCAG contrast of the text/background pairs the UI actually draws."""

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
