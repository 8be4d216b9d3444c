"""/tree, /branch, /resume and /label, and what Esc Esc on an empty prompt opens.

Each flow pushes a screen, then changes the session through ``navtui.app.tree_actions`` and asks the main
screen (a ``CommandContext``) to show the new path, refill the prompt and refresh the status line.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import MutableSequence
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.app.commands import CommandContext, CommandRegistry
from navtui.app.commands.checkpoints import ask_about_code, restore_code
from navtui.core.errors import NavtuiError
from navtui.session.manager import SessionManager

if TYPE_CHECKING:
    from navtui.app.screens.branch_summary import SummaryProgressScreen
    from navtui.widgets.items import TranscriptItem

# The screens are imported when they open (the first /tree takes ~20 ms more): an idle session never loads
# them, nor Textual's Tree and DataTable widgets they use, nor the session changes they lead to (tree_actions)
# (docs/speed.md, memory).


# What each flow says in a session with nothing in it yet: what it is for, and when it will work.
_EMPTY = {
    "navigate the tree": "Nothing to go back to yet: this session has no messages (Esc Esc opens its tree once it has).",
    "branch": "Nothing to branch from yet: this session has no messages (Esc Esc picks one once it has).",
}


def _ready(ctx: CommandContext, what: str) -> SessionManager | None:
    """The session, when it can be changed now; else None, after telling the user why not."""
    runtime = ctx.runtime
    session = runtime.session
    if session is None:
        ctx.notice(f"This run keeps no session file, so there is nothing to {what}.", level="warning")
        return None
    if runtime.running:
        ctx.notice(f"The agent is working; press Esc to stop it before you {what}.", level="warning")
        return None
    if not session.entries:
        ctx.notice(_EMPTY[what])
        return None
    return session


def _session(ctx: CommandContext) -> SessionManager:
    """The session of a flow that began with ``_ready`` (a screen's answer arrives later: it is still there)."""
    session = ctx.runtime.session
    if session is None:
        raise NavtuiError("This run keeps no session file")
    return session


# ---------------------------------------------------------------------- /tree
async def tree_command(ctx: CommandContext, args: str) -> None:
    if _ready(ctx, "navigate the tree") is not None:
        open_tree(ctx)


def open_tree(ctx: CommandContext, *, select: str | None = None) -> None:
    """Push the tree screen; a chosen entry is navigated to in a worker (it may ask and summarise)."""

    def chosen(entry_id: str | None) -> None:
        if entry_id:
            ctx.app.run_worker(navigate_flow(ctx, entry_id), group="tree-navigate", exclusive=True)

    from navtui.app.screens.tree import TreeScreen

    ctx.app.push_screen(TreeScreen(_session(ctx), select=select), callback=chosen)


async def navigate_flow(ctx: CommandContext, entry_id: str) -> None:
    """Ask about a summary (per ``ui.branch_summary``), move the leaf, show the new path."""
    from navtui.app.screens.branch_summary import BranchSummaryScreen, SummaryChoice, SummaryProgressScreen
    from navtui.app.tree_actions import navigate, plan_navigation

    runtime = ctx.runtime
    try:
        plan = plan_navigation(_session(ctx), entry_id)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    if plan.is_noop:
        ctx.notice("That is where the session already is.")
        return
    session = _session(ctx)
    target = session.get_branch(plan.new_leaf_id) if plan.new_leaf_id is not None else []
    code = await ask_about_code(ctx, session.get_branch(), target)
    if code is None:  # Esc: back to the tree, on the same entry
        open_tree(ctx, select=entry_id)
        return
    if isinstance(code, tuple) and code[1].choice == "code":  # the files go back, the conversation stays
        await restore_code(ctx, *code)
        ctx.reload_transcript()
        ctx.refresh_status()
        return
    choice = SummaryChoice(False)
    setting = runtime.settings.ui.branch_summary
    if plan.can_summarize and setting == "always":
        choice = SummaryChoice(True)
    elif plan.can_summarize and setting == "ask":
        asked = await ctx.app.push_screen_wait(BranchSummaryScreen(len(plan.abandoned)))
        if asked is None:  # Esc: back to the tree, on the same entry
            open_tree(ctx, select=entry_id)
            return
        choice = asked
    task = asyncio.create_task(
        navigate(runtime, entry_id, summarize=choice.summarize, instructions=choice.instructions)
    )
    progress: SummaryProgressScreen | None = None
    if choice.summarize:
        progress = SummaryProgressScreen()

        def cancel(_: None) -> None:  # Esc: stop the request, stay put
            task.cancel()

        ctx.app.push_screen(progress, callback=cancel)
    try:
        result = await task
    except asyncio.CancelledError:
        if not task.cancelled():
            raise
        ctx.notice("Summary cancelled; the session stays where it was.")
        return
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    finally:
        if progress is not None and progress.is_attached and ctx.app.screen is progress:
            progress.dismiss(None)
    ctx.reload_transcript()
    if result.prefill is not None:
        ctx.set_prompt(result.prefill)
    if isinstance(code, tuple):  # after the transcript shows the new path: its notices stay visible
        await restore_code(ctx, *code)
    ctx.refresh_status()
    if result.summary_id is not None:
        ctx.notice("Moved in the tree; the summary of the branch you left is in the context.")


# ---------------------------------------------------------------------- /branch
async def branch_command(ctx: CommandContext, args: str) -> None:
    if _ready(ctx, "branch") is not None:
        open_branch(ctx)


def open_branch(ctx: CommandContext) -> None:
    """Pick a user message; a new session file holds the path before it and becomes current."""

    def chosen(entry_id: str | None) -> None:
        if entry_id:
            ctx.app.run_worker(branch_flow(ctx, entry_id), group="tree-branch", exclusive=True)

    from navtui.app.screens.tree import TreeScreen

    ctx.app.push_screen(TreeScreen(_session(ctx), mode="branch"), callback=chosen)


async def branch_flow(ctx: CommandContext, entry_id: str) -> None:
    """Ask whether the new session starts with that point's code (when the files changed since), then branch."""
    from navtui.app.tree_actions import branch

    session = _session(ctx)
    entry = session.get_entry(entry_id)
    parent = entry.parent_id if entry is not None else None
    target = session.get_branch(parent) if parent is not None and session.get_entry(parent) else []
    code = await ask_about_code(ctx, session.get_branch(), target, branch=True)
    if code is None:
        return
    try:
        result = branch(ctx.runtime, entry_id)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    ctx.reload_transcript()
    ctx.set_prompt(result.prefill)
    if isinstance(code, tuple):
        await restore_code(ctx, *code)
    ctx.refresh_status()
    ctx.notice(
        f"Branched into a new session, “{result.session.name}” ({result.path.name}); "
        "the earlier one is unchanged (/resume)."
    )


# ---------------------------------------------------------------------- /resume
async def resume_command(ctx: CommandContext, args: str) -> None:
    runtime = ctx.runtime
    if runtime.running:
        ctx.notice("The agent is working; press Esc to stop it before you switch sessions.", level="warning")
        return
    if args:
        path_given = "/" in args or args.endswith(".jsonl")
        if not path_given and not _ID_PREFIX.fullmatch(args):
            # Words of a name, a label, a model: the list, filtered by them. Not looked up as an id: a word that
            # names a file here ("notes") was opened as a session, a short one ("add") as the session whose id
            # begins with it.
            pick_session(ctx, query=args)
            return
        try:
            path = SessionManager.resolve(runtime.cwd, args)
        except NavtuiError as exc:
            if path_given:
                ctx.error(exc.message, exc.hint)
            else:  # no such id: the list, filtered by it (the id is among what the filter reads)
                pick_session(ctx, query=args)
            return
        await open_session(ctx, path)
        return
    pick_session(ctx)


_ID_PREFIX = re.compile(r"[0-9a-fA-F-]{4,}")  # a session id (hex; pi's: a UUID), or 4 or more of its first digits


def pick_session(ctx: CommandContext, query: str = "") -> None:
    """The session picker; the chosen file becomes the current session (``navtui -r`` without an id too)."""

    def chosen(path: Path | None) -> None:
        if path is not None:
            ctx.app.run_worker(open_session(ctx, path), group="resume", exclusive=True)

    from navtui.app.screens.sessions import SessionPickerScreen

    runtime = ctx.runtime
    picker = SessionPickerScreen(runtime.cwd, current=runtime.session, query=query)
    ctx.app.push_screen(picker, callback=chosen)


def read_path(session: SessionManager) -> MutableSequence[TranscriptItem]:
    """The context of ``session`` at its leaf, built (and kept by the session) with its transcript's items made along
    the same pass: each line of the path parsed once, in a worker thread (a 20,000-entry session's context and items
    took ~1.2 s of CPU on the loop)."""
    from navtui.app.session_view import PathTranscript, session_transcript

    read = PathTranscript()
    session.build_context(read_along=read.add)
    return session_transcript(session.display_items(), read=read)


async def open_session(ctx: CommandContext, path: Path) -> None:
    from navtui.agent.session_control import SessionControl

    runtime = ctx.runtime
    current = runtime.session
    if current is not None and _same_file(current.path, path):
        ctx.notice("That is the session you are in.")
        return
    try:
        opened = await asyncio.to_thread(SessionManager.open, path)  # a large file parses off the UI loop
        session, moved = await asyncio.to_thread(SessionControl.writable, opened, runtime.cwd)
        items = await asyncio.to_thread(read_path, session)
        runtime.switch_session(session)  # (the context just built: the session keeps it until an entry is added)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    except OSError as exc:  # the copy of a read-only session could not be written
        ctx.error(f"Could not continue {path.name} in a new file: {exc.strerror or exc}", "free some space, then retry")
        return
    ctx.reload_transcript(items)
    for warning in [*opened.warnings, *([moved] if moved else [])]:
        ctx.notice(warning, level="warning")
    ctx.notice(f"Resumed “{session.title or path.name}”.")
    model_notice = await runtime.adopt_session_model()  # the model and thinking level the session used
    if model_notice is not None:
        ctx.notice(model_notice.text, level=model_notice.level)
    ctx.refresh_status()


def _same_file(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


# ---------------------------------------------------------------------- /label
async def label_command(ctx: CommandContext, args: str) -> None:
    from navtui.app.tree_actions import label_leaf

    try:
        _, label = label_leaf(ctx.runtime, args)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    ctx.notice(f"Labelled this point “{label}” (see /tree)." if label else "Label cleared.")


# ---------------------------------------------------------------------- Esc Esc
def double_escape(ctx: CommandContext) -> None:
    """Esc Esc on an empty prompt: what ``ui.double_escape_action`` says (tree, branch or nothing)."""
    action = ctx.runtime.settings.ui.double_escape_action
    if action == "tree" and _ready(ctx, "navigate the tree") is not None:
        open_tree(ctx)
    elif action == "branch" and _ready(ctx, "branch") is not None:
        open_branch(ctx)


def register(registry: CommandRegistry) -> None:
    registry.command("tree", "navigate the session tree (go back to any point, branch from it)", key="esc esc")(
        tree_command
    )
    registry.command("branch", "continue from one of your messages in a new session file")(branch_command)
    registry.command("resume", "open another session of this directory (ctrl+a: all)", args="[id]")(resume_command)
    registry.command("label", "label the current point of the session (empty clears)", args="[text]")(label_command)
