"""OAuth 2.1 for HTTP servers, end to end: a protected MCP server with its own authorization server (the SDK's
``mcp.server.auth`` pieces, ``oauth_server.py``) on 127.0.0.1; navtui's loopback callback; the test's "browser"
is httpx following the authorization URL's redirects to that callback."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from navtui.mcp.cli import mcp_main
from navtui.mcp.config import user_config_path
from navtui.mcp.oauth import SignIn, token_path
from navtui.mcp.report import status_lines
from tests.mcp.conftest import eventually, write_servers
from tests.mcp.test_servers import Running, pytestmark  # noqa: F401  (Linux process handling)

OAUTH_SERVER = Path(__file__).with_name("oauth_server.py")
BROWSER = Path(__file__).with_name("browser.py")
URL = re.compile(r"open (http://\S+)")


class OAuthServer:
    def __init__(self, traces: Path) -> None:
        self.traces = traces
        self.process = subprocess.Popen(
            [sys.executable, str(OAUTH_SERVER)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "MCP_TEST_DIR": str(traces)},
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("PORT "), line
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/mcp"

    def grants(self) -> list[str]:
        path = self.traces / "grants"
        return path.read_text().split() if path.exists() else []

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(5)
        assert self.process.stdout is not None
        self.process.stdout.close()


@pytest.fixture
def oauth_server(traces: Path) -> Iterator[OAuthServer]:
    server = OAuthServer(traces)
    try:
        yield server
    finally:
        server.stop()


class Browser:
    """What the user sees of a sign-in (``SignIn.show``), and the test's browser: it opens the URL shown."""

    def __init__(self) -> None:
        self.shown: list[str] = []
        self.pages: list[httpx.Response] = []

    def sign_in(self) -> SignIn:
        return SignIn(show=self.shown.append, timeout=30)

    async def open_shown_url(self) -> None:
        await eventually(lambda: any(URL.search(text) for text in self.shown), "the sign-in URL shown")
        url = next(m.group(1) for text in self.shown if (m := URL.search(text)))
        async with httpx.AsyncClient(follow_redirects=True) as browser:
            self.pages.append(await browser.get(url))


@pytest.fixture(autouse=True)
def no_browser_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """As over SSH: nothing navtui could open a browser with (the test's browser opens the URL shown)."""
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)


async def test_sign_in_call_refresh_and_sign_out(workspace: Path, oauth_server: OAuthServer) -> None:
    write_servers(user_config_path(), {"web": {"url": oauth_server.url}})
    running = Running(workspace, "web")
    try:
        # Without tokens: the 401 and its Bearer challenge make it "needs sign-in", no browser, no traceback.
        await running.manager.start()
        assert running.connection.state == "signin"
        assert "sign in with /mcp login web" in (running.connection.error or "")
        assert any(n.startswith("MCP server 'web' needs sign-in") for n in running.notices)
        assert "needs sign-in" in "\n".join(status_lines(running.manager))
        assert running.manager.summary() == "mcp 1 to sign in"
        assert oauth_server.grants() == []  # nothing registered before the user asked to sign in

        # /mcp login web: the URL is shown (no browser here), the browser's redirect reaches the callback.
        browser = Browser()
        signing_in = asyncio.ensure_future(running.manager.sign_in("web", browser.sign_in()))
        await browser.open_shown_url()
        await signing_in
        assert browser.pages[0].status_code == 200 and "Signed in" in browser.pages[0].text
        assert any("No browser could be opened here" in text and "ssh -L" in text for text in browser.shown)
        assert running.connection.state == "ready", running.connection.error
        assert (await running.run("secret", word="pie")).text == "the secret of pie is 42"
        assert oauth_server.grants() == ["registered", "authorization_code"]

        # The tokens and the registered client: one private file per server under the navtui home.
        path = token_path("web")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        stored = json.loads(path.read_text())
        assert stored["server_url"] == oauth_server.url
        assert stored["tokens"]["access_token"].startswith("at-")
        assert stored["tokens"]["refresh_token"].startswith("rt-")
        assert stored["client_info"]["client_id"]
        assert stored["client_info"]["redirect_uris"][0].startswith("http://127.0.0.1:")
        assert stored["expires_at"] > time.time() + 3000

        # Expired (as if an hour went by): the next start refreshes it before its first request.
        await running.manager.aclose()
        stored["expires_at"] = time.time() - 60
        path.write_text(json.dumps(stored))
        second = Running(workspace, "web")
        try:
            await second.manager.start()
            assert second.connection.state == "ready", second.connection.error
            assert (await second.run("secret", word="jam")).text == "the secret of jam is 42"
        finally:
            await second.manager.aclose()
        assert oauth_server.grants() == ["registered", "authorization_code", "refresh_token"]
        refreshed = json.loads(path.read_text())
        assert refreshed["tokens"]["access_token"] != stored["tokens"]["access_token"]
        assert refreshed["expires_at"] > time.time() + 3000

        # /mcp logout web: the file is gone, and the server needs a sign-in again.
        third = Running(workspace, "web")
        try:
            await third.manager.start()
            assert third.connection.state == "ready"
            assert await third.manager.sign_out("web") is True
            assert not path.exists()
            assert third.connection.state == "signin"
            await third.manager.reconnect("web")
            assert third.connection.state == "signin"
        finally:
            await third.manager.aclose()
    finally:
        await running.manager.aclose()


