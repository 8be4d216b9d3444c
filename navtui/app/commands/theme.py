"""/theme [name] and ctrl+t: the theme picker (navtui.app.screens.theme_picker) with live preview."""

from __future__ import annotations

import asyncio

from navtui.app.commands import CommandContext, CommandRegistry


def _persist(name: str) -> None:
    from navtui.config.settings import save_user_setting

    save_user_setting("ui.theme", name)


async def _apply(ctx: CommandContext, name: str) -> None:
    ctx.app.theme = name
    try:
        await asyncio.to_thread(_persist, name)
    except Exception as exc:  # the theme is applied either way; only remembering it failed
        ctx.notice(f"Theme {name} applied but not saved: {exc}", level="warning")
        return
    ctx.notice(f"Theme: {name} (saved in your settings)")


async def theme_names(ctx: CommandContext) -> list[str]:
    registry = getattr(ctx.app, "theme_registry", None)
    return list(registry.names()) if registry is not None else sorted(ctx.app.available_themes)


async def theme_command(ctx: CommandContext, args: str) -> None:
    app = ctx.app
    names = await theme_names(ctx)
    if args:
        if app.get_theme(args) is None:
            ctx.notice(f'Theme not found: "{args}". Available: {", ".join(names)}', level="warning")
            return
        await _apply(ctx, args)
        return
    from navtui.app.screens.theme_picker import ThemePickerScreen

    def chosen(name: str | None) -> None:
        if name:
            app.run_worker(_apply(ctx, name), group="theme-save")

    app.push_screen(ThemePickerScreen(names, current=app.theme), callback=chosen)


def register(registry: CommandRegistry) -> None:
    registry.command(
        "theme", "pick a theme (live preview), or switch to NAME", args="[name]", key="ctrl+t", arguments=theme_names
    )(theme_command)
