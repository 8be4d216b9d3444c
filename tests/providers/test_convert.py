"""History conversion into each provider's wire shape (no server needed)."""

from __future__ import annotations

from navtui.config.settings import ProviderSettings
from navtui.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from navtui.providers.anthropic_convert import build_params, to_anthropic_messages
from navtui.providers.base import PARSE_ERROR_KEY, RAW_CALL_KEY, ChatRequest
from navtui.providers.ollama_convert import to_ollama_messages
from navtui.providers.openai_convert import normalise_base_url, to_openai_messages
from navtui.providers.pricing import estimate_cost, price_for
from navtui.providers.textprovider import to_text_messages

READ_A = ToolCall(id="call_0", name="read", arguments={"path": "a.py"})
LS = ToolCall(id="call_1", name="ls", arguments={})
HISTORY = [
    UserMessage(content="what is in a.py?"),
    AssistantMessage(
        content=[
            ThinkingBlock(thinking="I should read it.", thinking_signature="sig=="),
            TextBlock(text="Reading."),
            READ_A,
            LS,
        ]
    ),
    ToolResultMessage(tool_call_id="call_0", tool_name="wrong-name", content=[TextBlock(text="print(1)")]),
    ToolResultMessage.of(LS, "No such dir", is_error=True),
]


def test_ollama_shape() -> None:
    messages = to_ollama_messages("sys", HISTORY)
    assert messages == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "what is in a.py?"},
        {
            "role": "assistant",
            "content": "Reading.",
            "thinking": "I should read it.",
            "tool_calls": [
                {"id": "call_0", "function": {"name": "read", "arguments": {"path": "a.py"}}},
                {"id": "call_1", "function": {"name": "ls", "arguments": {}}},
            ],
        },
        # the name comes from the assistant message that made the call
        {"role": "tool", "content": "print(1)", "tool_name": "read", "tool_call_id": "call_0"},
        {"role": "tool", "content": "No such dir", "tool_name": "ls", "tool_call_id": "call_1"},
    ]


def test_ollama_images_and_empty_replies() -> None:
    user = UserMessage(content=[TextBlock(text="look"), ImageBlock(data="AAAA")])
    aborted = AssistantMessage(content=[], stop_reason="aborted")
    assert to_ollama_messages("", [user, aborted]) == [{"role": "user", "content": "look", "images": ["AAAA"]}]


def test_ollama_tool_result_images_go_only_to_vision_models() -> None:
    call = ToolCall(id="c1", name="mcp__web__screenshot")
    result = ToolResultMessage.of(call, "[image: image/png, 3 B]")
    result.content.append(ImageBlock(data="AAAA"))
    plain = to_ollama_messages("", [result])[0]
    assert "images" not in plain and plain["content"] == "[image: image/png, 3 B]"
    assert to_ollama_messages("", [result], tool_images=True)[0]["images"] == ["AAAA"]


def test_anthropic_shape_round_trips_thinking_and_merges_results() -> None:
    messages = to_anthropic_messages(HISTORY)
    assert messages[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "I should read it.", "signature": "sig=="},
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "call_0", "name": "read", "input": {"path": "a.py"}},
            {"type": "tool_use", "id": "call_1", "name": "ls", "input": {}},
        ],
    }
    assert messages[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_0", "content": "print(1)"},
            {"type": "tool_result", "tool_use_id": "call_1", "content": "No such dir", "is_error": True,
             "cache_control": {"type": "ephemeral"}},
        ],
    }  # fmt: skip
    assert "cache_control" not in messages[0]["content"][-1]  # only the newest user turn is a breakpoint


def test_anthropic_redacted_and_unsigned_thinking() -> None:
    reply = AssistantMessage(
        content=[
            ThinkingBlock(thinking="", thinking_signature="opaque", redacted=True),
            ThinkingBlock(thinking="from another provider"),
            TextBlock(text="hi"),
        ]
    )
    (message,) = to_anthropic_messages([reply])
    assert message["content"] == [{"type": "redacted_thinking", "data": "opaque"}, {"type": "text", "text": "hi"}]


def test_anthropic_ids_from_other_providers_are_made_safe() -> None:
    call = ToolCall(id="call.7:x", name="read", arguments={PARSE_ERROR_KEY: "bad", RAW_CALL_KEY: "{"})
    messages = to_anthropic_messages([AssistantMessage(content=[call]), ToolResultMessage.of(call, "err")])
    assert messages[0]["content"][0] == {"type": "tool_use", "id": "call_7_x", "name": "read", "input": {}}
    assert messages[1]["content"][0]["tool_use_id"] == "call_7_x"


def test_anthropic_params_thinking_budget_and_caching() -> None:
    request = ChatRequest(system="sys", messages=[UserMessage(content="hi")], think="low", temperature=0.3)
    params = build_params(request, "claude-sonnet-4-5", ProviderSettings(max_tokens=4096))
    assert params["system"] == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert params["max_tokens"] == 4096 + 2048
    assert "temperature" not in params  # refused by the API together with thinking
    plain = build_params(ChatRequest(system="", messages=[], temperature=0.3), "m", ProviderSettings())
    assert plain["temperature"] == 0.3 and "thinking" not in plain and "system" not in plain


def test_openai_shape() -> None:
    messages = to_openai_messages("sys", HISTORY)
    assert messages[2] == {
        "role": "assistant",
        "content": "Reading.",
        "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "read", "arguments": '{"path": "a.py"}'}},
            {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}},
        ],
    }
    assert messages[3:] == [
        {"role": "tool", "tool_call_id": "call_0", "content": "print(1)"},
        {"role": "tool", "tool_call_id": "call_1", "content": "No such dir"},
    ]


def test_openai_base_url_with_or_without_version() -> None:
    assert normalise_base_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080/v1"
    assert normalise_base_url("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080/v1"
    assert normalise_base_url("https://openrouter.ai/api") == "https://openrouter.ai/api/v1"
    assert normalise_base_url("https://g.example/v1beta/openai") == "https://g.example/v1beta/openai"
    assert normalise_base_url("localhost:1234") == "http://localhost:1234/v1"


def test_text_protocol_history() -> None:
    messages = to_text_messages([*HISTORY, UserMessage(content="and now?")])
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    assistant, results = messages[1], messages[2]
    assert isinstance(assistant, AssistantMessage) and not assistant.tool_calls
    assert assistant.thinking == "I should read it."
    assert assistant.text == (
        'Reading.\n\n<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tool_call>\n\n'
        '<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>'
    )
    assert results.text == (
        '<tool_result name="read">\nprint(1)\n</tool_result>\n\n'
        '<tool_result name="ls" error="true">\nNo such dir\n</tool_result>\n\nand now?'
    )


def test_pricing() -> None:
    assert price_for("claude-sonnet-4-5-20250929") == price_for("claude-sonnet-4")
    assert price_for("qwen3:4b") is None
    cost = estimate_cost("claude-sonnet-4-5", Usage(input=1_000_000, output=100_000, cache_read=1_000_000))
    assert cost is not None and round(cost.total, 4) == round(3.0 + 1.5 + 0.30, 4)
    assert estimate_cost("llama3.2", Usage(input=10)) is None
