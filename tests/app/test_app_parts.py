"""The app's plain parts: completion, prompt history, the command registry, session entries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navtui.app.commands import CommandRegistry
from navtui.app.completion import (
    argument_prefix,
    completable,
    complete_argument,
    complete_command,
    complete_path,
)
from navtui.app.history import PromptHistory
from navtui.app.session_view import transcript_items
from navtui.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCall, ToolResultMessage, UserMessage
from navtui.session.entries import CompactionEntry, CustomMessageEntry, MessageEntry
from navtui.widgets.items import AssistantItem, DividerItem, ThinkingItem, ToolItem, UserItem
from navtui.widgets.status_line import human_tokens, short_path


def values(completion) -> list[str]:
    return [c.value for c in completion.candidates]


def test_command_completion() -> None:
    names = ["model", "models", "help", "export"]
    one = complete_command("/he", 3, names, {"help": "list commands"}, submits=frozenset({"help"}))
    assert values(one) == ["/help"] and one.candidates[0].detail == "list commands" and one.candidates[0].submits
    both = complete_command("/mo", 3, names)
    assert values(both) == ["/model", "/models"] and both.common == "/model" and both.offers_more
    assert (both.start, both.end, both.typed) == (0, 3, "/mo")
    assert values(complete_command("/", 1, names)) == ["/export", "/help", "/model", "/models"]
    assert not complete_command("/export", 7, names).offers_more  # nothing left to complete
    assert complete_command("/model x", 8, names) is None and complete_command("hi /he", 6, names) is None


def test_argument_completion() -> None:
    themes = ["dark", "gruvbox", "light", "Nord"]
    found = complete_argument("/theme g", 8, themes)
    assert values(found) == ["gruvbox"] and (found.start, found.end) == (7, 8) and found.candidates[0].submits
    assert values(complete_argument("/theme ", 7, themes)) == themes
    assert values(complete_argument("/theme no", 9, themes)) == ["Nord"]  # case does not matter
    assert complete_argument("/theme x", 8, themes) is None and complete_argument("/theme", 6, themes) is None
    assert argument_prefix("/model qwen", 11) == ("model", 7, "qwen")
    assert completable("/mo", 3) and completable("see @sr", 7) and not completable("plain words", 11)


def test_path_completion(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "src" / "mailer.py").write_text("")
    (tmp_path / "src" / "maps").mkdir()
    (tmp_path / ".hidden").write_text("")
    folder = complete_path("see @s", 6, tmp_path)
    assert values(folder) == ["@src/"] and not folder.candidates[0].ends_token and folder.start == 4
    several = complete_path("see @src/ma", 11, tmp_path)
    assert values(several) == ["@src/maps/", "@src/mailer.py", "@src/main.py"]  # folders first
    assert several.common == "@src/ma" and several.candidates[2].ends_token
    assert values(complete_path("see @src/main", 13, tmp_path)) == ["@src/main.py"]
    assert complete_path("mail@s", 6, tmp_path) is None  # not an @path: an e-mail address
    assert values(complete_path("see @.h", 7, tmp_path)) == ["@.hidden"]


def test_a_name_that_is_not_utf8_completes_by_the_form_the_prompt_shows(tmp_path: Path) -> None:
    """The prompt holds ``\\xe9`` for such a byte: what is typed after it, and a folder so named, still complete."""
    folder = tmp_path / os.fsdecode(b"d\xe9p\xf4t")
    folder.mkdir()
    (folder / "notes.txt").write_text("")
    assert values(complete_path("@d\\xe9", 7, tmp_path)) == [f"@{folder.name}/"]
    assert values(complete_path("@d\\xe9p\\xf4t/n", 15, tmp_path)) == ["@d\\xe9p\\xf4t/notes.txt"]


def test_a_path_with_a_space_completes_in_quotes(tmp_path: Path) -> None:
    # "@my notes.md" taken from the list was attached as nothing: "@my" is no file, and the rest was plain text.
    (tmp_path / "my notes.md").write_text("")
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my dir" / "a b.py").write_text("")
    found = complete_path("see @my", 7, tmp_path)
    assert values(found) == ['@"my dir/', '@"my notes.md"']
    assert not found.candidates[0].ends_token and found.candidates[1].ends_token
    assert values(complete_path('see @"my n', 10, tmp_path)) == ['@"my notes.md"']  # spaces inside the quotes
    assert values(complete_path('see @"my dir/', 13, tmp_path)) == ['@"my dir/a b.py"']
    assert completable('see @"my d', 10) and not completable('see @"my notes.md" and', 22)


def test_history_walks_and_keeps_the_draft(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text('"one"\nnot json\n"two"\n')
    history = PromptHistory(path)
    history.load()
    assert history.entries == ["one", "two"]
    assert history.previous("draft") == "two" and history.previous("two") == "one" and history.previous("one") is None
    assert history.next() == "two" and history.next() == "draft" and history.next() is None
    assert history.add("three") and not history.add("three") and not history.add("  ")
    history.save("three")
    assert path.read_text().endswith('"three"\n')


async def test_registry_runs_commands_and_reports_unknown_ones() -> None:
    registry = CommandRegistry()
    seen: list[str] = []

    async def echo(ctx, args: str) -> None:
        seen.append(args)

    registry.command("echo", "repeat", args="TEXT", aliases=("e",))(echo)

    class Ctx:
        notices: list[str] = []

        def notice(self, text: str, level: str = "info", title: str | None = None, tag: str | None = None) -> None:
            self.notices.append(text)

    ctx = Ctx()
    assert await registry.run(ctx, "/echo hello world") and seen == ["hello world"]
    assert await registry.run(ctx, "/e again") and seen[-1] == "again"
    assert not await registry.run(ctx, "/echo")
    assert ctx.notices[-1] == "Usage: /echo TEXT — repeat"
    assert not await registry.run(ctx, "/nope")
    assert ctx.notices[-1] == "Unknown command: /nope. Type /help"


def test_command_modules_register_and_a_missing_one_is_an_error() -> None:
    registry = CommandRegistry()
    registry.load(("navtui.app.commands.builtin",))
    assert {"help", "model", "quit"} <= set(registry.names()) and registry.get("exit").name == "quit"
    # Every command module ships: a broken import is a loud error, never a silently missing command.
    with pytest.raises(ModuleNotFoundError):
        CommandRegistry().load(("navtui.app.commands.builtin", "navtui.app.commands.no_such_feature"))


def test_session_entries_become_transcript_items() -> None:
    call = ToolCall(id="c1", name="edit", arguments={"path": "a.py"})
    items = [
        MessageEntry(id="1", message=UserMessage(content="fix it")),
        MessageEntry(
            id="2",
            message=AssistantMessage(
                content=[ThinkingBlock(thinking="hmm"), TextBlock(text="Editing."), call], stop_reason="tool_use"
            ),
        ),
        MessageEntry(
            id="3",
            message=ToolResultMessage(
                tool_call_id="c1", tool_name="edit", content=[TextBlock(text="ok")], details={"diff": "-a\n+b\n"}
            ),
        ),
        CompactionEntry(id="4", summary="earlier work", tokens_before=9000),
        CustomMessageEntry(id="5", custom_type="handover", content="notes for the next context"),
    ]
    entries = transcript_items(items)
    assert [type(e) for e in entries] == [
        UserItem,
        ThinkingItem,
        AssistantItem,
        ToolItem,
        DividerItem,
        DividerItem,
    ]
    tool = entries[3]
    assert (
        tool.title is None
        and tool.arguments == {"path": "a.py"}
        and tool.status == "success"
        and tool.diff == "-a\n+b\n"
    )
    assert entries[4].detail == "earlier work" and "handover" in entries[5].label


def test_status_formatting() -> None:
    assert human_tokens(999) == "999" and human_tokens(12345) == "12.3k" and human_tokens(200000) == "200k"
    long = "/very/long/path/" + "/".join(f"dir{i}" for i in range(20)) + "/project"
    assert short_path(long, 30).startswith("…/") and short_path(long, 30).endswith("/project")
    assert len(short_path(long, 30)) <= 30


def test_transcript_markdown_keeps_model_html_as_text() -> None:
    from markdown_it import MarkdownIt

    from navtui.app.export import transcript_markdown

    entries = [
        UserItem("why <b>?"),
        ThinkingItem("</details><img src=x onerror=alert(1)>"),
        AssistantItem("use `List<int>` <script>x</script>"),
        ToolItem(call_id="c", name="read", title="a`b<c>.py", status="success", result="<html>file</html>"),
    ]
    text = transcript_markdown(entries)
    previewed = MarkdownIt("commonmark").render(text)
    assert previewed.count("<details>") == 1 and previewed.count("</details>") == 1  # only our own wrapper
    for tag in ("<img", "<script", "<b>", "<html>"):
        assert tag not in previewed, tag
    assert "<code>List&lt;int&gt;</code>" in previewed and "&lt;html&gt;file" in previewed
    assert "``a`b<c>.py``" in text
