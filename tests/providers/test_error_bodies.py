"""What a failed answer says, for every provider (the real clients against the fake): a proxy's HTML page, a
gateway's JSON error in a 200, a Retry-After given as a date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from navtui.config.settings import ProviderSettings
from navtui.core.events import ErrorEvent, StopEvent
from navtui.core.messages import UserMessage
from navtui.providers.anthropic import AnthropicProvider
from navtui.providers.base import ChatRequest, Provider, ProviderNotice
from navtui.providers.ollama import OllamaProvider
from navtui.providers.openai import OpenAIProvider
from tests.fakes import Text
from tests.fakes.clock import FakeClock
from tests.fakes.script import RawResponse
from tests.fakes.server import FakeServer
from tests.providers.support import TOOLS, collect

PROVIDERS = ("ollama", "openai", "anthropic")
NGINX = (
    b"<!DOCTYPE html>\r\n<html>\r\n<head><title>502 Bad Gateway</title>\r\n<style>body { font: 13px sans; }</style>"
    b"</head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n"
    b"</body>\r\n</html>\r\n"
)
PORTAL = b"<html><head><title>Hotel Wi-Fi &amp; login</title></head><body><form>...</form></body></html>"


def make(kind: str, server: FakeServer) -> tuple[Provider, FakeClock]:
    provider: Provider
    if kind == "ollama":
        provider = OllamaProvider("qwen3:4b", server.url, ProviderSettings())
    elif kind == "openai":
        provider = OpenAIProvider("local-model", server.url + "/v1", ProviderSettings())
    else:
        provider = AnthropicProvider("claude-haiku-4-5", server.url, ProviderSettings(), api_key="sk-test")
    clock = FakeClock()
    provider.retry.sleep = clock.sleep
    return provider, clock


def ask() -> ChatRequest:
    return ChatRequest(system="s", messages=[UserMessage(content="hi")], tools=TOOLS)


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_proxys_error_page_is_its_title_not_its_markup(fake_server: FakeServer, kind: str) -> None:
    fake_server.script(RawResponse(status=502, body=NGINX, content_type="text/html"))
    fake_server.script(Text("answered"))
    provider, _ = make(kind, fake_server)
    events = await collect(provider, ask())
    (notice,) = [e for e in events if isinstance(e, ProviderNotice)]
    assert "502 Bad Gateway (an HTML page: a proxy or gateway" in notice.text
    assert "<" not in notice.text and "nginx" not in notice.text and "font" not in notice.text
    assert events[-1] == StopEvent(reason="stop")


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_a_page_in_a_200_is_said_as_a_page_and_not_asked_again(fake_server: FakeServer, kind: str) -> None:
    """A captive portal answers the chat with its login page and HTTP 200."""
    fake_server.script(RawResponse(status=200, body=PORTAL, content_type="text/html; charset=utf-8"))
    provider, _ = make(kind, fake_server)
    (error,) = await collect(provider, ask())
    assert isinstance(error, ErrorEvent) and "Hotel Wi-Fi & login (an HTML page" in error.message
    assert "<" not in error.message and len(fake_server.chat_requests) == 1


async def test_a_gateways_json_error_in_a_200_is_that_error_not_a_broken_stream(fake_server: FakeServer) -> None:
    """A gateway answers a model it does not serve with OpenAI's error object and HTTP 200: said once, as a
    missing model, not retried three times as a stream that broke."""
    body = b'{"error": {"message": "The model `local-model` does not exist", "type": "invalid_request_error", '
    body += b'"code": "model_not_found"}}'
    fake_server.script(RawResponse(status=200, body=body))
    provider, clock = make("openai", fake_server)
    (error,) = await collect(provider, ask())
    assert isinstance(error, ErrorEvent) and error.kind == "not_found" and not error.retryable
    assert "does not exist" in error.message
    assert clock.sleeps == [] and len(fake_server.chat_requests) == 1


async def test_anthropics_json_error_in_a_200_keeps_the_servers_words(fake_server: FakeServer) -> None:
    body = b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded, try again"}}'
    fake_server.script(RawResponse(status=200, body=body))
    fake_server.script(Text("answered"))
    provider, _ = make("anthropic", fake_server)
    events = await collect(provider, ask())
    (notice,) = [e for e in events if isinstance(e, ProviderNotice)]
    assert "Overloaded, try again" in notice.text and "message_stop" not in notice.text
    assert events[-1] == StopEvent(reason="stop")


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_retry_after_as_a_date(fake_server: FakeServer, kind: str) -> None:
    """RFC 9110 lets Retry-After be a date: one already past means now; one a day away is said, not waited on."""
    error = b'{"error": {"message": "slow down", "type": "rate_limit_error"}}'
    past = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    fake_server.script(RawResponse(status=429, body=error, headers=(("retry-after", past),)))
    fake_server.script(Text("answered"))
    provider, clock = make(kind, fake_server)
    events = await collect(provider, ask())
    assert events[-1] == StopEvent(reason="stop") and clock.sleeps == [0.0]

    tomorrow = format_datetime(datetime.now(UTC) + timedelta(days=1), usegmt=True)
    fake_server.script(RawResponse(status=429, body=error, headers=(("retry-after", tomorrow),)))
    (failed,) = await collect(provider, ask())
    assert isinstance(failed, ErrorEvent) and "the server asks to wait 86" in (failed.hint or "")
    assert len(fake_server.chat_requests) == 3 and clock.sleeps == [0.0]
