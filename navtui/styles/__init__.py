"""navtui's stylesheets: ``app.tcss`` for the main screen, one ``.tcss`` per other screen (loaded when it opens)."""

from pathlib import Path

STYLES = Path(__file__).resolve().parent


def stylesheet(name: str) -> Path:
    """The path of ``styles/NAME.tcss``, for a ``CSS_PATH``."""
    return STYLES / f"{name}.tcss"
