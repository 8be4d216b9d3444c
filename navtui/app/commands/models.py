"""/models: the model picker (ctrl+l), and ``/models pull NAME``, a download on the Ollama server with a
progress bar in the transcript (Ollama's pull stream), so a missing model is one command away."""

from __future__ import annotations

import asyncio
import time

from navtui.app.commands import CommandContext, CommandRegistry
from navtui.core.errors import NavtuiError
from navtui.widgets.items import PullItem
from navtui.widgets.pull_card import PullCard, human_bytes

REFRESH_SECONDS = 0.1  # at most this often a progress line repaints the card (Ollama sends many per second)


async def models_command(ctx: CommandContext, args: str) -> None:
    words = args.split()
    if words and words[0] == "pull":
        if len(words) != 2:
            ctx.notice("Usage: /models pull NAME — download a model to Ollama (e.g. /models pull qwen2.5-coder:7b)")
            return
        await pull_model(ctx, words[1])
        return
    if words:
        ctx.notice(f"Unknown /models argument '{words[0]}'. /models lists models; /models pull NAME downloads one.")
        return
    from navtui.app.commands.builtin import switch_model
    from navtui.app.screens.models import ModelsScreen

    listed_by = ctx.runtime.provider.name  # the picker lists this server's models: a pick of one stays on it
    picker = ModelsScreen(ctx.runtime)

    def chosen(name: str | None) -> None:
        if name:
            # A model only the settings name (the advisor's) goes where its name says, as `/model NAME` does.
            provider = listed_by if name in picker.listed else None
            ctx.app.run_worker(switch_model(ctx, name, provider), group="switch-model", exclusive=True)

    ctx.app.push_screen(picker, callback=chosen)


async def pull_model(ctx: CommandContext, name: str) -> None:
    """Download ``name`` with a progress card; Esc stops it (Ollama keeps what it got and resumes next time)."""
    runtime = ctx.runtime
    item = PullItem(name)
    card = ctx.transcript.add(item)
    task = asyncio.current_task()

    def stop() -> None:
        if task is not None:
            task.cancel()

    ctx.set_activity(True, f"pulling {name}", cancel=stop)
    size = 0
    shown = 0.0
    try:
        async for progress in runtime.pull_model(name):
            item.status = progress.status
            if progress.total and progress.total > 1_000_000:  # the model's big layer, not its small files
                item.completed, item.total = progress.completed, progress.total
                size = max(size, progress.total)
            now = time.monotonic()
            if isinstance(card, PullCard) and (now - shown >= REFRESH_SECONDS or progress.done):
                shown = now
                card.update_from(item)
        item.state, item.message = "done", f"{human_bytes(size)} · " if size else ""
        current = runtime.provider.model
        item.message += "ready" if name == current else f"/model {name} switches to it"
    except asyncio.CancelledError:
        item.state, item.message = "cancelled", "stopped; /models pull again resumes it"
    except NavtuiError as exc:
        item.state, item.message = "failed", exc.message + (f" ({exc.hint})" if exc.hint else "")
    finally:
        ctx.set_activity(False)
        if isinstance(card, PullCard):
            card.update_from(item)
    if item.state == "done":
        ctx.forget_arguments("model")  # /model's completion lists the new one
        if name == runtime.provider.model:
            status = await runtime.check_provider()
            if status.ok:
                ctx.notice(f"{name} is ready: send a message.")
        ctx.refresh_status()


async def models_arguments(ctx: CommandContext) -> list[str]:
    return ["pull"]


def register(registry: CommandRegistry) -> None:
    registry.command(
        "models",
        "pick a model from those available; pull NAME downloads one (Ollama)",
        args="[pull NAME]",
        key="ctrl+l",
        arguments=models_arguments,
    )(models_command)
