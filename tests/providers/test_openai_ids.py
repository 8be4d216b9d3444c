"""Tool-call ids a server's template refuses: Mistral's take only 9 letters or digits (llama.cpp --jinja, vLLM)."""

from __future__ import annotations

import re

from navtui.core.events import StopEvent
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.providers.base import ChatRequest, ProviderNotice
from navtui.providers.openai import OpenAIProvider
from navtui.providers.openai_convert import nine_char_id
from tests.fakes import Text
from tests.fakes.server import FakeServer
from tests.providers.support import TOOLS, collect

MODEL = "devstral-small-2507"
ALIAS = "coder"  # llama-server -a coder: a name that does not say whose model it is


def resumed_from_claude() -> list[UserMessage | AssistantMessage | ToolResultMessage]:
    """A session Claude began (its ``toolu_`` ids), and navtui's own id for a call a local model wrote as text."""
    claude, local = ToolCall(id="toolu_01A09q90qw90lq917835lq9", name="read"), ToolCall(id="call_0", name="read")
    return [
        UserMessage(content="look at a.py and b.py"),
        AssistantMessage(content=[TextBlock(text="Reading."), claude]),
        ToolResultMessage.of(claude, "a"),
        AssistantMessage(content=[local]),
        ToolResultMessage.of(local, "b"),
    ]


def test_a_nine_character_id_is_stable_and_an_id_of_that_form_is_kept() -> None:
    made = nine_char_id("toolu_01A09q90qw90lq917835lq9")
    assert re.fullmatch(r"[A-Za-z0-9]{9}", made) and made == nine_char_id("toolu_01A09q90qw90lq917835lq9")
    assert nine_char_id("call_0") != nine_char_id("call_1") and nine_char_id("aB3dE5fG7") == "aB3dE5fG7"


async def test_ids_a_mistral_template_refuses_are_sent_again_in_its_form(fake_server: FakeServer) -> None:
    """Devstral under llama.cpp --jinja: its template raises on any id but 9 letters or digits, a 500 that was
    retried three times and ended the run; every later request of the session failed the same way."""
    fake_server.mistral_ids = True
    fake_server.script(Text("Both are fine."))
    fake_server.script(Text("Still fine."))
    fake_server.script(Text("Fine again."))
    provider = OpenAIProvider(ALIAS, fake_server.url + "/v1")
    request = ChatRequest(system="Base.", messages=resumed_from_claude(), tools=TOOLS)
    events = await collect(provider, request)
    assert events[-1] == StopEvent(reason="stop") and not any(isinstance(e, ProviderNotice) for e in events)
    refused, sent = fake_server.chat_requests
    ids = [m.get("tool_call_id") or m["tool_calls"][0]["id"] for m in sent.json["messages"][2:]]
    assert ids == [nine_char_id("toolu_01A09q90qw90lq917835lq9")] * 2 + [nine_char_id("call_0")] * 2
    assert fake_server.invalid_requests() == []  # each result still answers its call
    await collect(provider, request)
    assert len(fake_server.chat_requests) == 3  # remembered: no refused request first
    await collect(OpenAIProvider(ALIAS, fake_server.url + "/v1"), request)  # /model back to it, the advisor...
    assert len(fake_server.chat_requests) == 4  # remembered for the endpoint and model, not the provider object


async def test_a_model_named_as_mistrals_gets_its_ids_from_the_first_request(fake_server: FakeServer) -> None:
    """Devstral by its name: the first request after a tool call was refused and sent again, every session."""
    fake_server.mistral_ids = True
    for name in (MODEL, "mistralai/Mistral-Small-3.2-24B-Instruct-2506", "Magistral-Small-2509-Q4_K_M.gguf"):
        fake_server.script(Text("Fine."))
        events = await collect(
            OpenAIProvider(name, fake_server.url + "/v1"), ChatRequest("Base.", resumed_from_claude())
        )
        assert events[-1] == StopEvent(reason="stop"), events
    assert len(fake_server.chat_requests) == 3 and fake_server.invalid_requests() == []
