"""Spinner frames. One app-level timer advances them, and only while the agent works (idle means no timers)."""

from __future__ import annotations

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
STILL = "◌"  # what a pending card shows when animation is off (snapshot tests)
INTERVAL = 0.1


def frame(index: int | None) -> str:
    """The spinner glyph for tick ``index``; ``None`` means animation is off."""
    return STILL if index is None else FRAMES[index % len(FRAMES)]