def navtui(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "navtui", *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def test_mcp_login_opens_the_browser_and_mcp_logout_forgets(workspace: Path, oauth_server: OAuthServer) -> None:
    write_servers(user_config_path(), {"web": {"url": oauth_server.url, "auth": "oauth"}})
    env = {**os.environ, "BROWSER": f"{sys.executable} {BROWSER} %s", "MCP_TEST_DIR": str(oauth_server.traces)}
    login = navtui("mcp", "login", "web", env=env)
    assert login.returncode == 0, login.stderr
    assert "Sign in to the MCP server 'web': open http://127.0.0.1:" in login.stdout
    assert "No browser could be opened" not in login.stdout  # BROWSER opened it
    assert "Signed in to 'web' (1 tool)" in login.stdout
    assert (oauth_server.traces / "browser").read_text().startswith("200 ")
    assert token_path("web").exists()

    out, err = io.StringIO(), io.StringIO()
    assert mcp_main(["get", "web"], cwd=workspace, out=out, err=err) == 0, err.getvalue()
    assert "tools (1): secret" in out.getvalue()

    out = io.StringIO()
    assert mcp_main(["logout", "web"], cwd=workspace, out=out, err=err) == 0
    assert "Signed out of 'web'" in out.getvalue()
    assert not token_path("web").exists()
    out = io.StringIO()
    assert mcp_main(["get", "web"], cwd=workspace, out=out, err=err) == 1
    assert "needs sign-in" in out.getvalue() and "navtui mcp login web" in out.getvalue()
    assert "Traceback" not in out.getvalue() + err.getvalue()


async def test_tokens_the_server_no_longer_knows_mean_signing_in_again(workspace: Path, traces: Path) -> None:
    first = OAuthServer(traces)
    write_servers(user_config_path(), {"web": {"url": first.url}})
    running = Running(workspace, "web")
    try:
        browser = Browser()
        signing_in = asyncio.ensure_future(running.manager.sign_in("web", browser.sign_in()))
        await browser.open_shown_url()
        await signing_in
        assert running.connection.state == "ready"
    finally:
        await running.manager.aclose()
        first.stop()
    # The authorization server lost every token and client (a new one on the same port): the stored token is
    # refused, so is the refresh: "needs sign-in", with the way to do it, and no traceback.
    port = first.url.split(":")[2].split("/")[0]
    os.environ["MCP_TEST_PORT"] = port
    try:
        second = OAuthServer(traces)
    finally:
        del os.environ["MCP_TEST_PORT"]
    running = Running(workspace, "web")
    try:
        await running.manager.start()
        assert running.connection.state == "signin", running.connection.error
        assert running.connection.error == (
            "it asks for an OAuth sign-in; sign in with /mcp login web (or: navtui mcp login web)"
        )
        assert "refresh_token" not in second.grants()  # refused, so not granted
    finally:
        await running.manager.aclose()
        second.stop()


def test_a_headless_run_says_which_server_needs_a_sign_in(
    fake_server, workspace: Path, oauth_server: OAuthServer
) -> None:
    from tests.fakes import Text
    from tests.test_cli import headless

    write_servers(user_config_path(), {"web": {"url": oauth_server.url}})
    fake_server.script(Text("Hello."))
    result = headless(fake_server, "--print", "hi", cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello.\n"
    assert "MCP server 'web' needs sign-in: it asks for an OAuth sign-in; sign in with /mcp login web" in result.stderr
    assert "Traceback" not in result.stderr


def test_mcp_login_to_a_server_that_does_not_ask_says_so(workspace: Path, http_server: str) -> None:
    write_servers(
        user_config_path(),
        {"open": {"url": http_server}, "keyed": {"url": http_server, "headers": {"Authorization": "Bearer ${K:-k1}"}}},
    )
    out, err = io.StringIO(), io.StringIO()
    assert mcp_main(["login", "open"], cwd=workspace, out=out, err=err) == 0, err.getvalue()
    assert "'open' did not ask for a sign-in; it is connected (11 tools)." in out.getvalue()
    assert "Sign in to" not in out.getvalue() and not token_path("open").exists()
    out, err = io.StringIO(), io.StringIO()
    assert mcp_main(["login", "keyed"], cwd=workspace, out=out, err=err) == 2
    assert "OAuth is off for MCP server 'keyed': its entry sets its own Authorization header" in err.getvalue()
    assert "Traceback" not in err.getvalue()
