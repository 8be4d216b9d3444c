"""One MCP server as its tools' callers see it: calls, resource reads and prompts, each waiting for a start or
restart under way and saying why when the server is not there.

Tool calls come from the agent's tool tasks and race the connection's end, so a server that dies mid-call ends
the call at once. The connection's lifetime is ``lifecycle.py``'s, getting it back ``recovery.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from navtui.core.errors import ToolError
from navtui.mcp.recovery import RecoveringConnection

if TYPE_CHECKING:
    from mcp import Client
    from mcp.types import CallToolResult


class ServerConnection(RecoveringConnection):
    """One configured server: start it, call its tools, read its resources, get its prompts."""

    async def call(
        self, tool: str, arguments: dict[str, Any], on_progress: Callable[[str], None] | None = None
    ) -> CallToolResult:
        """Call ``tool``; a ``ToolError`` says why when the server is unavailable, dies or answers an error.

        An HTTP server that no longer knows the session (it restarted) never ran the call: the session is
        renewed and the call made once more.
        """
        from mcp.shared.exceptions import MCPError

        try:
            return await self._call_once(tool, arguments, on_progress)
        except MCPError as exc:
            if not self.session_lost(exc):
                raise self._refused(tool, exc) from exc
            if not await self.renew_session():
                raise ToolError(
                    f"The MCP server '{self.name}' lost the session and connecting again failed: {self.error}. "
                    f"The user can run /mcp reconnect {self.name}."
                ) from exc
        try:
            return await self._call_once(tool, arguments, on_progress)
        except MCPError as exc:
            raise self._refused(tool, exc) from exc

    async def _call_once(
        self, tool: str, arguments: dict[str, Any], on_progress: Callable[[str], None] | None
    ) -> CallToolResult:
        """One call; an ``MCPError`` the server answered is raised as is (the caller decides)."""
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED

        client, generation = await self._ready_client()
        closed = self._closed

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                amount = f"{progress:g}/{total:g}" if total else f"{progress:g}"
                on_progress(f"[{amount}] {message or ''}".rstrip() + "\n")

        call = asyncio.ensure_future(
            client.call_tool(
                tool, arguments, read_timeout_seconds=self.options.call_timeout, progress_callback=progress
            )
        )
        lost = asyncio.ensure_future(closed.wait())
        try:
            done, _ = await asyncio.wait({call, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lost.cancel()
            if not call.done():
                call.cancel()  # Esc, or the connection ended: the SDK tells the server (notifications/cancelled)
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await call
        if call not in done:
            self._connection_lost(generation, "its connection closed")
            raise ToolError(self._died_message(tool))
        try:
            return call.result()
        except MCPError as exc:
            # The reference servers' "no valid session" shares its code (-32000) with the SDK's connection closed.
            if exc.code == CONNECTION_CLOSED and not self.session_lost(exc):
                self._connection_lost(generation, "it exited during a call")
                raise ToolError(self._died_message(tool)) from exc
            raise
        except Exception as exc:  # a transport failure mid-call (HTTP): the connection is gone
            self._connection_lost(generation, self._describe(exc))
            raise ToolError(f"Calling {tool} on the MCP server '{self.name}' failed: {self._describe(exc)}") from exc

    def _refused(self, tool: str, exc: Any) -> ToolError:
        from mcp.types import REQUEST_TIMEOUT

        if exc.code == REQUEST_TIMEOUT:
            return ToolError(
                f"The MCP server '{self.name}' did not answer {tool} within {self.options.call_timeout:g} s "
                "(mcp.call_timeout); the call was cancelled."
            )
        return ToolError(f"The MCP server '{self.name}' refused the call: {self._redact(exc.message)}")

    async def _ready_client(self) -> tuple[Client, int]:
        restarting = self._recovering or (self._renewing is not None and not self._renewing.done())
        if self.state == "starting" or restarting:
            wait = self.options.restart_wait if restarting else self.options.startup_timeout
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._settled.wait(), wait)
        client = self._client
        if self.state == "ready" and client is not None:
            return client, self._generation
        if self._recovering or self.state == "starting":
            raise ToolError(
                f"The MCP server '{self.name}' is restarting (it stopped a moment ago); try the call again shortly."
            )
        raise ToolError(self.unavailable())

    def unavailable(self) -> str:
        """Why this server's tools cannot be used now (it is not ready): what the model is told when it calls one."""
        name = self.name
        if self.state == "signin":
            return (
                f"The MCP server '{name}' needs the user to sign in (OAuth) before its tools can be used; "
                f"the user can run /mcp login {name}."
            )
        if self.state == "starting":
            return f"The MCP server '{name}' is still starting; try the call again shortly."
        if self.state in ("unapproved", "denied"):
            return (
                f"The MCP server '{name}' from {self.spec.path} is not approved in this repository, so its tools "
                f"are not offered; the user can run /mcp approve {name}."
            )
        if self.state == "disabled":
            return f"The MCP server '{name}' is disabled in {self.spec.path}; its tools are not offered."
        if self.state == "failed":
            return (
                f"The MCP server '{name}' is down, so its tools cannot be used now: {self.error or 'it failed'}."
                f"{self.stderr_note()}\nThe user can run /mcp reconnect {name} (after fixing what stopped it)."
            )
        return f"The MCP server '{name}' is not running; the user can run /mcp reconnect {name}."

    async def read_resource(self, uri: str) -> Any:
        """``resources/read``: the SDK's result (its ``contents``); a ``ToolError`` says why it failed."""
        from mcp.shared.exceptions import MCPError

        for attempt in (1, 2):
            client, _ = await self._ready_client()
            try:
                return await client.read_resource(uri)
            except MCPError as exc:
                if attempt == 1 and self.session_lost(exc) and await self.renew_session():
                    continue
                raise ToolError(
                    f"The MCP server '{self.name}' could not read {uri}: {self._redact(exc.message)}"
                ) from exc
            except Exception as exc:
                raise ToolError(
                    f"Reading {uri} from the MCP server '{self.name}' failed: {self._describe(exc)}"
                ) from exc
        raise AssertionError("unreachable")

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """``prompts/get``: the SDK's result (its ``messages``); a ``ToolError`` says why it failed."""
        from mcp.shared.exceptions import MCPError

        for attempt in (1, 2):
            client, _ = await self._ready_client()
            try:
                return await client.get_prompt(name, arguments)
            except MCPError as exc:
                if attempt == 1 and self.session_lost(exc) and await self.renew_session():
                    continue
                raise ToolError(
                    f"The MCP server '{self.name}' refused the prompt {name}: {self._redact(exc.message)}"
                ) from exc
            except Exception as exc:
                raise ToolError(f"Getting the prompt {name} from '{self.name}' failed: {self._describe(exc)}") from exc
        raise AssertionError("unreachable")
