"""The edits protocol's provider: what the server is sent, and which calls a reply becomes."""

from __future__ import annotations

from navtui.config.settings import ProviderSettings, Settings
from navtui.core.events import StopEvent, ToolCallEvent
from navtui.core.messages import AssistantMessage, TextBlock, ToolCall, ToolResultMessage, ToolSpec, UserMessage
from navtui.providers.base import PARSE_ERROR_KEY, ChatRequest, FileInPlay
from navtui.providers.edits import EditsProvider
from navtui.providers.openai import OpenAIProvider
from navtui.providers.registry import build_provider
from tests.fakes import Done, Drop, Text
from tests.fakes.server import FakeServer
from tests.providers.support import collect, text_of


def _tool(name: str) -> ToolSpec:
    return ToolSpec(name=name, description=name, parameters={"type": "object", "properties": {}})


TOOLS = tuple(_tool(name) for name in ("read", "write", "edit", "shell", "ls"))
SYSTEM = (
    "You are navtui, a coding agent. Use the tools.\n\nEnvironment:\n- working directory: /w\n\nProject rules: tabs."
)
CALC = FileInPlay("calc.py", "def add(a, b):\n    return a - b\n")


def provider(server: FakeServer) -> EditsProvider:
    return EditsProvider(OpenAIProvider("qwen2.5-coder-1.5b", server.url, ProviderSettings()))


def ask(*messages: object, files: tuple[FileInPlay, ...] = (CALC,), tools: tuple[ToolSpec, ...] = TOOLS) -> ChatRequest:
    history = list(messages) or [UserMessage(content="Fix add in calc.py.")]
    return ChatRequest(system=SYSTEM, messages=history, tools=tools, files=files)  # type: ignore[arg-type]


def calls(events: list[object]) -> list[tuple[str, dict[str, object]]]:
    return [(e.call.name, e.call.arguments) for e in events if isinstance(e, ToolCallEvent)]


def test_registry_builds_it_for_any_provider() -> None:
    settings = Settings(providers=ProviderSettings(tool_protocol="edits"))
    built = build_provider(settings, model="qwen2.5-coder-1.5b", provider="openai", base_url="http://127.0.0.1:1")
    assert isinstance(built, EditsProvider) and built.wants_files and not built.offers_tools


async def test_the_server_gets_no_tools_a_short_prompt_and_the_files_before_the_request(
    fake_server: FakeServer,
) -> None:
    fake_server.script(Text("calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"))
    events = await collect(provider(fake_server), ask())
    body = fake_server.chat_requests[-1].json
    assert "tools" not in body
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert system.startswith("You are navtui, a coding assistant") and "Use the tools" not in system
    assert system.endswith("Environment:\n- working directory: /w\n\nProject rules: tabs.\n")
    assert len(system) < 1600  # ~400 tokens: small windows
    assert user == "Files:\n\ncalc.py\n```\ndef add(a, b):\n    return a - b\n```\n\nFix add in calc.py."
    assert calls(events) == [("write", {"path": "calc.py", "content": "def add(a, b):\n    return a + b\n"})]
    assert events[-1] == StopEvent(reason="tool_use") and text_of(events) == ""


