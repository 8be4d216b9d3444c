"""Per-model request fields (providers.request_fields) reach the wire where each server reads them."""

from __future__ import annotations

from navtui.config.settings import ProviderSettings
from navtui.core.messages import UserMessage
from navtui.providers.base import ChatRequest, request_fields
from navtui.providers.ollama import OllamaProvider
from navtui.providers.openai import OpenAIProvider
from tests.fakes import Text
from tests.fakes.server import FakeServer
from tests.providers.support import collect

FIELDS = {
    "qwen2.5-coder*": {"temperature": 0.2, "top_p": 0.9, "stop": ["</answer>"], "grammar": "root ::= [a-z]+"},
    "*1.5b*": {"top_p": 0.8, "tool_choice": "required", "model": "not-this-one"},
}


def ask() -> ChatRequest:
    return ChatRequest(system="s", messages=[UserMessage(content="hi")])


def test_matching_globs_merge_in_order_and_reserved_keys_are_ignored() -> None:
    assert request_fields(FIELDS, "Qwen2.5-Coder-1.5B") == {
        "temperature": 0.2,
        "top_p": 0.8,
        "stop": ["</answer>"],
        "grammar": "root ::= [a-z]+",
        "tool_choice": "required",
    }
    assert request_fields(FIELDS, "llama3.2:3b") == {}


async def test_openai_compatible_servers_get_them_in_the_body(fake_server: FakeServer) -> None:
    settings = ProviderSettings(request_fields=FIELDS)
    fake_server.script(Text("ok"))
    await collect(OpenAIProvider("qwen2.5-coder-1.5b", fake_server.url, settings), ask())
    body = fake_server.chat_requests[-1].json
    assert (body["temperature"], body["top_p"], body["grammar"], body["tool_choice"]) == (
        0.2,
        0.8,
        "root ::= [a-z]+",
        "required",
    )
    assert body["model"] == "qwen2.5-coder-1.5b" and body["stop"] == ["</answer>"]


async def test_ollama_gets_sampling_fields_in_options(fake_server: FakeServer) -> None:
    settings = ProviderSettings(request_fields={"qwen*": {"temperature": 0.1, "stop": ["x"], "format": "json"}})
    fake_server.script(Text("ok"))
    await collect(OllamaProvider("qwen2.5-coder:1.5b", fake_server.url, settings), ask())
    body = fake_server.chat_requests[-1].json
    assert body["options"]["temperature"] == 0.1 and body["options"]["stop"] == ["x"]
    assert body["format"] == "json" and "temperature" not in body
