"""/advisor [on [MODEL]|off|status|dump [raw]]: the second model that reviews each turn.

The argument parsing and every message the user reads live here; the runtime only starts and stops the
advisor. Choices are remembered in the user's settings.
"""

from __future__ import annotations

from navtui.app.commands.registry import CommandContext, CommandRegistry
from navtui.app.ui_runtime import UiRuntime
from navtui.core.errors import NavtuiError

NO_MODEL = "Advisor setting enabled, but no model is assigned to the 'advisor' role."


async def advisor_reply(runtime: UiRuntime, argument: str) -> str:
    """Carry out ``/advisor ARGUMENT`` (no argument toggles) and return the message to show."""
    from navtui.config.settings import save_user_setting

    words = argument.split()
    action = words[0] if words else ("off" if runtime.advisor_on else "on")
    settings = runtime.settings
    if action == "on":
        model = words[1] if len(words) > 1 else None
        if model:
            settings.model_roles["advisor"] = model
            save_user_setting("model_roles.advisor", model)
        settings.advisor.enabled = True
        save_user_setting("advisor.enabled", True)
        if not settings.model_roles.get("advisor"):
            return f"{NO_MODEL} Use /advisor on MODEL or set model_roles.advisor in settings."
        advisor = runtime.start_advisor(seed=True)
        return f"Advisor enabled ({advisor.provider.label})."
    if action == "off":
        settings.advisor.enabled = False
        save_user_setting("advisor.enabled", False)
        await runtime.stop_advisor()
        return "Advisor disabled."
    if action == "status":
        if runtime.advisor is None:
            return NO_MODEL if settings.advisor.enabled else "Advisor is off. Turn it on with /advisor on [MODEL]."
        return runtime.advisor.status_text()
    if action == "dump":
        if runtime.advisor is None:
            return "Advisor is not active for this session."
        return runtime.advisor.dump(raw=len(words) > 1 and words[1] == "raw")
    raise NavtuiError(f"Unknown /advisor argument '{action}'", hint="use on [MODEL], off, status or dump [raw]")


async def advisor_command(ctx: CommandContext, args: str) -> None:
    runtime = ctx.runtime
    words = args.split()
    try:
        message = await advisor_reply(runtime, args)
    except NavtuiError as exc:
        ctx.error(exc.message, exc.hint)
        return
    action = words[0] if words else ""
    if action == "dump" and runtime.advisor is not None and runtime.advisor.agent.messages:
        from navtui.app.screens.text_view import TextViewScreen

        title = "advisor transcript (raw)" if "raw" in words[1:] else "advisor transcript"
        ctx.app.push_screen(TextViewScreen(title, message))
    else:
        ctx.notice(message, title="advisor" if action == "status" else None)
    ctx.refresh_status()


def register(registry: CommandRegistry) -> None:
    registry.command(
        "advisor", "toggle the advisor; on [MODEL] | off | status | dump [raw]", args="[on|off|status|dump]"
    )(advisor_command)
