"""The colour tokens a theme must define: the omp 16 names, so omp theme files load as they are."""

from __future__ import annotations

TOKEN_GROUPS: dict[str, tuple[str, ...]] = {
    "Core text and borders": (
        "accent",
        "border",
        "borderAccent",
        "borderMuted",
        "success",
        "error",
        "warning",
        "muted",
        "dim",
        "text",
        "thinkingText",
    ),
    "Background blocks": (
        "selectedBg",
        "userMessageBg",
        "customMessageBg",
        "toolPendingBg",
        "toolSuccessBg",
        "toolErrorBg",
        "statusLineBg",
    ),
    "Message and tool text": (
        "userMessageText",
        "customMessageText",
        "customMessageLabel",
        "toolTitle",
        "toolOutput",
    ),
    "Markdown": (
        "mdHeading",
        "mdLink",
        "mdLinkUrl",
        "mdCode",
        "mdCodeBlock",
        "mdCodeBlockBorder",
        "mdQuote",
        "mdQuoteBorder",
        "mdHr",
        "mdListBullet",
    ),
    "Diff and syntax highlighting": (
        "toolDiffAdded",
        "toolDiffRemoved",
        "toolDiffContext",
        "syntaxComment",
        "syntaxKeyword",
        "syntaxFunction",
        "syntaxVariable",
        "syntaxString",
        "syntaxNumber",
        "syntaxType",
        "syntaxOperator",
        "syntaxPunctuation",
    ),
    "Thinking and mode borders": (
        "thinkingOff",
        "thinkingMinimal",
        "thinkingLow",
        "thinkingMedium",
        "thinkingHigh",
        "thinkingXhigh",
        "bashMode",
        "pythonMode",
    ),
    "Status line segments": (
        "statusLineSep",
        "statusLineModel",
        "statusLinePath",
        "statusLineGitClean",
        "statusLineGitDirty",
        "statusLineContext",
        "statusLineSpend",
        "statusLineStaged",
        "statusLineDirty",
        "statusLineUntracked",
        "statusLineOutput",
        "statusLineCost",
        "statusLineSubagents",
    ),
}

REQUIRED_TOKENS: tuple[str, ...] = tuple(token for group in TOKEN_GROUPS.values() for token in group)

EXPORT_TOKENS: tuple[str, ...] = ("pageBg", "cardBg", "infoBg")


def is_background_token(token: str) -> bool:
    """Whether a token paints a background (``""`` then means the theme background, not its text colour)."""
    return token.endswith("Bg")
