"""Every MCP server of one navtui session: which may start, starting them in the background, their tools
in the session's tool registry, and what to tell the user about them.

The user's servers start on their own. A repository's servers start only once the user approved them
(remembered per repository and server in ``TrustStore``), or for one run with ``--mcp-trust``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from navtui.core.errors import NavtuiError
from navtui.mcp import process
from navtui.mcp.config import McpConfig, ServerSpec
from navtui.mcp.connection import ServerConnection
from navtui.mcp.lifecycle import ConnectionOptions, ServerState
from navtui.mcp.paths import project_root, user_config_path
from navtui.mcp.prompts import PROMPT_LIMIT, PromptCommand, prompt_text
from navtui.mcp.resources import READ_TOOL, ReadMcpResourceTool
from navtui.mcp.search import SEARCH_TOOL, McpToolSearch
from navtui.mcp.tool import McpTool
from navtui.mcp.trust import TrustStore
from navtui.tools.base import ToolRegistry

if TYPE_CHECKING:
    from navtui.mcp.oauth import SignIn

Level = Literal["info", "warning", "error"]
# Told about every notice (a text) and every state change (None), on the event loop.
Listener = Callable[[str | None, Level], None]

# Shares of the context window MCP tool schemas may take: past the first say so, past the second the
# largest servers' tools are left out of requests until the rest fit.
WARN_SHARE = 0.25
MAX_SHARE = 0.5
# How long a request waits for servers still starting (after that their tools join when they are ready).
REQUEST_WAIT = 10.0


@dataclass(frozen=True)
class ServerStatus:
    """What ``/mcp`` and ``navtui mcp list`` show of one server."""

    name: str
    source: str
    transport: str
    target: str
    state: ServerState
    tools: tuple[str, ...]  # the server's names of the tools offered to the model
    hidden: int  # tools left out by mcp.tools allow/deny
    withheld: bool  # connected, but its tools do not fit the context window
    resources: tuple[str, ...]  # the URIs it lists
    prompts: tuple[str, ...]  # the slash commands its prompts are offered as
    error: str | None
    config_path: Path


def manager_for(
    config: McpConfig,
    cwd: Path,
    settings: Any,
    tools: ToolRegistry,
    artifacts_dir: Path,
    *,
    trust_project: bool = False,
) -> McpManager:
    """The session's manager for ``config`` (``navtui.mcp.startup.build_manager`` reads it)."""
    from navtui import __version__

    options = ConnectionOptions(
        startup_timeout=settings.mcp.startup_timeout,
        call_timeout=settings.mcp.call_timeout,
        artifacts_dir=artifacts_dir,
        client_version=__version__,
    )
    return McpManager(config, cwd=cwd, tools=tools, settings=settings.mcp, options=options, trust_project=trust_project)


def import_sdk() -> None:
    """The SDK takes ~0.5 s to import: done in a thread before the first server starts."""
    import jsonschema.validators  # noqa: F401  (checks the servers' tool schemas: 0.26 s)
    import mcp.client.stdio  # noqa: F401
    import mcp.client.streamable_http  # noqa: F401


