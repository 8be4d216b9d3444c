"""OAuth 2.1 for HTTP MCP servers, on the SDK's own client auth (``mcp.client.auth.OAuthClientProvider``).

The SDK does the protocol: protected-resource and authorization-server metadata discovery, dynamic client
registration, PKCE, the code exchange, and refreshing an expired token before a request. navtui adds:

- **where tokens live**: ``<navtui home>/mcp-oauth/<server>.json`` (mode 0600, in a 0700 directory): the
  tokens with their absolute expiry, and the registered client. One file per server, bound to its URL: a
  server whose URL changed starts over. Never in a repository.
- **when OAuth applies** (``auth`` in the entry): ``"oauth"`` always; ``"none"`` never; unset, once the server
  answers 401 with a ``Bearer`` challenge (the MCP authorization spec's signal, as Claude Code reads it) or
  when tokens are stored already, and not when the entry sets its own ``Authorization`` header.
- **who signs in**: starting a server never opens a browser. A server that needs a sign-in is
  ``needs sign-in`` (``NeedsSignIn``) until the user runs ``/mcp login NAME`` or ``navtui mcp login NAME``:
  that opens the authorization URL in a browser (and always shows it, for SSH) and takes the redirect on a
  loopback listener (``127.0.0.1``, a random port kept for the registered client).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import httpx2

from navtui.config.paths import navtui_home
from navtui.core.errors import NavtuiError

if TYPE_CHECKING:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

    from navtui.mcp.config import ResolvedServer

CALLBACK_PATH = "/callback"
SIGN_IN_TIMEOUT = 300.0  # how long a sign-in waits for the browser's redirect
EXPIRY_MARGIN = 30  # seconds: a stored token this close to its expiry is refreshed before use


class NeedsSignIn(Exception):
    """The server wants an OAuth sign-in that only the user can give (``/mcp login NAME``)."""

    def __init__(self, server: str, why: str = "it asks for an OAuth sign-in") -> None:
        super().__init__(f"{why}; sign in with /mcp login {server} (or: navtui mcp login {server})")
        self.server = server


class SignInFailed(NavtuiError):
    """The browser step did not end with a code (denied, timed out, or the callback could not listen)."""


def token_dir() -> Path:
    return navtui_home() / "mcp-oauth"


def token_path(server: str) -> Path:
    return token_dir() / f"{server}.json"


# ---------------------------------------------------------------------------- the token file
class TokenFile:
    """The SDK's ``TokenStorage`` as one private file per server, bound to the server's URL."""

    def __init__(self, server: str, url: str) -> None:
        self.server = server
        self.url = url
        self.path = token_path(server)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("server_url") != self.url:
            return {}  # another URL's tokens are never sent here
        return data

    def _write(self, data: dict[str, Any]) -> None:
        from navtui.core.fs import atomic_write_text

        if not data.get("tokens") and not data.get("client_info"):
            self.path.unlink(missing_ok=True)  # nothing left to keep
            return
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = {**data, "server_url": self.url}
        atomic_write_text(self.path, json.dumps(data, indent=2) + "\n", mode=0o600)

    def has_tokens(self) -> bool:
        return bool(self._read().get("tokens"))

    def has_refresh_token(self) -> bool:
        return bool(self._read().get("tokens", {}).get("refresh_token"))

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        data = self._read()
        tokens = data.get("tokens")
        if not isinstance(tokens, dict):
            return None
        expires_at = data.get("expires_at")
        expires_in = int(expires_at - time.time()) if isinstance(expires_at, int | float) else None
        if expires_in is not None and expires_in <= EXPIRY_MARGIN:
            # The SDK takes a stored token as valid (it does not know when it was received): an expired one is
            # handed over without its access token, so the SDK refreshes before the first request.
            tokens = {**tokens, "access_token": ""}
        with contextlib.suppress(ValueError):
            return OAuthToken.model_validate({**tokens, "expires_in": expires_in})
        return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        data = self._read()
        data["tokens"] = tokens.model_dump(mode="json", exclude_none=True, exclude={"expires_in"})
        data["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        self._write(data)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull

        client = self._read().get("client_info")
        if not isinstance(client, dict):
            return None
        with contextlib.suppress(ValueError):
            return OAuthClientInformationFull.model_validate(client)
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        data = self._read()
        data["client_info"] = client_info.model_dump(mode="json", exclude_none=True)
        self._write(data)

    def expire(self) -> None:
        """Mark the access token expired (the server refused it): the next connection refreshes it first."""
        data = self._read()
        if data.get("tokens"):
            data["expires_at"] = 0
            self._write(data)

    def drop_tokens(self) -> None:
        """Forget the tokens, keep the registered client (a new sign-in reuses it)."""
        data = self._read()
        if "tokens" in data:
            data.pop("tokens")
            data.pop("expires_at", None)
            self._write(data)

    def redirect_port(self) -> int | None:
        """The loopback port the registered client's redirect URI names (a new sign-in must use the same)."""
        client = self._read().get("client_info")
        uris = client.get("redirect_uris") if isinstance(client, dict) else None
        if not uris:
            return None
        parts = urlsplit(str(uris[0]))
        return parts.port if parts.hostname == "127.0.0.1" and parts.path == CALLBACK_PATH else None

    def drop_client(self) -> None:
        data = self._read()
        data.pop("client_info", None)
        self._write(data)


