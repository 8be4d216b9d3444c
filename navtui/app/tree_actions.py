"""What /tree, /branch and /label do to a session and the runtime; the screens only collect the choice.

- ``plan_navigation`` / ``navigate``: move the leaf within the session file. Selecting a user message moves the
  leaf to its parent and hands its text back for the prompt (re-asking starts a new branch); any other entry
  becomes the leaf; the current leaf is a no-op. An optional model-written summary of the abandoned path is
  stored as a ``branch_summary`` entry at the new position. The model context is then rebuilt from the leaf.
- ``branch_session`` / ``branch``: a new session file holding the path up to a user message becomes current.
- ``set_label`` / ``label_leaf``: labels (empty clears).

No Textual import: everything here runs (and is tested) without a screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.core.errors import NavtuiError
from navtui.core.messages import UserMessage
from navtui.session.entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    SessionHeader,
    SessionInfoEntry,
)
from navtui.session.listing import TITLE_CHARS, new_session_id, new_session_path, summarize
from navtui.session.manager import SessionManager

if TYPE_CHECKING:
    from navtui.app.ui_runtime import UiRuntime

_BRANCH_MARK = re.compile(r" \(branch(?: \d+)?\)$")
_FORK_BASE_CHARS = TITLE_CHARS - len(" (branch 99)")  # the mark must survive the listing's cut

# Entries that carry no conversation: leaving them behind needs no summary, and the leaf "really" is above them.
_BOOKKEEPING = (LabelEntry, SessionInfoEntry)


@dataclass
class NavigationPlan:
    target_id: str
    old_leaf_id: str | None
    new_leaf_id: str | None
    prefill: str | None = None  # the selected user message's text, for the prompt
    abandoned: list[Entry] = field(default_factory=list)  # old leaf back to the shared ancestor, oldest first
    is_noop: bool = False  # the target is where the session already is

    @property
    def can_summarize(self) -> bool:
        """True when the path left behind holds conversation worth summarising."""
        return any(_is_conversation(entry) for entry in self.abandoned)


@dataclass
class NavigationResult:
    plan: NavigationPlan
    summary_id: str | None = None

    @property
    def prefill(self) -> str | None:
        return self.plan.prefill

    @property
    def moved(self) -> bool:
        return not self.plan.is_noop


@dataclass
class BranchResult:
    session: SessionManager
    prefill: str

    @property
    def path(self) -> Path:
        return self.session.path


# ---------------------------------------------------------------------- navigation
def effective_leaf(session: SessionManager) -> str | None:
    """The leaf, stepping back over trailing labels and name changes (what the user sees as "here")."""
    leaf = session.leaf_id
    while leaf is not None:
        entry = session.get_entry(leaf)
        if entry is None or not isinstance(entry, _BOOKKEEPING):
            return leaf
        leaf = entry.parent_id
    return None


def plan_navigation(session: SessionManager, target_id: str) -> NavigationPlan:
    entry = session.get_entry(target_id)
    if entry is None:
        raise NavtuiError(f"No entry '{target_id}' in this session", hint="reopen the tree: the session changed")
    old_leaf = session.leaf_id
    if target_id in (old_leaf, effective_leaf(session)):
        return NavigationPlan(target_id, old_leaf, old_leaf, is_noop=True)
    if _is_user_message(entry):
        parent = entry.parent_id if entry.parent_id and session.get_entry(entry.parent_id) else None
        plan = NavigationPlan(target_id, old_leaf, parent, prefill=_user_text(entry))
    else:
        plan = NavigationPlan(target_id, old_leaf, target_id)
    plan.abandoned = abandoned_entries(session, old_leaf, plan.new_leaf_id)
    return plan


def abandoned_entries(session: SessionManager, old_leaf: str | None, new_leaf: str | None) -> list[Entry]:
    """The entries on the old root-to-leaf path below the deepest ancestor shared with the new one."""
    if old_leaf is None:
        return []
    kept = {entry.id for entry in session.get_branch(new_leaf)} if new_leaf is not None else set()
    out: list[Entry] = []
    for entry in reversed(session.get_branch(old_leaf)):
        if entry.id in kept:
            break
        out.append(entry)
    out.reverse()
    return out


def apply_navigation(session: SessionManager, plan: NavigationPlan, summary: str | None = None) -> str | None:
    """Move the leaf as planned; with ``summary`` also record it there. Returns the summary entry's id."""
    if plan.is_noop:
        return None
    if summary:
        return session.branch_with_summary(plan.new_leaf_id, summary)
    if plan.new_leaf_id is None:
        session.reset_leaf()
    else:
        session.branch(plan.new_leaf_id)
    return None


