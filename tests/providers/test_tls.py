"""The providers' TLS context: certificates are loaded on the first TLS connection, and verified as httpx would."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from pathlib import Path

import httpx
import pytest

from navtui.providers.ollama import OllamaProvider
from navtui.providers.tls import client_tls
from tests.fakes.server import FakeServer

MODEL = "qwen3:4b"


def _self_signed(directory: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        + ["-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


async def _https_server(cert: Path, key: Path) -> tuple[asyncio.Server, str]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass  # the client refused the certificate
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    return server, f"https://127.0.0.1:{port}/"


async def test_certificates_load_on_the_first_tls_connection_and_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    cert, key = _self_signed(tmp_path)
    server, url = await _https_server(cert, key)
    try:
        context = client_tls()
        assert context.cert_store_stats()["x509_ca"] == 0  # nothing loaded yet
        async with httpx.AsyncClient(verify=context) as client:
            with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
                await client.get(url)  # certifi's bundle does not vouch for a self-signed certificate
        assert context.cert_store_stats()["x509_ca"] > 100  # certifi's bundle, loaded for that connection

        monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # as httpx: the environment names the trusted certificates
        async with httpx.AsyncClient(verify=client_tls()) as client:
            response = await client.get(url)
        assert response.status_code == 200 and response.text == "ok"
    finally:
        server.close()
        await server.wait_closed()


async def test_a_plain_http_server_loads_no_certificates(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL, context_length=40960, capabilities=["completion", "tools"])
    provider = OllamaProvider(MODEL, fake_server.url)
    assert await provider.list_models() == [MODEL]
    assert provider._client is not None
    context = provider._client._transport._pool._ssl_context  # type: ignore[attr-defined]
    assert context.cert_store_stats() == {"x509": 0, "crl": 0, "x509_ca": 0}
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
