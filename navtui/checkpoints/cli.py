"""``navtui undo``: take back the files the latest turn of a session changed, without a screen."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from navtui.core.errors import NavtuiError
from navtui.core.wording import counted


def undo_main(argv: list[str] | None = None, *, cwd: Path | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="navtui undo",
        description="Put back the files the latest turn changed (the latest session of this directory).",
    )
    parser.add_argument("--session", metavar="ID", help="a session id (or its first characters) or file")
    parser.add_argument("-y", "--yes", action="store_true", help="do not ask (files changed by hand are kept)")
    parser.add_argument("--overwrite", action="store_true", help="also put back files changed by hand since")
    parser.add_argument("--diff", action="store_true", help="show what the turn changed, as a diff")
    parser.add_argument(
        "--cwd", metavar="DIR", type=Path, help="the directory whose files to put back (default: the current one)"
    )
    args = parser.parse_args(argv)
    from navtui.checkpoints.present import file_lines, plan_diff
    from navtui.checkpoints.service import NOTHING_TO_UNDO, Checkpointer
    from navtui.session.manager import SessionManager

    here = (args.cwd if args.cwd is not None else cwd or Path.cwd()).resolve()
    checkpointer: Checkpointer | None = None
    try:
        if args.session:
            session = SessionManager.open(SessionManager.resolve(here, args.session))
        else:
            found = SessionManager.continue_recent(here)
            if found is None:
                from navtui.session.listing import unreadable_folders

                for note in unreadable_folders(here):
                    _say(f"navtui undo: warning: {note}", err=True)
                _say("navtui undo: no session in this directory (`navtui sessions` lists them)", err=True)
                return 1
            session = found
        recorded = Path(session.header.cwd).resolve() if session.header.cwd else here
        if recorded != here:
            # The session file names its directory, and a session file is untrusted (a repository can ship one,
            # --session takes any file): files are put back only in the directory the user runs this in, or names.
            _say(
                f"navtui undo: session {session.session_id[:8]} was recorded in {recorded}, not here ({here}): "
                f"nothing changed; run navtui undo in that directory, or name it with --cwd {recorded}",
                err=True,
            )
            return 2
        root = here
        checkpointer = Checkpointer(root)
        proposal = checkpointer.propose_undo(session.get_branch())
        for notice in checkpointer.take_notices():
            _say(f"navtui undo: {notice}", err=True)
        if proposal is None:
            _say(f"{NOTHING_TO_UNDO} (session {session.session_id[:8]}).")
            return 1
        lines = file_lines(proposal.plan)
        _say(f"The latest turn of session {session.session_id[:8]} changed, in {root}:")
        for line in lines:
            mark = "  ! " if line.conflict else "    "
            _say(f"{mark}{line.what:<9} {line.path}{'  (' + line.detail + ')' if line.detail else ''}")
        conflicts = [line.path for line in lines if line.conflict]
        if conflicts:
            _say(f"! changed by hand since the checkpoint: {', '.join(conflicts)}")
        if args.diff:
            _say(plan_diff(checkpointer.store, proposal.plan), end="")
        overwrite = set(conflicts) if args.overwrite else set()
        if not args.yes:
            if not sys.stdin.isatty():
                _say("navtui undo: nothing changed; add --yes to put these files back", err=True)
                return 2
            if not _ask("Put them back? [y/N] "):
                _say("Nothing changed.")
                return 1
            if conflicts and not args.overwrite and _ask("Overwrite your changes to the files marked ! too? [y/N] "):
                overwrite = set(conflicts)
        result = checkpointer.apply(session, proposal, overwrite)
    except NavtuiError as exc:
        _say(f"navtui undo: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""), err=True)
        return 1
    finally:
        # However this ends: its watch holds an inotify instance (128 per user by default), and run in one process
        # (tests, a script calling undo_main) each "nothing to undo" kept one until none was left for anyone.
        if checkpointer is not None:
            checkpointer.close()
    _say(f"Put back {counted(len(result.restored), 'file')}.")
    if result.kept:
        _say(f"Kept as you changed them: {', '.join(result.kept)} (--overwrite puts them back too).")
    for path, why in result.failed:
        _say(f"navtui undo: could not restore {path}: {why}", err=True)
    return 1 if result.failed else 0


def _say(text: str, *, err: bool = False, end: str = "\n") -> None:
    """Paths and file contents are untrusted: on a terminal their control sequences are shown, never run."""
    from navtui.core.display import display_safe

    stream = sys.stderr if err else sys.stdout
    print(display_safe(text) if stream.isatty() else text, file=stream, end=end, flush=True)


def _ask(question: str) -> bool:
    try:
        return input(question).strip().lower() == "y"
    except (EOFError, KeyboardInterrupt):
        print()
        return False