def forget(server: str) -> bool:
    """Sign out: remove the server's tokens and registered client. False when there were none."""
    path = token_path(server)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


# ---------------------------------------------------------------------------- the browser's redirect
class Callback:
    """The loopback listener the authorization server redirects the browser to (``/callback?code=&state=``)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.result: asyncio.Future[AuthorizationCodeResult] | None = None
        self._server: asyncio.Server | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> Callback:
        self.result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def wait(self, seconds: float) -> AuthorizationCodeResult:
        assert self.result is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self.result), seconds)
        except TimeoutError:
            raise SignInFailed(
                f"no answer from the browser within {seconds:g} s", hint="run the sign-in again"
            ) from None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from mcp.shared.auth import AuthorizationCodeResult

        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
            writer.close()
            return
        target = request.split(b"\r\n", 1)[0].split(b" ")
        parts = urlsplit(target[1].decode("latin-1") if len(target) > 1 else "/")
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        if parts.path != CALLBACK_PATH or self.result is None or self.result.done():
            await _respond(writer, 404, "Not the sign-in callback.")
            return
        if "error" in query:
            why = query.get("error_description") or query["error"]
            self.result.set_exception(SignInFailed(f"the authorization server refused: {why}"))
            await _respond(writer, 400, f"Sign-in refused: {why}. You can close this tab.")
            return
        self.result.set_result(
            AuthorizationCodeResult(code=query.get("code", ""), state=query.get("state"), iss=query.get("iss"))
        )
        await _respond(writer, 200, "Signed in. You can close this tab and go back to navtui.")


async def _respond(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    from html import escape

    body = f"<!doctype html><title>navtui</title><p>{escape(text)}</p>\n".encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
    head += f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    with contextlib.suppress(ConnectionError):
        writer.write(head.encode() + body)
        await writer.drain()
    writer.close()


def free_port(preferred: int | None) -> int:
    """``preferred`` when it can be listened on now (a registered client's port), else a random free one."""
    for port in ([preferred] if preferred else []) + [0]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise SignInFailed("no loopback port to receive the sign-in on")


@dataclass
class SignIn:
    """What an interactive sign-in needs from its caller: a way to show the URL and messages, and whether a
    browser running in the terminal may be used."""

    show: Callable[[str], None]
    console_browser: bool = False
    timeout: float = SIGN_IN_TIMEOUT


# ---------------------------------------------------------------------------- the httpx auth
def wants_oauth(resolved: ResolvedServer, mode: str | None, store: TokenFile) -> bool | None:
    """True: OAuth from the first request; None: once the server asks (a 401 with a Bearer challenge);
    False: never."""
    if mode == "none":
        return False
    if mode == "oauth":
        return True
    if any(key.lower() == "authorization" for key in resolved.headers):
        return False  # the entry authenticates itself
    return True if store.has_tokens() else None


def http_auth(resolved: ResolvedServer, mode: str | None, sign_in: SignIn | None, callback: Callback | None) -> Any:
    """The ``httpx2.Auth`` for an HTTP server's connection, or None when it does not use OAuth."""
    store = TokenFile(resolved.name, resolved.url)
    engaged = wants_oauth(resolved, mode, store)
    if engaged is False:
        return None
    return _OAuthWhenAsked(
        resolved, store, engaged=bool(engaged) or sign_in is not None, sign_in=sign_in, callback=callback
    )


class _OAuthWhenAsked(httpx2.Auth):
    """Passes requests through until the server asks for OAuth, then lets the SDK's provider authenticate.

    Without a sign-in under way a 401 never opens a browser: with a refresh token the provider is made again
    with the token marked expired (the SDK refreshes before a request, never after a 401); else, or when that
    fails, the connection ends with ``NeedsSignIn``.
    """

    requires_response_body = True

    def __init__(
        self,
        resolved: ResolvedServer,
        store: TokenFile,
        *,
        engaged: bool,
        sign_in: SignIn | None,
        callback: Callback | None,
    ) -> None:
        self.resolved = resolved
        self.store = store
        self.engaged = engaged
        self.sign_in = sign_in
        self.callback = callback
        self._provider: OAuthClientProvider | None = None

    def end_sign_in(self) -> None:
        """The sign-in is over (its listener closed): a later 401 means signing in again."""
        self.sign_in = None
        self.callback = None

    def _make_provider(self) -> OAuthClientProvider:
        from mcp.client.auth import OAuthClientProvider
        from mcp.shared.auth import OAuthClientMetadata

        port = self.callback.port if self.callback is not None else (self.store.redirect_port() or 1)
        metadata = OAuthClientMetadata.model_validate(
            {
                "client_name": "navtui",
                "redirect_uris": [f"http://127.0.0.1:{port}{CALLBACK_PATH}"],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            }
        )
        return OAuthClientProvider(
            server_url=self.resolved.url,
            client_metadata=metadata,
            storage=self.store,
            redirect_handler=self._redirect,
            callback_handler=self._callback,
        )

    async def _redirect(self, url: str) -> None:
        if self.sign_in is None or self.callback is None:
            raise NeedsSignIn(self.resolved.name)
        name = self.resolved.name
        self.sign_in.show(f"Sign in to the MCP server '{name}': open {url}")
        from navtui.mcp.browser import open_browser

        opened = await asyncio.to_thread(open_browser, url, console_ok=self.sign_in.console_browser)
        if not opened:
            port = self.callback.port
            self.sign_in.show(
                "No browser could be opened here: open that URL in a browser on this machine. Over SSH, forward "
                f"the callback port first (ssh -L {port}:127.0.0.1:{port} HOST), then open it on your computer."
            )

    async def _callback(self) -> AuthorizationCodeResult:
        if self.sign_in is None or self.callback is None:
            raise NeedsSignIn(self.resolved.name)
        return await self.callback.wait(self.sign_in.timeout)

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if not self.engaged:
            response = yield request
            if response.status_code != 401 or not _bearer_challenge(response):
                return
            self.engaged = True  # the server asks for OAuth: the provider sends the request again
        if self._provider is None and self.sign_in is None and not self.store.has_tokens():
            # Nothing to refresh and nobody to sign in: say so before the SDK registers a client.
            response = yield request
            if response.status_code == 401 and _bearer_challenge(response):
                raise NeedsSignIn(self.resolved.name)
            return
        for attempt in (1, 2):
            if self._provider is None:
                self._provider = self._make_provider()
            flow = self._provider.async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            except NeedsSignIn:
                # The server refused the stored token (revoked, or expired early): refresh it once, if it can be.
                if attempt == 2 or self.sign_in is not None or not self.store.has_refresh_token():
                    raise
                self.store.expire()
                self._provider = None
            finally:
                await flow.aclose()


def _bearer_challenge(response: httpx2.Response) -> bool:
    return response.headers.get("www-authenticate", "").lstrip().lower().startswith("bearer")
