"""The smaller habits of issue 31: words that say what happened (a refused key, a denial's reason), a .gitignore
inside .navtui/, titles without attached file text, the resume hint."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from navtui.providers.openai import OpenAIProvider
from navtui.tools.approval import ApprovalResponse, denial_message
from tests.fakes import HttpError
from tests.fakes.server import FakeServer
from tests.providers.support import collect
from tests.providers.test_openai import ask, make


def test_a_denial_reason_ends_with_one_full_stop() -> None:
    said = denial_message("shell", ApprovalResponse(approved=False, reason="never touch my home"))
    assert (
        said
        == "The user denied this shell call. Their reason: never touch my home. Do not retry it unchanged; adjust your approach."
    )
    asked = denial_message("shell", ApprovalResponse(approved=False, reason="why? "))
    assert "Their reason: why? Do not" in asked


async def test_a_refused_key_is_said_to_be_refused(fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    fake_server.script(HttpError(401, "invalid api key"))
    provider: OpenAIProvider = make(fake_server)
    (error,) = await collect(provider, ask())
    assert error.kind == "auth" and "refused the API key in OPENAI_API_KEY" in error.message
    assert error.hint == "check OPENAI_API_KEY (expired, revoked, or for another server than -b)"


async def test_without_a_key_the_hint_says_to_set_one(fake_server: FakeServer) -> None:
    fake_server.script(HttpError(401, "no key"))
    (error,) = await collect(make(fake_server), ask())
    assert error.hint == "set OPENAI_API_KEY or NAVTUI_API_KEY"


def test_the_index_keeps_git_status_clean(tmp_path: Path) -> None:
    from navtui.index import build_index

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "main.py").write_text("def main():\n    return 1\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "main.py"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "x"], cwd=repo, check=True)
    (repo / ".navtui").mkdir()
    (repo / ".navtui" / ".gitignore").write_text(
        "# navtui's repository index (rebuilt by `navtui index`)\nindex.sqlite*\n"
    )
    build_index(repo)  # an earlier navtui's .gitignore, which showed itself in git status, is replaced
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True)
    assert status.stdout == ""
    (repo / ".navtui" / "settings.json").write_text("{}")  # the project's own files stay committable
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True)
    assert status.stdout == "?? .navtui/\n"


def test_titles_hold_the_prompts_words_not_the_attached_text(workspace: Path) -> None:
    from navtui.core.messages import UserMessage
    from navtui.session.export import render_markdown
    from navtui.session.listing import list_sessions
    from navtui.session.manager import SessionManager

    session = SessionManager.create(workspace)
    session.append_message(
        UserMessage(content='look at @a.py\n\n<attached_file path="a.py">\nSECRET_BODY = 1\n</attached_file>')
    )
    session.sync()
    assert session.title == "look at @a.py"
    assert render_markdown(session).splitlines()[0] == "# look at @a.py"
    [listed] = list_sessions(workspace)
    assert listed.name == "look at @a.py"
    session.close()
    piped = SessionManager.create(workspace)
    piped.append_message(UserMessage(content="review this\n\n<stdin>\ndiff --git a/x b/x\n</stdin>"))
    assert piped.title == "review this"
    piped.close()
