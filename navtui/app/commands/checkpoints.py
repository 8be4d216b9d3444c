"""/undo, and the question the tree and /branch ask when the files changed since the point chosen.

The walks and writes run in a thread (``navtui.checkpoints.service.Checkpointer``); the screens in
``app/screens/restore.py`` only collect the answer. They, the approval dialog they build on and the diff of a
plan load when a question is first asked (~0.15 MB a session that never undoes need not hold).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.app.commands import CommandContext, CommandRegistry
from navtui.checkpoints.service import NOTHING_TO_UNDO, Checkpointer, Proposal
from navtui.core.display import display_safe
from navtui.core.errors import NavtuiError
from navtui.session.entries import Entry

if TYPE_CHECKING:
    from navtui.app.screens.restore import RestoreAnswer
    from navtui.checkpoints.restore import RestoreResult


def checkpointer(ctx: CommandContext) -> Checkpointer | None:
    checkpoints = ctx.runtime.checkpoints
    return checkpoints.checkpointer if checkpoints is not None else None


# ---------------------------------------------------------------------- /undo
async def undo_command(ctx: CommandContext, args: str) -> None:
    runtime = ctx.runtime
    if runtime.running:
        ctx.notice("The agent is working; press Esc to stop it before you undo.", level="warning")
        return
    if runtime.session is None:
        ctx.notice("This run keeps no session file, so it keeps no checkpoints: nothing to undo.", level="warning")
        return
    files = checkpointer(ctx)
    if files is None:
        ctx.notice("Checkpoints are off (checkpoints.enabled in settings): nothing to undo.", level="warning")
        return
    ctx.app.run_worker(undo_flow(ctx, files), group="undo", exclusive=True)


async def undo_flow(ctx: CommandContext, files: Checkpointer) -> None:
    from navtui.app.screens.restore import UndoScreen
    from navtui.checkpoints.present import file_lines, plan_diff

    session = ctx.runtime.session
    if session is None:
        return
    try:
        proposal = await asyncio.to_thread(files.propose_undo, session.get_branch())
        diff = await asyncio.to_thread(plan_diff, files.store, proposal.plan) if proposal is not None else ""
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    for notice in files.take_notices():
        ctx.notice(notice, level="warning")
    if proposal is None:
        ctx.notice(f"{NOTHING_TO_UNDO}.")
        return
    answer = await ctx.app.push_screen_wait(UndoScreen(file_lines(proposal.plan), diff))
    if answer is None:
        ctx.notice("Undo cancelled; no file was changed.")
        return
    await _apply(ctx, files, proposal, answer)


async def _apply(ctx: CommandContext, files: Checkpointer, proposal: Proposal, answer: RestoreAnswer) -> bool:
    """Put the files back; say what happened. False when nothing could be done."""
    runtime = ctx.runtime
    overwrite = {c.path for c in proposal.plan.conflicts} if answer.overwrite else set()
    tell_model = answer.choice in ("undo", "code")  # "both": the conversation goes back with the files
    try:
        restored = await asyncio.to_thread(files.restore, proposal, overwrite)
        if runtime.session is not None:
            files.record_restore(runtime.session, proposal, restored, tell_model=tell_model)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return False
    result = restored.result
    if tell_model:
        runtime.reload_from_session()  # the note about the files joins the model's context
    _report(ctx, result)
    ctx.refresh_status()  # the files went back: git's counts in the status line change with them
    return True


def _report(ctx: CommandContext, result: RestoreResult) -> None:
    if result.restored:
        from navtui.checkpoints.notes import put_back_text

        ctx.notice(display_safe(put_back_text(result.restored)))
    if result.kept:
        ctx.notice(display_safe(f"Kept as you changed them: {', '.join(result.kept)}."), level="warning")
    for path, why in result.failed:
        ctx.notice(display_safe(f"Could not put back {path}: {why}"), level="error")


# ---------------------------------------------------------------------- the tree and /branch
async def ask_about_code(
    ctx: CommandContext, current: Sequence[Entry], target: Sequence[Entry], *, branch: bool = False
) -> tuple[Proposal, RestoreAnswer] | RestoreAnswer | None:
    """When the files differ from the code of the point at the end of ``target``: ask what to take.

    Returns (proposal, answer) to restore, a bare answer when there is nothing to restore (conversation only,
    or no code recorded there: ``RestoreAnswer("conversation")``), ``None`` when the user went back (Esc).
    """
    from navtui.app.screens.restore import RestoreAnswer, RestoreCodeScreen
    from navtui.checkpoints.present import file_lines, plan_diff

    files = checkpointer(ctx)
    if files is None:
        return RestoreAnswer("conversation")
    try:
        session = ctx.runtime.session
        children = session.children if session is not None else None
        proposal = await asyncio.to_thread(files.propose_restore, current, target, children)
        diff = await asyncio.to_thread(plan_diff, files.store, proposal.plan) if proposal is not None else ""
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return RestoreAnswer("conversation")
    if proposal is None:
        return RestoreAnswer("conversation")
    answer = await ctx.app.push_screen_wait(RestoreCodeScreen(file_lines(proposal.plan), diff, branch=branch))
    if answer is None:
        return None
    return (proposal, answer) if answer.choice in ("both", "code") else answer


async def restore_code(ctx: CommandContext, proposal: Proposal, answer: RestoreAnswer) -> bool:
    files = checkpointer(ctx)
    return files is not None and await _apply(ctx, files, proposal, answer)


# ---------------------------------------------------------------------- /diff
DIFF_MAX_LINES = 20_000  # of the diff shown (a generated file's diff can be far longer)
DIFF_MAX_NEW_FILES = 50  # new files shown whole; the rest are named
DIFF_MAX_NEW_FILE_BYTES = 1024 * 1024  # a larger new file (a data set, a log) is named, not read into the view


async def diff_command(ctx: CommandContext, args: str) -> None:
    """/diff (Codex's): the repository's changes since the last commit, staged or not, and its new files."""
    from navtui.app.screens.text_view import TextViewScreen

    cwd = ctx.runtime.cwd
    try:
        diff = await working_tree_diff(cwd)
    except (OSError, subprocess.SubprocessError) as exc:
        ctx.error(display_safe(f"git diff failed: {exc}"))
        return
    if diff is None:
        ctx.notice(display_safe(f"{cwd} is not a git repository: /undo's d shows what the last turn changed."))
        return
    if not diff.strip():
        ctx.notice("No changes since the last commit.")
        return
    lines = diff.rstrip("\n").split("\n")
    if len(lines) > DIFF_MAX_LINES:
        lines = [*lines[:DIFF_MAX_LINES], f"… {len(lines) - DIFF_MAX_LINES} more lines (git diff HEAD shows them)"]
    ctx.app.push_screen(TextViewScreen("Changes since the last commit (git diff HEAD, new files)", lines, diff=True))


async def working_tree_diff(cwd: Path) -> str | None:
    """``git diff HEAD`` (the index's diff in a repository with no commit yet) and each new file as a diff from
    nothing; ``None`` outside a git repository. Through ``core/gitsafe.py``: the repository's config runs nothing."""
    from navtui.core.gitsafe import run_git_async

    inside = await run_git_async(["rev-parse", "--is-inside-work-tree"], cwd)
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        return None
    head = await run_git_async(["rev-parse", "--verify", "--quiet", "HEAD"], cwd)
    base = ["HEAD"] if head.returncode == 0 else ["--cached"]
    parts = [await run_git_async(["diff", "--no-color", *base, "--"], cwd, check=True)]
    if head.returncode != 0:
        parts.append(await run_git_async(["diff", "--no-color", "--"], cwd, check=True))
    listed = await run_git_async(["ls-files", "--others", "--exclude-standard", "-z"], cwd, check=True)
    new_files = [name for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
    skipped: list[str] = []
    for name in new_files[:DIFF_MAX_NEW_FILES]:  # exit status 1: the files differ, as they do
        try:
            size = os.lstat(cwd / name).st_size  # (a link: its own size, git shows where it points)
        except OSError:
            continue
        if size > DIFF_MAX_NEW_FILE_BYTES:  # its diff is read whole: a 1 GB log would be gigabytes in memory
            skipped.append(f"new file {name}, {size / (1024 * 1024):.0f} MB: not shown\n")
            continue
        parts.append(await run_git_async(["diff", "--no-color", "--no-index", "--", os.devnull, name], cwd))
    text = "".join(part.stdout.decode("utf-8", "surrogateescape") for part in parts) + "".join(skipped)
    if len(new_files) > DIFF_MAX_NEW_FILES:
        text += f"… and {len(new_files) - DIFF_MAX_NEW_FILES} more new files: git status lists them\n"
    return text


def register(registry: CommandRegistry) -> None:
    registry.command("undo", "put back the files the last turn changed (again: the turn before)")(undo_command)
    registry.command("diff", "the repository's changes since the last commit, and its new files")(diff_command)
