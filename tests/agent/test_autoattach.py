"""Files the prompt names are attached to it: what counts as named, the budget, what is never attached."""

from __future__ import annotations

from pathlib import Path

from navtui.agent.autoattach import attach_named_files, named_files


def make(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_named_workspace_files_are_found_in_order(tmp_path: Path) -> None:
    make(tmp_path, {"README.md": "x", "src/app.py": "y", "notes.txt": "z"})
    prompt = "Read README.md, fix src/app.py. Not missing.py, not https://x.org/a.py, not @notes.txt, not v1.2."
    assert named_files(prompt, tmp_path) == ["README.md", "src/app.py"]


def test_the_named_file_goes_with_the_prompt_byte_for_byte(tmp_path: Path) -> None:
    make(tmp_path, {"README.md": "Project codeword: amber\n\nmore\n"})
    result = attach_named_files("Read README.md and give its first line.", tmp_path, window=4096)
    assert result.attached == ["README.md"]
    assert result.text.endswith('<attached_file path="README.md">\nProject codeword: amber\n\nmore\n</attached_file>\n')


def test_files_over_the_window_budget_are_left_out_and_said(tmp_path: Path) -> None:
    make(tmp_path, {"big.py": "x = 1\n" * 1000, "small.py": "y = 2\n"})
    result = attach_named_files("Compare big.py and small.py", tmp_path, window=2048)  # 2048 bytes of budget
    assert result.attached == ["small.py"] and "x = 1" not in result.text
    assert result.skipped and result.skipped[0].startswith("big.py (6000 bytes")


def test_protected_files_files_outside_and_already_attached_ones_are_not_attached(tmp_path: Path) -> None:
    make(tmp_path / "ws", {".env": "TOKEN=secret\n", "a.py": "a\n"})
    make(tmp_path, {"outside.py": "o\n"})
    prompt = 'Read .env and ../outside.py and a.py\n\n<attached_file path="a.py">\na\n</attached_file>\n'
    result = attach_named_files(prompt, tmp_path / "ws", window=None)
    assert result.attached == [] and result.text == prompt


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
    user = fake_server.chat_requests[-1].json["messages"][-1]["content"]
    assert "amber-falcon-42" in user and user.startswith("Read README.md")
    assert any(isinstance(e, Notice) and "Attached README.md" in e.text for e in events)