async def test_history_goes_back_as_blocks_and_results_as_what_happened(fake_server: FakeServer) -> None:
    write = ToolCall(id="c1", name="write", arguments={"path": "calc.py", "content": "x = 1\n"})
    shell = ToolCall(id="c2", name="shell", arguments={"command": "python3 calc.py"})
    edit = ToolCall(id="c3", name="edit", arguments={"path": "calc.py", "old_text": "x = 1", "new_text": "x = 2"})
    history = [
        UserMessage(content='Fix it.\n\n<attached_file path="calc.py">\nstale\n</attached_file>\n'),
        AssistantMessage(content=[TextBlock(text="Fixing."), write, shell, edit]),
        ToolResultMessage.of(write, "Replaced calc.py: 1 line (6 B), +1 -2 lines.\n--- diff ..."),
        ToolResultMessage.of(shell, "Traceback...\n[exit code 1 · 0.1 s]", is_error=True),
        ToolResultMessage.of(edit, "old_text not found in calc.py.", is_error=True),
    ]
    fake_server.script(Text("It works now."))
    events = await collect(provider(fake_server), ask(*history))
    messages = fake_server.chat_requests[-1].json["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "stale" not in messages[1]["content"]  # the attached copy: the file is shown afresh instead
    assert messages[2]["content"] == (
        "Fixing.\n\ncalc.py\n```\nx = 1\n```\n\n```bash\npython3 calc.py\n```\n\n"
        "calc.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```"
    )
    results = messages[3]["content"]
    assert results.startswith("Files:\n\ncalc.py\n```\ndef add")
    assert "Replaced calc.py: 1 line (6 B), +1 -2 lines.\n\n$ python3 calc.py\nTraceback...\n[exit code 1" in results
    assert "calc.py: not changed. the SEARCH text not found in calc.py. Send a corrected block" in results
    assert "--- diff" not in results  # the file itself is shown: no diff needed
    assert text_of(events) == "It works now." and calls(events) == []


async def test_a_block_that_cannot_be_applied_comes_back_to_the_model_as_an_error(fake_server: FakeServer) -> None:
    fake_server.script(Text("calc.py\n```\n<<<<<<< SEARCH\n    return a - b\n```\n"))
    events = await collect(provider(fake_server), ask())
    ((name, args),) = calls(events)
    assert name == "edit" and "=======" in str(args[PARSE_ERROR_KEY])


async def test_an_empty_search_creates_a_new_file_but_never_overwrites_one(fake_server: FakeServer) -> None:
    block = "{path}\n```\n<<<<<<< SEARCH\n=======\nprint('hi')\n>>>>>>> REPLACE\n```\n"
    fake_server.script(Text(block.format(path="hello.py") + block.format(path="calc.py")))
    events = await collect(provider(fake_server), ask())
    (new, existing) = calls(events)
    assert new == ("write", {"path": "hello.py", "content": "print('hi')\n"})
    assert existing[0] == "edit" and "SEARCH section for calc.py is empty" in str(existing[1][PARSE_ERROR_KEY])


async def test_a_block_for_a_tool_not_on_offer_says_so(fake_server: FakeServer) -> None:
    fake_server.script(Text("```bash\nrm -rf build\n```\n"))
    events = await collect(provider(fake_server), ask(tools=(_tool("read"), _tool("write"), _tool("edit"))))
    ((name, args),) = calls(events)
    assert name == "shell" and "shell is not allowed" in str(args[PARSE_ERROR_KEY])


async def test_a_reply_cut_off_or_broken_inside_a_block_applies_nothing(fake_server: FakeServer) -> None:
    fake_server.script(Text("calc.py\n```python\ndef add(a, b):\n"), Done("length"))
    ((_, args),) = calls(await collect(provider(fake_server), ask()))
    assert "cut off" in str(args[PARSE_ERROR_KEY])
    fake_server.script(Text("calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"), Drop())
    events = await collect(provider(fake_server), ask())
    assert calls(events) == []


async def test_a_request_without_tools_passes_through(fake_server: FakeServer) -> None:
    fake_server.script(Text("A summary."))
    events = await collect(provider(fake_server), ChatRequest(system="Summarise.", messages=[UserMessage(content="x")]))
    assert text_of(events) == "A summary."
    assert fake_server.chat_requests[-1].json["messages"][0]["content"] == "Summarise."


async def test_an_agent_that_cannot_edit_gets_the_text_protocol(fake_server: FakeServer) -> None:
    # The advisor has read-only tools and its own "advise": blocks would give it nothing to call.
    fake_server.script(Text('<tool_call>\n{"name": "read", "arguments": {"path": "calc.py"}}\n</tool_call>'))
    events = await collect(provider(fake_server), ask(tools=(_tool("read"), _tool("advise"))))
    assert calls(events) == [("read", {"path": "calc.py"})]
    assert "<tool_call>" in fake_server.chat_requests[-1].json["messages"][0]["content"]


async def test_a_file_copied_out_unchanged_is_said_before_any_work_and_ends_the_turn_after(
    fake_server: FakeServer,
) -> None:
    # Qwen2.5-Coder 1.5B, asked to copy README.md's first line into answer.txt, first wrote README.md out as is.
    readme = FileInPlay("README.md", "Project codeword: amber-falcon-42\n\nThis project is a demo.\n")
    reply = "README.md\n```\nProject codeword: amber-falcon-42\n\nThis project is a demo.\n```\n"
    fake_server.script(Text(reply))
    answer = FileInPlay("answer.txt", "", note="a new file: it does not exist yet")
    ((name, args),) = calls(await collect(provider(fake_server), ask(files=(readme, answer))))
    assert name == "write" and "already has exactly this content" in str(args[PARSE_ERROR_KEY])
    assert str(args[PARSE_ERROR_KEY]).endswith(
        "The request asks for a new file, answer.txt: write the line answer.txt, then its content in a fenced block."
    )
    done = ToolCall(id="c1", name="write", arguments={"path": "answer.txt", "content": "x\n"})
    history = [
        UserMessage(content="Copy it."),
        AssistantMessage(content=[done]),
        ToolResultMessage.of(done, "Created answer.txt: 1 line (2 B)."),
    ]
    fake_server.script(Text(reply + "Done."))
    events = await collect(provider(fake_server), ask(*history, files=(readme,)))
    assert calls(events) == [] and text_of(events) == "Done." and events[-1] == StopEvent(reason="stop")


async def test_a_reply_that_only_describes_a_change_is_reminded_how_to_make_it(fake_server: FakeServer) -> None:
    # Qwen2.5-Coder 1.5B on the eval's fix_test: prose about the fix, then the test, and never the file.
    run = ToolCall(id="c1", name="shell", arguments={"command": "python3 test_calc.py"})
    described = "The bug is in `add`: change it to add. Run the test again."
    history = [
        UserMessage(content="python3 test_calc.py fails. Fix calc.py."),
        AssistantMessage(content=[TextBlock(text=described), run]),
        ToolResultMessage.of(run, "AssertionError\n[exit code 1 · 0.1 s]", is_error=True),
        AssistantMessage(content=[TextBlock(text="It is fixed now.")]),
        UserMessage(content="I ran the check `python3 test_calc.py` and it fails: ..."),
    ]
    fake_server.script(Text("ok"))
    await collect(provider(fake_server), ask(*history))
    messages = fake_server.chat_requests[-1].json["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "Your reply changed no file" in messages[3]["content"]  # after the results of the prose-only reply
    # "It is fixed now." is left out: the check's failure follows the results, and the reminder ends it.
    assert "It is fixed now" not in str(messages)
    assert messages[3]["content"].endswith("then its whole new content in a fenced block.")
    assert "I ran the check" in messages[3]["content"]


async def test_an_answer_to_a_question_stays_and_the_next_request_gets_no_reminder(fake_server: FakeServer) -> None:
    history = [
        UserMessage(content="What does add do?"),
        AssistantMessage(content=[TextBlock(text="It subtracts b from a, which looks like a bug.")]),
        UserMessage(content="Then fix it."),
    ]
    fake_server.script(Text("ok"))
    await collect(provider(fake_server), ask(*history))
    messages = fake_server.chat_requests[-1].json["messages"]
    assert messages[2] == {"role": "assistant", "content": "It subtracts b from a, which looks like a bug."}
    assert messages[3]["content"].endswith("Then fix it.") and "changed no file" not in messages[3]["content"]


async def test_a_command_that_worked_needs_no_reminder(fake_server: FakeServer) -> None:
    remove = ToolCall(id="c1", name="shell", arguments={"command": "rm debug.log"})
    history = [
        UserMessage(content="Delete the file debug.log."),
        AssistantMessage(content=[remove]),
        ToolResultMessage.of(remove, "(no output)\n[exit code 0 · 0.1 s]"),
    ]
    fake_server.script(Text("Deleted."))
    await collect(provider(fake_server), ask(*history))
    assert "changed no file" not in fake_server.chat_requests[-1].json["messages"][-1]["content"]


async def test_a_description_asked_again_names_the_file_it_described(fake_server: FakeServer) -> None:
    # The 1.5B on the eval's recover task, word for word, twice: the same reminder got the same description back.
    described = (
        'The error in `config.json` is that the key `"name"` is missing a colon. It should be `"name": "demo"}`. '
        "After fixing this, the `build.py` script should run successfully."
    )
    history = [
        UserMessage(content="Run python3 build.py. It fails: fix config.json (not build.py) until it succeeds."),
        AssistantMessage(content=[TextBlock(text=described)]),
        UserMessage(content="I ran the check `python3 build.py` and it fails: ..."),
    ]
    files = (FileInPlay("build.py", "import json\n"), FileInPlay("config.json", '{"name": "demo",}\n'))
    fake_server.script(Text("ok"))
    await collect(provider(fake_server), ask(*history, files=files))
    sent = fake_server.chat_requests[-1].json["messages"]
    assert [m["role"] for m in sent] == ["system", "user"] and "missing a colon" not in sent[1]["content"]
    last = sent[-1]["content"]
    assert last.endswith(
        "Write the new config.json now: the line config.json on its own, then a fenced block with the whole new "
        "content of the file."
    )
    assert "build.py on its own" not in last


async def test_the_file_named_is_the_new_one_the_request_asks_for(fake_server: FakeServer) -> None:
    # The 1.5B on read_answer: README.md named first, answer.txt is the file the claim is about.
    from navtui.agent.claims import CLAIM_MESSAGE

    said = 'The first line of README.md is "Project codeword: amber-falcon-42". This line has been written into answer.txt.'
    history = [
        UserMessage(content="Read README.md and write its first line into a new file answer.txt."),
        AssistantMessage(content=[TextBlock(text=said)]),
        UserMessage(content=CLAIM_MESSAGE),
    ]
    files = (FileInPlay("README.md", "Project codeword: amber-falcon-42\n"), FileInPlay("answer.txt", "", note="new"))
    fake_server.script(Text("ok"))
    await collect(provider(fake_server), ask(*history, files=files))
    assert (
        fake_server.chat_requests[-1]
        .json["messages"][-1]["content"]
        .endswith(
            "Write the new answer.txt now: the line answer.txt on its own, then a fenced block with the whole new content "
            "of the file."
        )
    )


def test_a_described_change_is_a_block_only_when_its_line_is_one_line_of_one_file() -> None:
    from navtui.providers.base import FileInPlay
    from navtui.providers.edits import described_block

    calc = FileInPlay("calc.py", "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n")
    said = "The bug is in add: change `return a - b` to `return a + b`."
    assert described_block(said, [calc]) is None  # two lines hold it: which one is meant is not known
    one = FileInPlay("calc.py", "def add(a, b):\n    return a - b\n")
    assert described_block(said, [one]) == (
        "calc.py\n```\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```"
    )
    assert described_block("Replace `a - b` with `a + b` and `x` with `y`.", [one]) is None  # two changes
    assert described_block("It returns `a - b`; it should be `a + b`.", [one]) is None  # no change said