class McpManager:
    def __init__(
        self,
        config: McpConfig,
        *,
        cwd: Path,
        tools: ToolRegistry,
        settings: Any,
        options: ConnectionOptions,
        trust: TrustStore | None = None,
        trust_project: bool = False,
    ) -> None:
        self.cwd = cwd
        self.root = project_root(cwd)
        options = replace(options, roots=options.roots or (cwd,))  # the workspace, declared to servers that ask
        self.registry = tools
        self.settings = settings  # the ``mcp`` settings section
        self.trust = trust or TrustStore()
        self.token = process.new_token()
        self.listener: Listener | None = None
        self.notices: list[tuple[str, Level]] = [(warning, "warning") for warning in config.warnings]
        self.connections: dict[str, ServerConnection] = {}
        self.withheld: set[str] = set()
        self.loaded: set[str] = set()  # tools of withheld servers the model loaded with mcp_tool_search
        self._exposed: dict[str, list[str]] = {}
        self._starting: asyncio.Task[None] | None = None  # the first start of every server, once begun
        self._fitted: frozenset[str] | None = None  # the tool names the last window check saw
        self.request_wait = REQUEST_WAIT
        self._said_stuck: set[str] = set()
        self._said_invalid: set[tuple[str, str, str]] = set()
        for spec in config.servers:
            base_dir = self.root if spec.source == "project" else cwd
            connection = ServerConnection(
                spec, base_dir=base_dir, token=self.token, options=options, notify=self._event
            )
            connection.state = self._initial_state(spec, trust_project)
            self.connections[spec.name] = connection
        tools.explain_missing(self.why_unavailable)

    def _initial_state(self, spec: ServerSpec, trust_project: bool) -> ServerState:
        if spec.config.disabled:
            return "disabled"
        if spec.source == "user" or trust_project:
            return "stopped"
        decision = self.trust.decision(self.root, spec)
        return "stopped" if decision == "allow" else "denied" if decision == "deny" else "unapproved"

    # ------------------------------------------------------------------ lifecycle
    def start_soon(self) -> asyncio.Task[None]:
        """Begin starting every server that may start (once); the task ends when each is ready or has failed."""
        if self._starting is None:
            startable = [c for c in self.connections.values() if c.state == "stopped"]
            self._starting = asyncio.ensure_future(self._start(startable))
        return self._starting

    async def start(self) -> None:
        """Start every server that may start, at once; returns when each is ready or has failed."""
        await self.start_soon()

    async def start_one(self, name: str) -> None:
        """Start one server that may start (``navtui mcp get``); returns when it is ready or has failed."""
        connection = self.require(name)
        if connection.state == "stopped":
            await self._start([connection])

    async def _start(self, connections: list[ServerConnection]) -> None:
        if not connections:
            return
        for connection in connections:
            connection.state = "starting"  # shown while the SDK is imported
        self._changed()
        await asyncio.to_thread(import_sdk)
        for connection in connections:
            connection.state = "stopped"
        await asyncio.gather(*(connection.start() for connection in connections))

    async def before_request(self, window: int | None) -> list[tuple[str, Level]]:
        """Before the agent asks the model: servers started (or given a moment to), then what to tell the
        user: failures not shown yet, and whether the tool schemas fit ``window``."""
        starting = self.start_soon()
        if not starting.done():  # the first request: give the servers a moment, never the whole start-up timeout
            await asyncio.wait({starting}, timeout=self.request_wait)
        else:
            await self.wait_starting(self.request_wait)  # a restart or a reconnect under way
        notices = self.take_notices()
        notices.extend((text, "warning") for text in self._stuck_notices())
        offered = frozenset(name for names in self._exposed.values() for name in names)
        if offered != self._fitted:
            fit = self.fit_window(window)
            if fit is not None:
                notices.append((fit, "warning"))
            self._fitted = frozenset(name for names in self._exposed.values() for name in names)
        return notices

    def _stuck_notices(self) -> list[str]:
        """Servers still starting after a request's wait: named once each, with what they printed so far."""
        out: list[str] = []
        for connection in self.connections.values():
            if connection.state != "starting" or connection.name in self._said_stuck:
                continue
            self._said_stuck.add(connection.name)
            tail = connection.stderr_tail()
            printed = f" It printed:\n{tail}" if tail else " It has printed nothing yet."
            out.append(
                f"MCP server '{connection.name}' is still starting after {self.request_wait:g} s; requests go ahead "
                f"without its tools until it is ready (at most mcp.startup_timeout = "
                f"{connection.options.startup_timeout:g} s).{printed}"
            )
        return out

    async def wait_starting(self, seconds: float) -> None:
        """Wait (at most ``seconds``) for servers still starting, so a first request has their tools."""
        starting = [c for c in self.connections.values() if c.state == "starting"]
        if not starting:
            return
        waiters = [asyncio.ensure_future(c.wait_settled()) for c in starting]
        try:
            await asyncio.wait(waiters, timeout=seconds)
        finally:
            for waiter in waiters:
                waiter.cancel()

    async def reconnect(self, name: str) -> ServerConnection:
        connection = self._may_start(name)
        self.withheld.discard(name)
        self._sync_search_tool()
        await asyncio.to_thread(import_sdk)
        await connection.reconnect()
        return connection

    def _may_start(self, name: str) -> ServerConnection:
        connection = self.require(name)
        if connection.state in ("unapproved", "denied", "disabled"):
            raise NavtuiError(
                f"MCP server '{name}' is {connection.state}",
                hint=f"/mcp approve {name} first"
                if connection.state != "disabled"
                else f'remove "disabled" from its entry in {connection.spec.path}',
            )
        return connection

    async def sign_in(self, name: str, how: SignIn) -> ServerConnection:
        """Sign in to an HTTP server with OAuth (the browser), then connect it (``/mcp login``)."""
        connection = self._may_start(name)
        if connection.transport != "http":
            raise NavtuiError(
                f"MCP server '{name}' runs a command (stdio): there is nothing to sign in to",
                hint="OAuth sign-in is for HTTP servers (an entry with a url)",
            )
        self.withheld.discard(name)
        await asyncio.to_thread(import_sdk)
        await connection.sign_in(how)
        return connection

    def signed_in(self, name: str) -> bool:
        """Whether OAuth tokens are stored for this server (a sign-in to a server that never asked stores none)."""
        from navtui.mcp.oauth import TokenFile

        connection = self.require(name)
        return connection.transport == "http" and TokenFile(name, connection.resolved_url()).has_tokens()

    async def sign_out(self, name: str) -> bool:
        """Forget an HTTP server's OAuth tokens and registered client, and disconnect it (``/mcp logout``).
        False when none were stored."""
        from navtui.mcp.oauth import forget

        connection = self.require(name)
        removed = forget(name)
        if connection.state in ("ready", "starting", "signin"):
            await connection.stop()
            connection.state, connection.error = "signin", f"signed out; sign in with /mcp login {name}"
            self._event(connection, None, "info")
        return removed

    async def aclose(self) -> None:
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()  # quitting while servers start: no waiting for them
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._starting
        await asyncio.gather(*(c.stop() for c in self.connections.values() if c.state in ("starting", "ready")))

    # ------------------------------------------------------------------ a repository's servers
    def unapproved(self) -> list[ServerSpec]:
        return [c.spec for c in self.connections.values() if c.state == "unapproved"]

    async def approve(self, name: str, *, remember: bool) -> ServerConnection:
        connection = self.require(name)
        if remember:
            self.trust.remember(self.root, connection.spec, "allow")
        connection.state = "stopped"
        await self._start([connection])
        return connection

    def deny(self, name: str, *, remember: bool) -> None:
        connection = self.require(name)
        if remember:
            self.trust.remember(self.root, connection.spec, "deny")
        connection.state = "denied" if remember else "unapproved"
        self._changed()

    def skipped_notice(self) -> str | None:
        """Headless runs do not ask: which of the repository's servers were skipped, and how to allow them."""
        skipped = self.unapproved()
        if not skipped:
            return None
        names = ", ".join(f"'{spec.name}'" for spec in skipped)
        return (
            f"MCP server{'s' * (len(skipped) != 1)} {names} from {skipped[0].path} not started: a repository's servers run only after "
            f"you approve them. Approve them once in navtui (interactive), run with --mcp-trust, "
            f"or define them in {user_config_path()}."
        )

    # ------------------------------------------------------------------ tools and the context window
    def _event(self, connection: ServerConnection, text: str | None, level: Level) -> None:
        self._sync_tools(connection)
        if text:
            self._notice(text, level)
        else:
            self._changed()

    def _sync_tools(self, connection: ServerConnection) -> None:
        if connection.state == "starting":
            return  # a restart keeps the names registered; calls wait for it
        self._sync_read_tool()
        for name in self._exposed.pop(connection.name, []):
            self.registry.remove(name)
        if connection.state != "ready":
            return
        self._say_invalid(connection)
        exposed: list[str] = []
        for remote in self.offered(connection):
            tool = McpTool(connection, remote)
            if connection.name in self.withheld and tool.name not in self.loaded:
                continue  # found through mcp_tool_search
            if tool.name in self.registry:
                self._notice(f"MCP tool {tool.name} has the name of another tool; it is not offered", "warning")
                continue
            self.registry.add(tool)
            exposed.append(tool.name)
        self._exposed[connection.name] = exposed

    def _say_invalid(self, connection: ServerConnection) -> None:
        """Name each tool left out for its schema, once (a provider would refuse every request that offered it)."""
        for remote in connection.tools:
            said = (connection.name, remote.name, remote.problem or "")
            if remote.problem is None or said in self._said_invalid:
                continue
            self._said_invalid.add(said)
            self._notice(
                f"MCP tool '{remote.name}' of '{connection.name}' is not offered to the model: its input schema is "
                f"invalid ({remote.problem}), and a provider refuses every request that carries it",
                "warning",
            )

    def why_unavailable(self, tool: str) -> str | None:
        """What a call to ``mcp__<server>__<tool>`` hears when the tool is not offered because its server is not
        running (failed, restarting, needs sign-in, not approved) or is searched for; None for any other name."""
        from navtui.mcp.tool import PREFIX

        servers = [c for c in self.connections.values() if tool.startswith(f"{PREFIX}{c.name}__")]
        if not servers:
            return None
        connection = max(servers, key=lambda c: len(c.name))  # "a__b" before "a" when both are configured
        if connection.state != "ready":
            return connection.unavailable()
        if connection.name in self.withheld and any(t.name == tool for t in self.deferred_tools()):
            return f"{tool} is not loaded yet: call {SEARCH_TOOL} with words from its purpose to load it first."
        return None

    def deferred_tools(self) -> list[McpTool]:
        """The tools of servers left out for the window, not loaded yet."""
        return [
            tool
            for name in sorted(self.withheld)
            if (connection := self.connections[name]).state == "ready"
            for tool in (McpTool(connection, remote) for remote in self.offered(connection))
            if tool.name not in self.loaded
        ]

    def load_deferred(self, names: list[str]) -> None:
        """Offer these tools of withheld servers from the next request on."""
        self.loaded.update(names)
        for name in self.withheld:
            self._sync_tools(self.connections[name])

    def _sync_search_tool(self) -> None:
        if SEARCH_TOOL in self.registry:
            self.registry.remove(SEARCH_TOOL)
        if self.withheld:
            self.registry.add(McpToolSearch(self))  # its description names the servers it searches

    def _sync_read_tool(self) -> None:
        """``read_mcp_resource`` is offered while a running server has resources."""
        wanted = any(c.state == "ready" and c.resources for c in self.connections.values())
        present = READ_TOOL in self.registry
        if wanted and not present:
            self.registry.add(ReadMcpResourceTool(self))
        elif present and not wanted and isinstance(self.registry.get(READ_TOOL), ReadMcpResourceTool):
            self.registry.remove(READ_TOOL)

    # ------------------------------------------------------------------ prompts and resources
    def prompt_commands(self) -> list[PromptCommand]:
        """Every running server's prompts, as slash commands."""
        return [
            PromptCommand(c.name, prompt)
            for c in self.connections.values()
            if c.state == "ready"
            for prompt in c.prompts
        ]

    async def expand_prompt(self, command: PromptCommand, text: str) -> str:
        """The prompt's text from its server, with ``text`` as its arguments (raises with the usage)."""
        arguments = command.arguments(text)
        result = await self.require(command.server).get_prompt(command.prompt.name, arguments)
        prompt = prompt_text(result)
        if prompt.cut:
            self._notice(
                f"The prompt /{command.name} from '{command.server}' is {prompt.size:,} characters in "
                f"{prompt.messages:,} messages: only the first {PROMPT_LIMIT:,} characters are sent",
                "warning",
            )
        return prompt.text

    def resource_names(self) -> list[tuple[str, str]]:
        """``server:uri`` and a description of each resource a running server lists (for completion)."""
        out: list[tuple[str, str]] = []
        for connection in self.connections.values():
            if connection.state != "ready":
                continue
            for resource in connection.resources:
                about = resource.description or resource.name
                out.append((f"{connection.name}:{resource.uri}", about))
        return out

    def offered(self, connection: ServerConnection) -> list[Any]:
        """The server's tools minus what ``mcp.tools.<server>`` allow/deny leave out."""
        rules = getattr(self.settings, "tools", {}).get(connection.name)
        allow = getattr(rules, "allow", None)
        deny = getattr(rules, "deny", None) or []
        return [
            remote
            for remote in connection.tools
            if remote.problem is None
            and (allow is None or any(fnmatch.fnmatchcase(remote.name, glob) for glob in allow))
            and not any(fnmatch.fnmatchcase(remote.name, glob) for glob in deny)
        ]

    def tool_tokens(self) -> dict[str, int]:
        """Estimated tokens of each ready server's offered tool schemas (what they cost in every request)."""
        out: dict[str, int] = {}
        for connection in self.connections.values():
            if connection.state == "ready":
                specs = [McpTool(connection, remote).spec().model_dump() for remote in self.offered(connection)]
                out[connection.name] = (len(json.dumps(specs).encode("utf-8")) + 3) // 4
        return out

    def fit_window(self, window: int | None) -> str | None:
        """Leave the largest servers' tools out while MCP schemas take more than half of ``window``.

        Returns the notice to show (also past a quarter), naming the servers and the setting that trims them.
        """
        if not window:
            return None
        sizes = self.tool_tokens()
        total = sum(size for name, size in sizes.items() if name not in self.withheld)
        if total <= window * WARN_SHARE:
            return None
        dropped: list[str] = []
        for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
            if total <= window * MAX_SHARE:
                break
            if name in self.withheld:
                continue
            self.withheld.add(name)
            self._sync_tools(self.connections[name])
            dropped.append(name)
            total -= size
        if dropped:
            self._sync_search_tool()
        by_server = ", ".join(f"{name} ~{size}" for name, size in sorted(sizes.items(), key=lambda i: -i[1]))
        fix = "trim them with mcp.tools.<server>.allow / deny in settings (globs on the server's tool names)"
        if dropped:
            left = ", ".join(dropped)
            return (
                f"MCP tool schemas do not fit the {window}-token window ({by_server} tokens): the tools of {left} "
                f"are left out of requests; the model finds and loads them with {SEARCH_TOOL}. To offer them "
                f"all, {fix}, or pick a model with a larger window."
            )
        return f"MCP tool schemas take ~{total} of the {window}-token window ({by_server}); {fix}."

    # ------------------------------------------------------------------ reporting
    def require(self, name: str) -> ServerConnection:
        connection = self.connections.get(name)
        if connection is None:
            known = ", ".join(self.connections) or "none configured"
            raise NavtuiError(f"No MCP server '{name}'", hint=f"configured: {known}")
        return connection

    def status(self) -> list[ServerStatus]:
        out: list[ServerStatus] = []
        for connection in self.connections.values():
            offered = self.offered(connection) if connection.state == "ready" else []
            spec = connection.spec
            out.append(
                ServerStatus(
                    name=spec.name,
                    source=spec.source,
                    transport=spec.transport,
                    target=spec.target,
                    state=connection.state,
                    tools=tuple(remote.name for remote in offered),
                    hidden=len(connection.tools) - len(offered) if connection.state == "ready" else 0,
                    withheld=spec.name in self.withheld,
                    resources=tuple(r.uri for r in connection.resources) if connection.state == "ready" else (),
                    prompts=tuple(p.name for p in self.prompt_commands() if p.server == spec.name),
                    error=connection.error,
                    config_path=spec.path,
                )
            )
        return out

    def summary(self) -> str | None:
        """A few words for the status line while something needs attention; None when all is well."""
        states = [c.state for c in self.connections.values()]
        starting = [c.name for c in self.connections.values() if c.state == "starting"]
        if starting:  # the status line is short of room: names for one, a count for more (/mcp names them)
            return f"mcp starting: {starting[0]}" if len(starting) == 1 else f"mcp starting: {len(starting)} servers"
        parts = []
        if states.count("failed"):
            parts.append(f"{states.count('failed')} failed")
        if states.count("unapproved"):
            parts.append(f"{states.count('unapproved')} to approve")
        if states.count("signin"):
            parts.append(f"{states.count('signin')} to sign in")
        return "mcp " + ", ".join(parts) if parts else None

    def take_notices(self) -> list[tuple[str, Level]]:
        taken, self.notices = self.notices, []
        return taken

    def _notice(self, text: str, level: Level) -> None:
        if self.listener is not None:
            self.listener(text, level)
        else:
            self.notices.append((text, level))

    def _changed(self) -> None:
        if self.listener is not None:
            self.listener(None, "info")
