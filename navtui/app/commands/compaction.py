"""Slash commands that free context: /compact and /handover."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from navtui.app.commands import CommandContext, CommandRegistry
from navtui.core.errors import NavtuiError

if TYPE_CHECKING:
    from navtui.core.events import AgentEvent


async def stream_events(ctx: CommandContext, events: AsyncIterator[AgentEvent], activity: str) -> None:
    """Show a command's agent events in the transcript, with the activity in the status line (Esc aborts)."""
    ctx.set_activity(True, activity)
    try:
        async for event in events:
            ctx.router.handle(event)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
    finally:
        ctx.router.finish_streams()
        ctx.set_activity(False)
        ctx.refresh_status()


async def compact_command(ctx: CommandContext, args: str) -> None:
    await stream_events(ctx, ctx.runtime.compact(args), "compacting")


async def handover_command(ctx: CommandContext, args: str) -> None:
    if not ctx.runtime.agent.messages:  # the agent says "Nothing to hand over yet": no turn to announce
        await stream_events(ctx, ctx.runtime.hand_over(args), "handing over")
        return
    ctx.notice(
        "Handing over: the model writes notes, the context restarts from them, and the model carries on from there"
        " (a turn starts; Esc stops it)."
    )
    await stream_events(ctx, ctx.runtime.hand_over(args), "handing over")


def register(registry: CommandRegistry) -> None:
    registry.command("compact", "summarise older history to free context", args="[instructions]")(compact_command)
    registry.command(
        "handover",
        "have the model write notes, restart its context from them and carry on (starts a turn)",
        args="[instructions]",
    )(handover_command)
