"""At start-up, before anything runs: what an earlier navtui left behind is cleaned up.

Each function returns what to tell the user (the runtime shows it with the start-up warnings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from navtui.core.wording import counted

if TYPE_CHECKING:
    from navtui.config.settings import Settings


def stop_leftovers_and_prune(settings: Settings) -> list[str]:
    """Stop what an earlier run left running, prune old shell output."""
    from navtui.config.paths import navtui_home
    from navtui.tools.shell.artifacts import prune_artifacts
    from navtui.tools.shell.lifetime import sweep_leftovers

    notes = []
    stopped = sweep_leftovers()
    if stopped:
        notes.append(f"Stopped {stopped} process{'es' if stopped != 1 else ''} left by an earlier run.")
    prune_artifacts(
        navtui_home() / "artifacts",
        max_age_days=settings.tools.artifacts_max_days,
        max_bytes=settings.tools.artifacts_max_mb * 1024 * 1024,
    )
    return notes


def recover_interrupted_writes() -> list[str]:
    """Remove the temp files an earlier run left when it died mid-write, and journal this run's."""
    from navtui.config.paths import navtui_home
    from navtui.core.fs import open_temp_journal, recover_temp_files

    journal = navtui_home() / "journal"
    removed = recover_temp_files(journal)
    open_temp_journal(journal)
    if not removed:
        return []
    shown = ", ".join(str(path) for path in removed[:3]) + (f" and {len(removed) - 3} more" if len(removed) > 3 else "")
    return [f"Removed {counted(len(removed), 'temporary file')} left by an interrupted write: {shown}"]
