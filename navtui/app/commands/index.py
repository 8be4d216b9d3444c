"""/index: (re)build the repository index in the background, with progress in the status line."""

from __future__ import annotations

import asyncio
from typing import Any

from navtui.app.commands import CommandContext, CommandRegistry

PHASES = {"scan": "scanning", "index": "indexing", "embed": "embedding"}


async def index_command(ctx: CommandContext, args: str) -> None:
    from navtui.index import build_index, index_root

    screen: Any = ctx
    root = index_root(ctx.runtime.cwd)
    loop = asyncio.get_running_loop()
    last = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        now = loop.time()
        if now - last[0] < 0.1 and done < total:  # at most ten status repaints a second
            return
        last[0] = now
        label = f"{PHASES.get(phase, phase)} {done}/{total}" if total else PHASES.get(phase, phase)
        loop.call_soon_threadsafe(screen.set_activity, True, label)

    screen.set_activity(True, "indexing")
    try:
        stats = await asyncio.to_thread(build_index, root, progress=progress)
    except Exception as exc:  # an unreadable tree or a locked database: say so, keep the app
        ctx.error(f"Indexing failed: {exc}", "run `navtui index` in a terminal for details")
        return
    finally:
        screen.set_activity(False)
    for notice in stats.notices:
        ctx.notice(notice, level="warning")
    ctx.notice(f"Index updated: {stats.summary()}")


def register(registry: CommandRegistry) -> None:
    registry.command("index", "rebuild the repository index (.navtui/index.sqlite) in the background")(index_command)
