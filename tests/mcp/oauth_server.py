"""A protected MCP server for the tests, with its own OAuth 2.1 authorization server: the SDK's server-side
auth pieces (``mcp.server.auth``: the authorization, registration, token and metadata routes, the bearer
middleware, protected-resource metadata) around an in-memory provider, on 127.0.0.1.

``python oauth_server.py`` prints ``PORT <n>`` and serves until killed. The authorization endpoint stands for
the user's consent page: it approves at once and redirects to the client's callback with a code (a test's
"browser" follows it). ``MCP_TEST_DIR`` gets a ``grants`` file, one line per token grant
(``authorization_code`` or ``refresh_token``) and ``registered`` per dynamic client registration.
``MCP_TEST_TOKEN_TTL`` (seconds, default 3600) is the access tokens' lifetime; ``MCP_TEST_PORT`` the port.
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from pathlib import Path

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

TRACES = Path(os.environ.get("MCP_TEST_DIR", "."))
TTL = int(os.environ.get("MCP_TEST_TOKEN_TTL", "3600"))


def trace(line: str) -> None:
    with (TRACES / "grants").open("a", encoding="utf-8") as out:
        out.write(line + "\n")


class MemoryProvider:
    """An ``OAuthAuthorizationServerProvider`` that keeps clients, codes and tokens in memory."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        trace("registered")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or ["mcp"],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[code.code]
        trace("authorization_code")
        return self._issue(code.client_id, code.scopes)

    async def load_refresh_token(self, client: OAuthClientInformationFull, token: str) -> RefreshToken | None:
        return self.refresh.get(token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        trace("refresh_token")
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str]) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(16)}", f"rt-{secrets.token_urlsafe(16)}"
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + TTL
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes)
        return OAuthToken(access_token=access, expires_in=TTL, refresh_token=refresh, scope=" ".join(scopes))


def main() -> None:
    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", int(os.environ.get("MCP_TEST_PORT", "0"))))
    sock.listen(64)
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    server = MCPServer(
        "navtui-oauth-test",
        auth_server_provider=MemoryProvider(),
        auth=AuthSettings(
            issuer_url=base,  # type: ignore[arg-type]
            resource_server_url=f"{base}/mcp",  # type: ignore[arg-type]
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=["mcp"], default_scopes=["mcp"]
            ),
            required_scopes=["mcp"],
            validate_token_resource=False,
        ),
    )

    @server.tool()
    def secret(word: str) -> str:
        """Answer only a signed-in client."""
        return f"the secret of {word} is 42"

    print(f"PORT {sock.getsockname()[1]}", flush=True)
    app = server.streamable_http_app()
    anyio.run(uvicorn.Server(uvicorn.Config(app, log_level="warning")).serve, [sock])


if __name__ == "__main__":
    main()
