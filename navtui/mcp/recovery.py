"""Getting an MCP server back: a crashed server is restarted once (a second crash leaves it failed), and an HTTP
server that lost the session (it restarted, or expired it) is joined again with a new one (not a crash).

Calls made meanwhile wait for it (``connection.py``); this module only decides and restarts.
"""

from __future__ import annotations

import asyncio
import contextlib
import re

from navtui.core.wording import counted
from navtui.mcp.lifecycle import STOP_TIMEOUT, ServerLifecycle

# What an HTTP server answers when it no longer knows the client's session (it restarted, or expired it): the
# SDK's servers say 404 "Session not found" (the client says "Session terminated" for a bare 404), the
# TypeScript reference servers 400 "Bad Request: No valid session ID provided".
_SESSION_LOST = re.compile(r"session (?:not found|terminated)|no valid session", re.IGNORECASE)


class RecoveringConnection(ServerLifecycle):
    """A server connection that restarts once after a crash and renews a lost HTTP session."""

    def _connection_lost(self, generation: int, reason: str) -> None:
        """The server died or its connection broke: restart it once, else report it failed."""
        if generation != self._generation or self.state != "ready" or self._recovering:
            return
        self._recovering = True
        self._troubled = True
        self._settled.clear()
        self._crash_told = asyncio.Event()
        self._recovery = asyncio.get_running_loop().create_task(self._recover(reason), name=f"mcp-{self.name}-restart")

    async def stop(self) -> None:
        """Disconnect; a restart under way is called off first. Left running, it started the server again after
        the stop, and when the event loop ended (a headless run done while the server restarted) it was cancelled
        together with the subprocess start inside it: Python 3.11 then waits for ever for pipes never connected.

        A crash not said yet is said first: the restart is let stop the old server (what this stop would do) and
        say so, then called off. Cancelled at once, it never said it, and a short ``--print`` run that ended
        while the old server was being stopped printed nothing of the crash but the call's own result."""
        recovery, self._recovery = self._recovery, None
        if recovery is not None and not recovery.done() and recovery is not asyncio.current_task():
            told = asyncio.ensure_future(self._crash_told.wait())
            try:
                await asyncio.wait({recovery, told}, timeout=STOP_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
            finally:
                told.cancel()
            recovery.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await recovery
        await super().stop()

    async def _recover(self, reason: str) -> None:
        try:
            note = self.stderr_note()
            self._generation += 1
            await self._stop_task()
            if self._recovery is not asyncio.current_task():
                # Called off by a stop (navtui closing, a headless run's end) while the old server was stopped.
                self._tell(f"MCP server '{self.name}' stopped ({reason}).{note}")
                return
            self.state = "starting"  # its tools stay offered: a call meanwhile waits, or hears it is restarting
            if self.restarts_left <= 0:
                self._fail(f"stopped again ({reason}); not restarted. Use /mcp reconnect {self.name} to try again")
                self._crash_told.set()
                return
            self.restarts_left -= 1
            self._tell(f"MCP server '{self.name}' stopped ({reason}); restarting it once.{note}")
            await self.start()
            if self.state == "ready":
                self.notify(self, f"MCP server '{self.name}' restarted ({counted(len(self.tools), 'tool')}).", "info")
        finally:
            self._recovering = False

    def _tell(self, text: str) -> None:
        self.notify(self, text, "warning")
        self._crash_told.set()

    def session_lost(self, exc: BaseException) -> bool:
        """``exc`` says an HTTP server no longer knows this client's session (404, or the reference servers' 400)."""
        from mcp.shared.exceptions import MCPError

        return self.transport == "http" and isinstance(exc, MCPError) and bool(_SESSION_LOST.search(exc.message or ""))

    async def renew_session(self) -> bool:
        """Connect again after the server lost the session (not a crash: the restart allowance is kept).

        Calls that find the session lost at the same moment share one renewal. True when ready again.
        """
        if self._renewing is None or self._renewing.done():
            self._renewing = asyncio.ensure_future(self._renew())
        return await asyncio.shield(self._renewing)

    async def _renew(self) -> bool:
        self._generation += 1
        self._settled.clear()
        await self._stop_task()
        self.state = "starting"  # its tools stay offered meanwhile
        await self.start()
        if self.state == "ready":
            self.notify(
                self, f"MCP server '{self.name}' had lost the session (it restarted?); connected again.", "info"
            )
        return self.state == "ready"

    def _died_message(self, tool: str) -> str:
        if self.restarts_left > 0:
            after = "navtui restarts it once; the call was not retried (retry it if it is safe to run twice)."
        else:
            after = "It was already restarted once and stays stopped."
        return f"The MCP server '{self.name}' stopped during the call to {tool}. {after}{self.stderr_note()}"