async def navigate(
    runtime: UiRuntime, target_id: str, *, summarize: bool = False, instructions: str | None = None
) -> NavigationResult:
    """Navigate ``runtime``'s session to ``target_id`` and rebuild the model context from the new leaf.

    With ``summarize`` the model first writes a summary of the abandoned path; if that fails (or is cancelled)
    nothing moves.
    """
    session = _session_of(runtime)
    plan = plan_navigation(session, target_id)
    if plan.is_noop:
        return NavigationResult(plan)
    summary = None
    if summarize and plan.can_summarize:
        summary = await runtime.summarize_branch(plan.abandoned, instructions=instructions)
    summary_id = apply_navigation(session, plan, summary)
    session.sync()
    runtime.reload_from_session()
    return NavigationResult(plan, summary_id)


# ---------------------------------------------------------------------- /branch
def branch_session(session: SessionManager, entry_id: str) -> BranchResult:
    """A new session file with the path up to (not including) the user message ``entry_id``.

    The current file is unchanged. The message's text comes back for the prompt.
    """
    entry = session.get_entry(entry_id)
    if entry is None or not _is_user_message(entry):
        raise NavtuiError("/branch starts from one of your messages", hint="pick a user message (❯) in the list")
    parent = entry.parent_id if entry.parent_id and session.get_entry(entry.parent_id) else None
    name = fork_name(session, _session_names(session.path.parent))
    if parent is not None:
        branched = session.create_branched_session(parent)
    else:  # the first message: the new session starts empty (its file is written on the first append)
        session_id = new_session_id()
        where = session.header.cwd or str(Path.cwd())  # a damaged header says no cwd: never write an empty one
        header = SessionHeader(id=session_id, cwd=where, parent_session=str(session.path))
        file_name = new_session_path(Path(where), session_id).name
        branched = SessionManager(session.path.parent / file_name, header)
    branched.set_name(name)
    return BranchResult(branched, _user_text(entry))


def fork_name(session: SessionManager, taken: set[str]) -> str:
    """The session's name (or first prompt) marked as a branch, so /resume tells the fork from the original:
    "fix the parser (branch)", then "(branch 2)" ... when that name is taken already."""
    first = next((_user_text(e) for e in session.entries if _is_user_message(e)), "")
    base = " ".join((session.name or first).split()) or "session"
    base = _BRANCH_MARK.sub("", base)
    base = base if len(base) <= _FORK_BASE_CHARS else base[: _FORK_BASE_CHARS - 1] + "…"
    number = 1
    while (name := f"{base} (branch{f' {number}' if number > 1 else ''})") in taken:
        number += 1
    return name


def _session_names(directory: Path) -> set[str]:
    """The names the sessions of one directory show in /resume."""
    found = (summarize(path) for path in directory.glob("*.jsonl"))
    return {summary.name for summary in found if summary is not None}


def branch(runtime: UiRuntime, entry_id: str) -> BranchResult:
    """``branch_session`` for ``runtime``'s session, which then continues in the new file."""
    session = _session_of(runtime)
    result = branch_session(session, entry_id)
    runtime.switch_session(result.session)
    return result


# ---------------------------------------------------------------------- labels
def set_label(session: SessionManager, entry_id: str, text: str | None) -> str | None:
    """Label ``entry_id`` (blank clears it); returns the label now in effect."""
    label = " ".join((text or "").split()) or None
    if label != session.label_of(entry_id):
        session.append_label(entry_id, label)
    return label


def label_leaf(runtime: UiRuntime, text: str | None) -> tuple[str, str | None]:
    """/label [text]: label the current position (not a trailing label entry). Returns (entry id, label)."""
    session = _session_of(runtime)
    target = effective_leaf(session)
    if target is None:
        raise NavtuiError("Nothing to label yet", hint="send a message first")
    return target, set_label(session, target, text)


# ---------------------------------------------------------------------- helpers
def _session_of(runtime: UiRuntime) -> SessionManager:
    session = runtime.session
    if session is None:
        raise NavtuiError("This run has no session file", hint="start navtui without an ephemeral session")
    if runtime.running:
        raise NavtuiError("The agent is still working", hint="press Esc to stop it first")
    return session


def _is_user_message(entry: Entry) -> bool:
    return isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage)


def _user_text(entry: Entry) -> str:
    assert isinstance(entry, MessageEntry) and isinstance(entry.message, UserMessage)
    return entry.message.text


def _is_conversation(entry: Entry) -> bool:
    return isinstance(entry, MessageEntry | CustomMessageEntry | BranchSummaryEntry | CompactionEntry)
