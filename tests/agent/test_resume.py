"""Resuming a session continues on its provider, model and thinking level, never renames it, and says so when its
model cannot be reached. Real runtimes against the fake Ollama server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.session.listing import list_sessions
from tests.fakes import Text

FIXTURES = Path(__file__).parents[1] / "session" / "fixtures"
THINKER = "qwen3:4b"


def runtime(workspace: Path, url: str, **options: object) -> Runtime:
    return Runtime.create(LaunchOptions(cwd=workspace, base_url=url, **options))  # type: ignore[arg-type]


async def ask(rt: Runtime, prompt: str) -> None:
    async for _event in rt.run(prompt):
        pass


def kinds(rt: Runtime) -> list[str]:
    return [entry.type for entry in rt.session.entries]


async def test_continue_runs_on_the_model_and_thinking_level_the_session_used(fake_server, workspace: Path) -> None:
    fake_server.set_model(THINKER, capabilities=("completion", "tools", "thinking"))
    first = runtime(workspace, fake_server.url, model=THINKER, provider="ollama", thinking="high")
    fake_server.script(Text("one"))
    await ask(first, "first question")
    await first.aclose()
    assert kinds(first)[:2] == ["model_change", "thinking_level_change"]

    resumed = runtime(workspace, fake_server.url, continue_session=True)
    assert (resumed.provider.name, resumed.provider.model, resumed.thinking_level) == ("ollama", THINKER, "high")
    fake_server.script(Text("two"))
    await ask(resumed, "second question")
    request = fake_server.chat_requests[-1].json
    assert request["model"] == THINKER and request["think"] == "high"
    assert kinds(resumed).count("model_change") == 1  # nothing changed, nothing recorded
    await resumed.aclose()


async def test_flags_override_the_session_and_the_switch_is_recorded(fake_server, workspace: Path) -> None:
    first = runtime(workspace, fake_server.url, model=THINKER, provider="ollama", thinking="high")
    fake_server.script(Text("one"))
    await ask(first, "first")
    await first.aclose()
    resumed = runtime(workspace, fake_server.url, continue_session=True, model="llama3.1:8b", thinking="off")
    assert (resumed.provider.model, resumed.thinking_level) == ("llama3.1:8b", "off")
    fake_server.script(Text("two"))
    await ask(resumed, "second")
    assert fake_server.chat_requests[-1].json["model"] == "llama3.1:8b"
    context = resumed.session.build_context()
    assert (context.provider, context.model, context.thinking_level) == ("ollama", "llama3.1:8b", "off")
    await resumed.aclose()


async def test_an_unreachable_session_model_gives_way_to_the_configured_one_with_a_notice(
    fake_server, workspace: Path, tmp_path: Path, navtui_home: Path
) -> None:
    path = tmp_path / "pi-v3.jsonl"
    shutil.copyfile(FIXTURES / "pi-v3.jsonl", path)  # pi recorded openai/gpt-4o; no OPENAI_API_KEY here
    (navtui_home / "settings.json").write_text(json.dumps({"provider": "ollama", "base_url": fake_server.url}))
    rt = Runtime.create(LaunchOptions(cwd=workspace, resume=str(path)))
    assert (rt.provider.name, rt.provider.model, rt.thinking_level) == ("openai", "gpt-4o", "high")
    status = await rt.check_provider()
    assert status.ok and status.notice is not None
    assert "openai/gpt-4o" in status.notice and "No OpenAI API key" in status.notice
    assert "ollama/qwen2.5-coder:7b" in status.notice
    assert (rt.provider.name, rt.provider.model) == ("ollama", "qwen2.5-coder:7b")
    fake_server.script(Text("on ollama"))
    await ask(rt, "go on")
    assert fake_server.chat_requests[-1].json["model"] == "qwen2.5-coder:7b"
    assert rt.session.build_context().model == "qwen2.5-coder:7b"  # the switch is in the file
    await rt.aclose()


async def test_a_provider_navtui_cannot_speak_to_is_named_at_start(
    fake_server, workspace: Path, tmp_path: Path
) -> None:
    lines = (FIXTURES / "pi-v3.jsonl").read_text().splitlines()
    google = [line.replace('"provider":"openai"', '"provider":"google"') for line in lines]
    path = tmp_path / "google.jsonl"
    path.write_text("\n".join(google) + "\n")
    rt = runtime(workspace, fake_server.url, resume=str(path))
    assert rt.provider.name == "ollama" and not rt.model_choice.restored
    [warning] = [w for w in rt.warnings if "google/gpt-4o" in w]
    assert "cannot connect" in warning and "qwen2.5-coder:7b" in warning
    await rt.aclose()


async def test_resuming_never_renames_a_session(fake_server, workspace: Path) -> None:
    first = runtime(workspace, fake_server.url, model=THINKER, provider="ollama")
    fake_server.script(Text("one"))
    await ask(first, "Fix the parser\nplease")
    await first.aclose()
    resumed = runtime(workspace, fake_server.url, continue_session=True)
    fake_server.script(Text("two"))
    await ask(resumed, "and now the lexer")
    await resumed.aclose()
    assert "session_info" not in kinds(resumed) and resumed.session.name is None
    assert resumed.session.title == "Fix the parser please"
    [row] = list_sessions(workspace)
    assert (row.name, row.named) == ("Fix the parser please", False)
    resumed.set_session_name("Parser work")
    [row] = list_sessions(workspace)
    assert (row.name, row.named) == ("Parser work", True)
    names = [json.loads(line).get("name") for line in resumed.session.path.read_text().splitlines()]
    assert names.count("Parser work") == 1
