"""One MCP server's connection and its lifetime: started in a background task that owns the SDK client,
stopped, signed in to (OAuth), and what it printed.

The SDK's ``Client`` is an async context manager built on anyio task groups, so one task must enter and
leave it: ``_serve`` does, and waits for a stop signal in between. A stdio server's death is seen through a
pidfd even while idle, an HTTP server's when its connection fails: either ends in ``_connection_lost``, which
``recovery.py`` fills in (restart once). Calls are ``connection.py``'s; what the server offers, ``listing.py``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from navtui.core.errors import ConfigError, NavtuiError
from navtui.mcp import process
from navtui.mcp.config import ResolvedServer, ServerSpec, resolve
from navtui.mcp.listing import (
    Listing,
    ListKind,
    RemotePrompt,
    RemoteResource,
    RemoteTool,
    changed_kind,
    follow_changes,
    list_again,
    list_all,
)
from navtui.tools.shell import lifetime
from navtui.tools.shell.output import read_tail

if TYPE_CHECKING:
    from mcp import Client

    from navtui.mcp.oauth import Callback, SignIn

ServerState = Literal["starting", "ready", "failed", "stopped", "disabled", "unapproved", "denied", "signin"]
# Called on every state change with the connection; with a text when the user should be told (a notice), else None.
Notify = Callable[[Any, str | None, Literal["info", "warning", "error"]], None]

STDERR_TAIL_LINES = 12
STOP_TIMEOUT = 8.0  # the SDK's own shutdown is bounded by ~6 s (stdin close, TERM, KILL)
RELIST_GAP = 0.5  # seconds between two fetches of a list a server keeps saying changed


@dataclass
class ConnectionOptions:
    startup_timeout: float = 30.0
    call_timeout: float = 600.0
    artifacts_dir: Path = field(default_factory=lambda: Path.cwd())
    client_version: str = "0"
    restart_wait: float = 10.0  # how long a call made while its server restarts waits before saying so
    roots: tuple[Path, ...] = ()  # declared to servers that ask (roots/list): the workspace


class ServerLifecycle:
    """One server's connection state and the task that owns its client (``ServerConnection`` adds the calls)."""

    def __init__(self, spec: ServerSpec, *, base_dir: Path, token: str, options: ConnectionOptions, notify: Notify):
        self.spec = spec
        self.name = spec.name
        self.base_dir = base_dir
        self.options = options
        self.notify = notify
        self.marker = f"{token}-mcp-{spec.name}"
        self.state: ServerState = "stopped"
        self.error: str | None = None
        self.tools: list[RemoteTool] = []
        self.resources: list[RemoteResource] = []
        self.prompts: list[RemotePrompt] = []
        self.pid: int | None = None
        self.restarts_left = 1
        self.stderr_path: Path | None = None
        self._resolved: ResolvedServer | None = None
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._closed = asyncio.Event()
        self._settled = asyncio.Event()
        self._generation = 0
        self._unwatch: Callable[[], None] | None = None
        self._watched = 0  # the generation whose server ``_unwatch`` watches
        self._stderr: TextIO | None = None
        self._recovering = False  # a restart after a crash under way (recovery.py)
        self._recovery: asyncio.Task[None] | None = None  # that restart's task, called off by a stop
        self._crash_told = asyncio.Event()  # ... has said the crash (a stop waits for that before calling it off)
        self._renewing: asyncio.Task[bool] | None = None  # a lost HTTP session being renewed (recovery.py)
        self._troubled = False  # failed or crashed this session: its stderr log is kept for a look
        self._signing_in: tuple[SignIn, Callback] | None = None  # an interactive OAuth sign-in under way
        self._auth: Any = None  # an HTTP server's OAuth (navtui.mcp.oauth), when it uses it
        self._listing: set[ListKind] = set()  # lists being fetched again after a change notice
        self._changed_meanwhile: dict[ListKind, int] = {}  # ... which changed again meanwhile (in that generation)

    @property
    def transport(self) -> str:
        return self.spec.transport

    def resolved_url(self) -> str:
        """An HTTP server's URL with ``${VAR}`` expanded ("" when a variable is unset)."""
        try:
            return resolve(self.spec, os.environ, self.base_dir).url
        except ConfigError:
            return ""

    async def wait_settled(self) -> None:
        """Until a start (or restart) under way is over: ready, failed or stopped."""
        await self._settled.wait()

    # ------------------------------------------------------------------ start and stop
    async def start(self) -> None:
        """Connect and list the tools; returns when the server is ready or has failed (never raises)."""
        if self._task is not None:
            return  # starting or running
        self._generation += 1
        generation = self._generation
        self.state, self.error = "starting", None
        self._settled.clear()
        self.notify(self, None, "info")
        try:
            resolved = resolve(self.spec, os.environ, self.base_dir)
        except ConfigError as exc:
            self._fail(str(exc))
            return
        self._resolved = resolved
        self._stop, self._closed = asyncio.Event(), asyncio.Event()
        started: asyncio.Future[Listing] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._serve(resolved, started, generation), name=f"mcp-{self.name}")
        # A sign-in waits for the user in the browser: its own timeout comes on top.
        waiting = self.options.startup_timeout + (self._signing_in[0].timeout if self._signing_in else 0)
        done, _ = await asyncio.wait({started}, timeout=waiting)
        if not done:
            await self._stop_task()
            self._fail(f"did not start within {self.options.startup_timeout:g} s (mcp.startup_timeout)")
            return
        if started.exception() is not None:
            reason = self._describe(started.exception())
            await self._stop_task()
            if _sign_in_needed(started.exception()):
                self._needs_sign_in(reason)
            else:
                self._fail(reason)
            return
        if generation != self._generation:
            return  # stopped meanwhile
        listing = started.result()
        self.tools, self.resources, self.prompts = listing.tools, listing.resources, listing.prompts
        if resolved.transport == "stdio":
            self.pid = await asyncio.to_thread(process.server_pid, self.marker)
            if generation != self._generation:
                return  # stopped meanwhile
            if self.pid is not None:
                self._unwatch = process.watch_exit(self.pid, lambda: self._connection_lost(generation, "it exited"))
                self._watched = generation
        self.state = "ready"
        self._settled.set()
        self.notify(self, None, "info")

    async def stop(self) -> None:
        """Disconnect (a stdio server is asked to exit, then terminated). Safe to call in any state."""
        self._generation += 1
        await self._stop_task()
        if self.state in ("starting", "ready"):
            self.state = "stopped"
        if not self._troubled and self.stderr_path is not None:
            self.stderr_path.unlink(missing_ok=True)  # nothing went wrong: nothing to look at later
            self.stderr_path = None
        self._settled.set()
        self.notify(self, None, "info")

    async def reconnect(self) -> None:
        """Stop and start again, with a fresh restart allowance (``/mcp reconnect``)."""
        await self.stop()
        self.restarts_left = 1
        self.state = "stopped"
        await self.start()

    def _stop_watching(self, generation: int | None = None) -> None:
        """Stop watching the server's pid (only if it is ``generation``'s server, when one is named)."""
        if self._unwatch is not None and generation in (None, self._watched):
            self._unwatch()
            self._unwatch = None

    async def _stop_task(self) -> None:
        self._stop_watching()
        task, self._task = self._task, None
        if task is not None and not task.done():
            self._stop.set()
            # Connected: the SDK's own shutdown (stdin closed, then TERM, then KILL). Still connecting: cancelled at
            # once and the server sent a TERM, so quitting never waits for a slow start (the SDK's shutdown, run on
            # the cancel, gave a server busy starting 2 s to notice its stdin closed).
            connected = self._client is not None
            done, _ = await asyncio.wait({task}, timeout=STOP_TIMEOUT) if connected else (set(), set())
            if not done:
                task.cancel()
                if not connected and self._resolved is not None and self._resolved.transport == "stdio":
                    await asyncio.to_thread(process.end_server, self.marker)
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self._resolved is not None and self._resolved.transport == "stdio":
            # What the server spawned does not get the death signal; it carries the marker.
            await asyncio.to_thread(process.stop_leftovers, self.marker)
        self.pid = None

    def _fail(self, reason: str) -> None:
        self._troubled = True
        self.state = "failed"
        self.error = reason
        self._settled.set()
        self.notify(self, f"MCP server '{self.name}' failed: {reason}{self.stderr_note()}", "error")

    def _needs_sign_in(self, reason: str) -> None:
        self.state = "signin"
        self.error = reason
        self._settled.set()
        self.notify(self, f"MCP server '{self.name}' needs sign-in: {reason}", "warning")

    async def sign_in(self, how: SignIn) -> None:
        """Sign in to an HTTP server with OAuth in the browser (a fresh sign-in: stored tokens are replaced),
        then connect. The outcome is the state (``ready``, or ``failed``/``signin`` with the reason)."""
        from navtui.mcp.oauth import Callback, TokenFile, free_port, wants_oauth

        if self.transport != "http":
            raise ConfigError(f"MCP server '{self.name}' runs a command (stdio); only HTTP servers sign in")
        resolved = resolve(self.spec, os.environ, self.base_dir)
        store = TokenFile(self.name, resolved.url)
        if wants_oauth(resolved, self.spec.config.auth, store) is False:
            why = '"auth": "none"' if self.spec.config.auth == "none" else "its own Authorization header"
            raise ConfigError(
                f"OAuth is off for MCP server '{self.name}': its entry sets {why}",
                hint=f"remove that from its entry in {self.spec.path} to sign in with OAuth",
            )
        registered = store.redirect_port()
        port = free_port(registered)
        if port != registered:
            store.drop_client()  # its redirect URI names a port that is not free now: register again
        store.drop_tokens()
        await self.stop()
        self.restarts_left = 1
        async with Callback(port) as callback:
            self._signing_in = (how, callback)
            try:
                await self.start()
            except asyncio.CancelledError:  # the user stopped waiting (Esc)
                self._generation += 1
                await self._stop_task()
                self.state, self.error = "signin", f"the sign-in was stopped; /mcp login {self.name} starts it again"
                self._settled.set()
                raise
            finally:
                self._signing_in = None
                if self._auth is not None:
                    self._auth.end_sign_in()

    # ------------------------------------------------------------------ the task that owns the client
    async def _serve(self, resolved: ResolvedServer, started: asyncio.Future[Listing], generation: int) -> None:
        from mcp import Client
        from mcp.types import Implementation

        _quiet_sdk_logging()
        stop, closed = self._stop, self._closed
        follower: asyncio.Task[None] | None = None
        try:
            async with contextlib.AsyncExitStack() as stack:
                transport = await self._transport(resolved, stack)
                info = Implementation(name="navtui", version=self.options.client_version)
                client = await stack.enter_async_context(
                    Client(
                        transport,
                        client_info=info,
                        list_roots_callback=self._list_roots,
                        message_handler=lambda message: self._on_message(message, generation),
                    )
                )
                # Leaving, however it is left, ends the server: from the first step out, its exit is that ending,
                # not a crash (a crash that ends the task is reported below, from its exception). The SDK closes
                # the server's stdin and polls for its exit, so the watcher would see it first.
                stack.callback(self._stop_watching, generation)
                listing = await list_all(client)
                self._client = client
                started.set_result(listing)
                follower = asyncio.ensure_future(follow_changes(client, lambda kind: self._changed(kind, generation)))
                try:
                    await stop.wait()
                finally:
                    follower.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await follower
        except asyncio.CancelledError:
            # Ended from outside: a stop, or its event loop closing. The server's exit that follows is not a crash
            # to recover from by starting it again.
            self._generation += 1
            raise
        except Exception as exc:
            if not started.done():
                started.set_exception(exc)
            else:
                self._connection_lost(generation, self._describe(exc))
        finally:
            self._client = None
            closed.set()

    async def _transport(self, resolved: ResolvedServer, stack: contextlib.AsyncExitStack) -> Any:
        if resolved.transport == "http":
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            from navtui.mcp.oauth import http_auth

            how, callback = self._signing_in or (None, None)
            self._auth = http_auth(resolved, self.spec.config.auth, how, callback)
            # The SDK's recommended timeouts: a response stream may stay open for minutes.
            timeout = httpx2.Timeout(30.0, read=300.0)
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=dict(resolved.headers), timeout=timeout, auth=self._auth)
            )
            return streamable_http_client(resolved.url, http_client=http)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        command, args = process.launch_command(resolved.command, resolved.args)
        params = StdioServerParameters(
            command=command,
            args=args,
            env=lifetime.marked_env(resolved.env, self.marker),
            cwd=resolved.cwd,
        )
        return stdio_client(params, errlog=self._open_stderr(stack))

    def _open_stderr(self, stack: contextlib.AsyncExitStack) -> TextIO:
        """The server's stderr goes to a private file (its tail explains a failure), appended across restarts.

        The file is open while the task that owns the client runs: ``stack`` closes it however that task ends (stopped,
        failed, or cancelled with its event loop), so a connection dropped without a stop leaves no open file behind.
        """
        if self.stderr_path is None:
            directory = self.options.artifacts_dir
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            # mcp-<date>-<time>-<owner>-...: the shape artifacts pruning reads the owner from (tools/shell/artifacts.py).
            self.stderr_path = directory / f"mcp-{time.strftime('%Y%m%d-%H%M%S')}-{self.marker}.log"
        fd = os.open(self.stderr_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        file = open(fd, "w", encoding="utf-8")  # noqa: SIM115 - closed by ``stack``
        self._stderr = file
        stack.callback(self._close_stderr, file)
        return file

    def _close_stderr(self, file: TextIO) -> None:
        file.close()
        if self._stderr is file:
            self._stderr = None

    def stderr_tail(self) -> str:
        if self.stderr_path is None:
            return ""
        if self._stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                self._stderr.flush()
        tail = read_tail(self.stderr_path, 4096, STDERR_TAIL_LINES).strip()
        return self._redact(tail)

    def stderr_note(self) -> str:
        tail = self.stderr_tail()
        return f"\nIts stderr ended with:\n{tail}" if tail else ""

    def _connection_lost(self, generation: int, reason: str) -> None:
        """The server died or its connection broke (``generation`` names the connection): ``recovery.py``."""

    # ------------------------------------------------------------------ roots and changing lists
    async def _list_roots(self, context: Any) -> Any:
        """The workspace, as the roots a server may work in (``roots/list``)."""
        from mcp.types import ListRootsResult, Root

        roots = [
            Root.model_validate({"uri": root.resolve().as_uri(), "name": root.name}) for root in self.options.roots
        ]
        return ListRootsResult(roots=roots)

    async def _on_message(self, message: Any, generation: int) -> None:
        """A 2025-protocol server's ``notifications/*/list_changed`` (sent without being asked)."""
        kind = changed_kind(message)
        if kind is not None:
            await self._changed(kind, generation)

    async def _changed(self, kind: ListKind, generation: int) -> None:
        """A list changed: fetch it again, unless that is under way; then once more, ``RELIST_GAP`` after it,
        however many notices came meanwhile (a server sending thousands had as many lists fetched at once, and
        the tools registered again for each)."""
        if kind in self._listing:
            self._changed_meanwhile[kind] = generation
            return
        self._listing.add(kind)
        asyncio.ensure_future(self._refresh_while_changed(kind, generation))

    async def _refresh_while_changed(self, kind: ListKind, generation: int) -> None:
        try:
            while True:
                await self._refresh(kind, generation)
                if kind not in self._changed_meanwhile:
                    return
                await asyncio.sleep(RELIST_GAP)  # a flood keeps coming: what it says meanwhile is one more fetch
                generation = self._changed_meanwhile.pop(kind)
        finally:
            self._listing.discard(kind)
            self._changed_meanwhile.pop(kind, None)

    async def _refresh(self, kind: ListKind, generation: int) -> None:
        client = self._client
        if client is None or generation != self._generation or self.state != "ready":
            return
        try:
            fresh = await list_again(client, kind)
        except Exception:  # the connection's end is handled where it is seen; a failed re-list keeps the old one
            return
        # Only the list that changed: re-lists of the other kinds may be under way at the same moment.
        setattr(self, kind, fresh)
        if generation == self._generation and self.state == "ready":
            self.notify(self, None, "info")

    # ------------------------------------------------------------------ messages
    def _redact(self, text: str) -> str:
        return self._resolved.redact(text) if self._resolved is not None else text

    def _describe(self, exc: BaseException | None) -> str:
        """One line for a failure, with no configured secret in it."""
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED

        from navtui.mcp.oauth import NeedsSignIn

        leaf = _find(exc, NeedsSignIn) or _leaf(exc)
        if isinstance(leaf, NeedsSignIn | NavtuiError):
            text = str(leaf)
        elif isinstance(leaf, MCPError):
            text = "it exited during start-up" if leaf.code == CONNECTION_CLOSED else leaf.message
        elif isinstance(leaf, OSError) and leaf.strerror:
            text = leaf.strerror
        elif leaf is None:
            text = "unknown error"
        else:
            text = f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__
        if self._resolved is not None and self._resolved.transport == "http" and "connect" in text.lower():
            text = f"cannot connect to {self.spec.target}: {text}"
        return self._redact(text)


def _find(exc: BaseException | None, kind: type[BaseException]) -> BaseException | None:
    """The first ``kind`` inside ``exc`` (exception groups, causes and contexts included)."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        current = todo.pop(0)
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, kind):
            return current
        if isinstance(current, BaseExceptionGroup):
            todo.extend(current.exceptions)
        todo.extend([current.__cause__, current.__context__])
    return None


def _sign_in_needed(exc: BaseException | None) -> bool:
    from navtui.mcp.oauth import NeedsSignIn

    return _find(exc, NeedsSignIn) is not None


def _leaf(exc: BaseException | None) -> BaseException | None:
    """The first real error inside (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _quiet_sdk_logging() -> None:
    """The SDK logs transport trouble; with no handler Python would print it over the screen. navtui reports
    failures itself (notices with the server's stderr)."""
    logger = logging.getLogger("mcp")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
        logger.propagate = False
