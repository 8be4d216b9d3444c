"""The UI's ``Approver``: a modal and a Future (the agent awaits it; nothing blocks the loop)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported on use: the tool models are not needed for the first frame
    from navtui.tools.approval import ApprovalRequest, ApprovalResponse


class UiApprover:
    """Created before the app (the runtime needs it); ``attach`` gives it the app once it exists."""

    def __init__(self) -> None:
        self.app: Any = None

    def attach(self, app: Any) -> None:
        self.app = app

    async def request(self, request: ApprovalRequest) -> ApprovalResponse:
        from navtui.tools.approval import ApprovalResponse

        if self.app is None:
            return ApprovalResponse(approved=False, reason="no screen to ask on")
        from navtui.app.screens.approval import ApprovalScreen

        future: asyncio.Future[ApprovalResponse] = asyncio.get_running_loop().create_future()

        def answered(response: ApprovalResponse | None) -> None:
            if not future.done():
                future.set_result(response or ApprovalResponse(approved=False))

        waiting = getattr(self.app.screen, "show_waiting", None)  # the main screen's status line
        if waiting is not None:
            waiting(True)
        self.app.push_screen(ApprovalScreen(request), callback=answered)
        try:
            return await future
        finally:
            if waiting is not None:
                waiting(False)
