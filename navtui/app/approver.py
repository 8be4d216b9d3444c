"""The UI's ``Approver``: the approval modal, awaited with ``push_screen_wait`` (nothing blocks the loop).

The agent asks from inside the turn's worker, so the modal can be awaited like any coroutine. The screen
that asked hears ``ApprovalWaiting`` (its status line says "waiting for approval" meanwhile).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message
from textual.worker import NoActiveWorker, get_current_worker

if TYPE_CHECKING:  # imported on use: the tool models are not needed for the first frame
    from textual.app import App

    from navtui.tools.approval import ApprovalRequest, ApprovalResponse


@dataclass
class ApprovalWaiting(Message):
    """Posted to the screen below the modal when it opens (``waiting``) and when it is answered."""

    waiting: bool
    what: str = ""  # the tool and its summary ("shell: make test"), for a notification


class UiApprover:
    """Created before the app (the runtime needs it); ``attach`` gives it the app once it exists."""

    def __init__(self) -> None:
        self.app: App[Any] | None = None

    def attach(self, app: App[Any]) -> None:
        self.app = app

    async def request(self, request: ApprovalRequest) -> ApprovalResponse:
        from navtui.tools.approval import ApprovalResponse

        app = self.app
        if app is None:
            return ApprovalResponse(approved=False, reason="no screen to ask on")
        try:
            get_current_worker()
        except NoActiveWorker:  # only a turn's worker can wait on a screen; anything else is a bug to surface
            return ApprovalResponse(approved=False, reason="asked outside a turn: nothing could wait for the answer")
        from navtui.app.screens.approval import ApprovalScreen

        below = app.screen
        below.post_message(ApprovalWaiting(True, f"{request.tool}: {request.summary}"))
        screen = ApprovalScreen(request)
        try:
            response = await app.push_screen_wait(screen)
        finally:
            below.post_message(ApprovalWaiting(False))
        if screen.interrupted:  # ctrl+c: the turn stops, as ctrl+c at the prompt stops it
            interrupt = getattr(getattr(app, "main_screen", None), "interrupt_running", None)
            if interrupt is not None:
                interrupt()
        if response is None:
            return ApprovalResponse(approved=False)
        if response.approved and response.rule:
            await self._save_rule(app, response.rule)
        return response

    @staticmethod
    async def _save_rule(app: App[Any], rule: str) -> None:
        """Keep an allowed command rule in the user's tools.allow, as Claude Code keeps its permission rules."""
        import asyncio

        from navtui.config.paths import user_settings_path
        from navtui.core.errors import NavtuiError

        def save() -> None:
            from navtui.config.settings import read_json_object, save_user_setting

            tools = read_json_object(user_settings_path()).get("tools", {})
            allowed = list(tools.get("allow", [])) if isinstance(tools, dict) else []
            if rule not in allowed:
                save_user_setting("tools.allow", [*allowed, rule])

        screen = getattr(app, "main_screen", None)
        try:
            await asyncio.to_thread(save)
        except (NavtuiError, OSError, ValueError) as exc:
            if screen is not None:
                screen.notice(f"{rule} is allowed for this session; it could not be saved: {exc}", level="warning")
            return
        if screen is not None:
            screen.notice(f"Allowed from now on: {rule} (tools.allow in {user_settings_path()}).")
