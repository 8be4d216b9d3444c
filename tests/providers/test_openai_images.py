"""Images in tool results on OpenAI-compatible servers: sent where a tool message cannot hold them, or said dropped."""

from __future__ import annotations

from navtui.core.events import StopEvent
from navtui.core.messages import AssistantMessage, ImageBlock, TextBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.providers.base import ChatRequest, ProviderNotice
from navtui.providers.openai import OpenAIProvider
from navtui.providers.openai_convert import to_openai_messages
from tests.fakes import Text
from tests.fakes.server import FakeServer
from tests.providers.support import TOOLS, collect

MODEL = "qwen2.5-vl-7b"
PNG = "iVBORw0KGgo="


def screenshot_turn() -> list[UserMessage | AssistantMessage | ToolResultMessage]:
    """A user asks, the model calls a screenshot tool and ls, the screenshot comes back with an image."""
    shot, listing = ToolCall(id="call_1", name="mcp__web__screenshot"), ToolCall(id="call_2", name="ls")
    image = ToolResultMessage.of(shot, "[image: image/png, 8 B]")
    image.content.append(ImageBlock(data=PNG))
    return [
        UserMessage(content="what does the page show?"),
        AssistantMessage(content=[TextBlock(text="Looking."), shot, listing]),
        image,
        ToolResultMessage.of(listing, "index.html"),
    ]


def test_tool_images_follow_the_tool_messages_in_one_user_message() -> None:
    messages = to_openai_messages("sys", screenshot_turn())
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": "[image: image/png, 8 B]"}
    parts = messages[5]["content"]
    assert parts[1] == {"type": "text", "text": "1 image from mcp__web__screenshot (call_1):"}
    assert parts[2] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}


def test_refused_images_are_left_out_and_the_model_is_told_why() -> None:
    history = [UserMessage(content=[TextBlock(text="see"), ImageBlock(data=PNG)]), *screenshot_turn()[1:]]
    messages = to_openai_messages("", history, images_refused="the server does not take images")
    assert "image_url" not in str(messages) and [m["role"] for m in messages] == ["user", "assistant", "tool", "tool"]
    assert messages[2]["content"].endswith("[1 image not sent to you: the server does not take images]")
    assert messages[0]["content"] == "see\n[an image, not sent to you: the server does not take images]\n"


async def test_the_users_next_words_join_the_tool_images_message_not_a_second_user_message(
    fake_server: FakeServer,
) -> None:
    """The images of tool results go in a user message after the tool messages; a user's words after them (Esc,
    then a prompt) made two user messages in a row, which templates that want roles to alternate refuse."""
    fake_server.set_model(MODEL, capabilities=("completion", "tools", "vision"))
    fake_server.alternating_roles = True
    fake_server.script(Text("It shows a login form."))
    history = [*screenshot_turn(), UserMessage(content=[TextBlock(text="and this one?"), ImageBlock(data=PNG)])]
    events = await collect(OpenAIProvider(MODEL, fake_server.url + "/v1"), ChatRequest("Base.", history, TOOLS))
    assert events[-1] == StopEvent(reason="stop")
    (sent,) = fake_server.chat_requests
    assert [m["role"] for m in sent.json["messages"]] == ["system", "user", "assistant", "tool", "tool", "user"]
    parts = sent.json["messages"][-1]["content"]
    assert [p["type"] for p in parts] == ["text", "text", "image_url", "text", "image_url"]
    assert parts[3] == {"type": "text", "text": "and this one?"}
    plain = to_openai_messages("", [*screenshot_turn()[:1], UserMessage(content="more")])
    assert plain == [{"role": "user", "content": "what does the page show?\n\nmore"}]


async def test_a_vision_model_gets_the_screenshot(fake_server: FakeServer) -> None:
    fake_server.set_model(MODEL, capabilities=("completion", "tools", "vision"))
    fake_server.script(Text("A login form."))
    request = ChatRequest(system="Base.", messages=screenshot_turn(), tools=TOOLS)
    events = await collect(OpenAIProvider(MODEL, fake_server.url + "/v1"), request)
    assert events[-1] == StopEvent(reason="stop") and not any(isinstance(e, ProviderNotice) for e in events)
    (sent,) = fake_server.chat_requests
    assert sent.json["messages"][-1]["content"][2]["type"] == "image_url"
    assert fake_server.invalid_requests() == []  # the tool results still answer the calls right after them


async def test_a_server_that_refuses_images_is_asked_again_without_them_and_both_are_told(
    fake_server: FakeServer,
) -> None:
    """llama.cpp without --mmproj answers 400 "image input is not supported": the turn goes on without the image,
    the user gets a notice and the model a line where the image was; later requests do not try again."""
    fake_server.set_model(MODEL)  # no vision capability
    fake_server.script(Text("I cannot see it, but index.html is there."))
    fake_server.script(Text("Still here."))
    provider = OpenAIProvider(MODEL, fake_server.url + "/v1")
    request = ChatRequest(system="Base.", messages=screenshot_turn(), tools=TOOLS)
    events = await collect(provider, request)
    assert events[-1] == StopEvent(reason="stop")
    (notice,) = [e for e in events if isinstance(e, ProviderNotice)]
    assert "does not take images" in notice.text and "image input is not supported" in notice.text
    refused, sent = fake_server.chat_requests
    assert "image_url" in str(refused.json) and "image_url" not in str(sent.json)
    assert "[1 image not sent to you: the server does not take images" in sent.json["messages"][3]["content"]
    await collect(provider, request)
    assert len(fake_server.chat_requests) == 3 and "image_url" not in str(fake_server.chat_requests[-1].json)


async def test_llamacpp_props_without_vision_leave_images_out_from_the_first_request(fake_server: FakeServer) -> None:
    fake_server.set_llamacpp(n_ctx=32768, vision=False)
    fake_server.script(Text("ok"))
    provider = OpenAIProvider(MODEL, fake_server.url + "/v1")
    await provider.model_info()
    events = await collect(provider, ChatRequest(system="Base.", messages=screenshot_turn(), tools=TOOLS))
    assert any(isinstance(e, ProviderNotice) and "--mmproj" in e.text for e in events)
    (sent,) = fake_server.chat_requests
    assert "image_url" not in str(sent.json) and events[-1] == StopEvent(reason="stop")
