"""Slash commands that free context: /compact and /handover."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from navtui.app.commands import CommandContext, CommandRegistry
from navtui.core.errors import NavtuiError


async def stream_events(ctx: CommandContext, events: AsyncIterator[Any], activity: str) -> None:
    """Show a command's agent events in the transcript, with the activity in the status line (Esc aborts)."""
    screen: Any = ctx
    screen.set_activity(True, activity)
    try:
        async for event in events:
            screen.router.handle(event)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
    finally:
        screen.router.finish_streams()
        screen.set_activity(False)
        ctx.refresh_status()


async def compact_command(ctx: CommandContext, args: str) -> None:
    from navtui.agent.context_manager import compact_now

    await stream_events(ctx, compact_now(ctx.runtime, args), "compacting")


async def handover_command(ctx: CommandContext, args: str) -> None:
    from navtui.agent.context_manager import request_handover

    await stream_events(ctx, request_handover(ctx.runtime, args), "handing over")


def register(registry: CommandRegistry) -> None:
    registry.command("compact", "summarise older history to free context", args="[instructions]")(compact_command)
    registry.command(
        "handover", "have the model write notes, then restart its context from them", args="[instructions]"
    )(handover_command)
