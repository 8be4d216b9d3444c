"""Slash commands for context management and the advisor: /compact, /handover, /advisor."""

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
    from navtui.agent.context import compact_now

    await stream_events(ctx, compact_now(ctx.runtime, args), "compacting")


async def handover_command(ctx: CommandContext, args: str) -> None:
    from navtui.agent.context import request_handover

    await stream_events(ctx, request_handover(ctx.runtime, args), "handing over")


async def advisor_command(ctx: CommandContext, args: str) -> None:
    runtime = ctx.runtime
    words = args.split()
    try:
        message = await runtime.advisor_command(args)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    action = words[0] if words else ""
    if action == "dump" and runtime.advisor_on and runtime.advisor.agent.messages:
        from navtui.app.screens.text_view import TextViewScreen

        title = "advisor transcript (raw)" if "raw" in words[1:] else "advisor transcript"
        ctx.app.push_screen(TextViewScreen(title, message))
    else:
        ctx.notice(message, title="advisor" if action == "status" else None)
    ctx.refresh_status()


def register(registry: CommandRegistry) -> None:
    registry.command("compact", "summarise older history to free context", args="[instructions]")(compact_command)
    registry.command(
        "handover", "have the model write notes, then restart its context from them", args="[instructions]"
    )(handover_command)
    registry.command(
        "advisor", "toggle the advisor; on [MODEL] | off | status | dump [raw]", args="[on|off|status|dump]"
    )(advisor_command)
