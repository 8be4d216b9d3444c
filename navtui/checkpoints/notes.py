"""The session's note that files were put back (``/undo``, the tree's code question), and how it reads to the user.

Light on purpose: a resumed session's transcript reads it before its first frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from navtui.core.wording import counted

NOTE_TYPE = "navtui-files-restored"  # a custom message for the model, not displayed as such


def put_back_text(restored: Sequence[str]) -> str:
    """ "Put back 2 files: a.py, b.py." (the first six named)."""
    shown = ", ".join(restored[:6]) + (f" and {len(restored) - 6} more" if len(restored) > 6 else "")
    return f"Put back {counted(len(restored), 'file')}: {shown}."


def note_details(restored: Sequence[str]) -> dict[str, Any]:
    """What the note keeps beside its text for the transcript of a resumed session."""
    return {"restored": list(restored)}


def put_back_of(details: Any) -> str | None:
    """The user's line for a note's ``details`` (``None`` for a note written before they were kept)."""
    restored = details.get("restored") if isinstance(details, dict) else None
    if not isinstance(restored, list) or not restored or not all(isinstance(path, str) for path in restored):
        return None
    return put_back_text(restored)
