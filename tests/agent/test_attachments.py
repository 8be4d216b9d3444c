"""One attachment step: ``@path`` files and the files a prompt names, what counts, the budget, what never goes."""

from __future__ import annotations

import os
from pathlib import Path

from navtui.agent.attachments import ATTACH_LIMIT, attach_files, attached_paths, named_files, named_paths


def make(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_named_workspace_files_are_found_in_order(tmp_path: Path) -> None:
    make(tmp_path, {"README.md": "x", "src/app.py": "y", "notes.txt": "z"})
    prompt = "Read README.md, fix src/app.py. Not missing.py, not https://x.org/a.py, not @notes.txt, not v1.2."
    assert named_files(prompt, tmp_path) == ["README.md", "src/app.py"]


def test_a_version_is_no_file_name() -> None:
    # append_line: "numpy>=1.26" was taken for a new file 1.26, and the 1.5B was asked to write it (and did).
    assert named_paths("Add the line numpy>=1.26 at the end of requirements.txt.") == ["requirements.txt"]
    assert named_paths("Pin rich==13.7 and bump to 2.0.1 in setup.py.") == ["setup.py"]
    assert named_paths("Edit hello.py and src/a.b.py.") == ["hello.py", "src/a.b.py"]


def test_the_named_file_goes_with_the_prompt_byte_for_byte(tmp_path: Path) -> None:
    make(tmp_path, {"README.md": "Project codeword: amber\n\nmore\n"})
    result = attach_files("Read README.md and give its first line.", tmp_path, window=4096)
    assert result.paths == ["README.md"]
    assert result.text.endswith('<attached_file path="README.md">\nProject codeword: amber\n\nmore\n</attached_file>\n')


def test_files_over_the_window_budget_are_left_out_and_said(tmp_path: Path) -> None:
    make(tmp_path, {"big.py": "x = 1\n" * 1000, "small.py": "y = 2\n"})
    result = attach_files("Compare big.py and small.py", tmp_path, window=2048)  # 2048 bytes of budget
    assert result.paths == ["small.py"] and "x = 1" not in result.text
    assert result.skipped and result.skipped[0].startswith("big.py (6000 bytes")


def test_protected_files_files_outside_and_already_attached_ones_are_not_attached(tmp_path: Path) -> None:
    make(tmp_path / "ws", {".env": "TOKEN=secret\n", "a.py": "a\n"})
    make(tmp_path, {"outside.py": "o\n"})
    prompt = 'Read .env and ../outside.py and a.py\n\n<attached_file path="a.py">\na\n</attached_file>\n'
    result = attach_files(prompt, tmp_path / "ws", window=None)
    assert result.paths == [] and result.text == prompt


def test_at_paths_attach_text_files_and_say_what_they_cannot(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2")
    assert attached_paths("look @a.py and @a.py, @b") == ["a.py", "b"]
    result = attach_files("fix @a.py and @bin.dat, mail me@x.org", tmp_path)
    assert result.paths == ["a.py"] and result.problems == ["@bin.dat: a binary file, not attached"]
    assert result.text.startswith(
        'fix @a.py and @bin.dat, mail me@x.org\n\n<attached_file path="a.py">\nA = 1\n</attached_file>'
    )
    unchanged = attach_files("no refs", tmp_path)
    assert (unchanged.text, unchanged.paths, unchanged.problems) == ("no refs", [], [])


def test_an_at_path_in_quotes_may_hold_spaces(tmp_path: Path) -> None:
    (tmp_path / "my notes.md").write_text("N\n")
    (tmp_path / "a.py").write_text("A\n")
    assert attached_paths('see @"my notes.md", @a.py and @"unclosed') == ["my notes.md", "a.py", '"unclosed']
    result = attach_files('see @"my notes.md" and @a.py', tmp_path, named=False)
    assert result.paths == ["my notes.md", "a.py"]
    assert '<attached_file path="my notes.md">\nN\n</attached_file>' in result.text


def test_an_at_path_to_a_name_that_is_not_utf8_is_written_as_it_shows(tmp_path: Path) -> None:
    """``@caf\\xe9.txt`` (the prompt cannot hold the byte): that file, once, and a file really named so first."""
    (tmp_path / os.fsdecode(b"caf\xe9.txt")).write_text("latin\n")
    result = attach_files("see @caf\\xe9.txt", tmp_path)
    assert result.paths == ["caf\\xe9.txt"] and '<attached_file path="caf\\xe9.txt">\nlatin\n' in result.text
    assert attach_files(result.text, tmp_path).text == result.text  # already attached: not again
    (tmp_path / "caf\\xe9.txt").write_text("literal\n")  # backslash, x, e, 9
    assert "\nliteral\n" in attach_files("see @caf\\xe9.txt", tmp_path).text


def test_an_at_path_and_a_named_file_go_together_and_both_count_as_read(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "A = 1\n", "b.py": "B = 2\n"})
    read: list[Path] = []
    result = attach_files("Compare @a.py with b.py", tmp_path, seen=lambda path, data: read.append(path))
    assert result.paths == ["a.py", "b.py"] and result.named == ["b.py"]
    assert result.text == (
        "Compare @a.py with b.py\n\n"
        '<attached_file path="a.py">\nA = 1\n</attached_file>\n<attached_file path="b.py">\nB = 2\n</attached_file>\n'
    )
    assert read == [(tmp_path / "a.py").resolve(), (tmp_path / "b.py").resolve()]
    assert [n.text for n in result.notices()] == ["Attached b.py: named in the prompt."]


def test_a_file_named_both_ways_is_attached_once(tmp_path: Path) -> None:
    make(tmp_path, {"src/a.py": "A = 1\n"})
    result = attach_files("Fix @src/a.py: src/a.py fails, see ./src/a.py and @./src/a.py", tmp_path)
    assert result.paths == ["src/a.py"] and result.named == [] and result.text.count("<attached_file") == 1
    assert result.notices() == []


def test_at_paths_are_cut_at_the_limit_and_take_the_budget_first(tmp_path: Path) -> None:
    make(tmp_path, {"huge.txt": "x" * (ATTACH_LIMIT + 10), "small.py": "y = 2\n"})
    wholes: list[bytes | None] = []
    result = attach_files("@huge.txt then small.py", tmp_path, window=None, seen=lambda path, data: wholes.append(data))
    assert result.paths == ["huge.txt"]  # the user asked for it: cut, never refused for the budget
    assert f'<attached_file path="huge.txt" truncated="{ATTACH_LIMIT} bytes">' in result.text
    assert wholes == [None]  # cut: the read tracker stamps the file on disk, not the part sent
    assert result.skipped == ["small.py (6 bytes, more than the 0 left for attachments)"]


def test_named_files_can_be_turned_off(tmp_path: Path) -> None:
    make(tmp_path, {"a.py": "A = 1\n", "b.py": "B = 2\n"})
    result = attach_files("Compare @a.py with b.py", tmp_path, named=False)
    assert result.paths == ["a.py"] and "B = 2" not in result.text


async def test_a_run_sends_the_named_file_and_says_so(fake_server, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    from navtui.agent.runtime import LaunchOptions, Runtime
    from navtui.core.events import Notice
    from tests.fakes import Text

    (workspace / "README.md").write_text("Project codeword: amber-falcon-42\n")
    fake_server.set_llamacpp(n_ctx=4096)
    fake_server.script(Text("Done."))
    options = LaunchOptions(cwd=workspace, model="m", provider="openai", base_url=fake_server.url, ephemeral=True)
    runtime = Runtime.create(options)
    try:
        events = [e async for e in runtime.run("Read README.md and write its first line into answer.txt")]
        seen = runtime.ctx.file_state.seen((workspace / "README.md").resolve())
    finally:
        await runtime.aclose()
    assert seen is not None  # the model read it with the prompt: it may edit it without a read call
    user = fake_server.chat_requests[0].json["messages"][-1]["content"]
    assert "amber-falcon-42" in user and user.startswith("Read README.md")
    assert any(isinstance(e, Notice) and "Attached README.md" in e.text for e in events)


def test_inert_mentions_keeps_only_the_users_own(tmp_path: Path) -> None:
    """An MCP prompt's text: its @mentions, bare or quoted, go in backticks; those the user wrote stay live."""
    from navtui.agent.attachments import inert_mentions

    text = 'see @"my notes.md", @a.md and @docs:notes://today'
    assert inert_mentions(text, keep="@a.md") == 'see `@"my notes.md"`, @a.md and `@docs:notes://today`'
    assert inert_mentions(text, keep='@"my notes.md"') == 'see @"my notes.md", `@a.md` and `@docs:notes://today`'
    assert attached_paths(inert_mentions(text)) == []
