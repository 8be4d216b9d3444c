"""The repository index in the agent: the first prompt's context note, and re-indexing after the agent's edits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING

from navtui.agent.hooks import AgentHooks
from navtui.core.events import AgentEvent, ContextInjected, Notice
from navtui.core.messages import ToolCall, ToolResultMessage, UserMessage

if TYPE_CHECKING:
    from navtui.agent.loop import Agent
    from navtui.session.manager import SessionManager

EDITING_TOOLS = ("edit", "write")
MIN_NOTE_TOKENS = 256
MAX_NOTE_TOKENS = 4096


def note_budget(window: int | None) -> int:
    """An eighth of the window, within [256, 4096] tokens: enough to orient a small model, never crowding it."""
    if not window:
        return 2048
    return max(MIN_NOTE_TOKENS, min(MAX_NOTE_TOKENS, window // 8))


def index_exists(cwd: Path) -> bool:
    from navtui.index import index_path, index_root

    return index_path(index_root(cwd)).exists()


async def index_context(cwd: Path, prompt: str, mode: str, window: int | None) -> ContextInjected | None:
    """The context note for a session's first prompt, or None (no index, nothing relevant, or injection off)."""
    if mode == "off" or not prompt.strip():
        return None
    if not index_exists(cwd):  # the common case: no index, and nothing of it loaded (builder, chunker, tree-sitter)
        if mode != "on":
            return None
        from navtui.index import build_index, index_root

        await asyncio.to_thread(build_index, index_root(cwd))
    from navtui.index import context_note, index_root

    root = index_root(cwd)
    note = await asyncio.to_thread(context_note, root, prompt, note_budget(window))
    if note is None or not note.text.strip():
        return None
    return ContextInjected(source="index", text=note.text, files=list(note.files), tokens=note.tokens)


def context_message(event: ContextInjected) -> UserMessage:
    return UserMessage(content=event.text)


async def note_first_prompt(
    agent: Agent, session: SessionManager | None, prompt: str, mode: str
) -> ContextInjected | Notice | None:
    """A session's first prompt: the index's best chunks join the context before it, and the session (as a
    ``custom_message``, so a resumed session sends them again). What it added, or a notice why it could not."""
    try:
        event = await index_context(agent.ctx.cwd, prompt, mode, agent.budget.window)
    except Exception as exc:  # the index is a help, never a reason not to answer
        return Notice(text=f"Repository index unavailable: {exc}", level="warning")
    if event is None:
        return None
    agent.messages.append(context_message(event))
    if session is not None:
        session.append_custom_message("index_context", event.text, details={"files": event.files})
    return event


class IndexHooks(AgentHooks):
    """After the agent writes or edits a file, the index (when one exists) takes the new content."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    async def after_tool(
        self, agent: Agent, call: ToolCall, result: ToolResultMessage
    ) -> AsyncGenerator[AgentEvent, None]:
        if call.name not in EDITING_TOOLS or result.is_error or not isinstance(call.arguments.get("path"), str):
            return
        if not await asyncio.to_thread(index_exists, self.cwd):
            return
        from navtui.index import index_root, update_files

        path = agent.ctx.workspace.resolve(call.arguments["path"])
        try:
            await asyncio.to_thread(update_files, index_root(self.cwd), [path])
        except Exception as exc:  # a stale index is no reason to fail the agent's turn
            yield Notice(text=f"Could not update the repository index: {exc}", level="warning")
