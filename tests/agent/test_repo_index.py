"""The repository index in a session: the first request carries the context note; edits re-index."""

from __future__ import annotations

from pathlib import Path

from navtui.agent.repo_index import note_budget
from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import ContextInjected
from navtui.index import Index, build_index
from tests.fakes import Text, ToolCall

MODEL = "qwen2.5-coder:7b"


def make_repo(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    (root / "billing.py").write_text(
        "def compute_invoice_total(lines):\n    return sum(l.price * l.qty for l in lines)\n\n\n"
        "def format_currency(value):\n    return f'${value:.2f}'\n"
    )
    (root / "users.py").write_text("class UserRepository:\n    def find_by_email(self, email):\n        return None\n")
    return root


def runtime_for(root: Path, url: str, **settings: object) -> Runtime:
    rt = Runtime.create(LaunchOptions(cwd=root, provider="ollama", base_url=url, model=MODEL, approval="yolo"))
    for key, value in settings.items():
        setattr(rt.settings.index, key, value)
    return rt


async def test_first_prompt_carries_the_index_note_once(fake_server, tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    build_index(root)
    rt = runtime_for(root, fake_server.url)
    fake_server.script(Text("It sums price times quantity."))
    events = [e async for e in rt.run("how is the invoice total computed?")]
    injected = [e for e in events if isinstance(e, ContextInjected)]
    assert injected and injected[0].files[0] == "billing.py"
    first = fake_server.chat_requests[0].json["messages"]
    assert "compute_invoice_total" in first[1]["content"] and first[1]["role"] == "user"
    assert first[2]["content"] == "how is the invoice total computed?"
    fake_server.script(Text("ok"))
    events = [e async for e in rt.run("and the currency?")]
    assert not any(isinstance(e, ContextInjected) for e in events)
    # The note is part of the session: a resumed session sends it again.
    entries = [e for e in rt.session.entries if getattr(e, "type", "") == "custom_message"]
    assert entries and entries[0].custom_type == "index_context"
    await rt.aclose()


async def test_no_index_no_note_and_off_means_off(fake_server, tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    rt = runtime_for(root, fake_server.url)
    fake_server.script(Text("ok"))
    events = [e async for e in rt.run("invoice total?")]
    assert not any(isinstance(e, ContextInjected) for e in events)
    assert len(fake_server.chat_requests[0].json["messages"]) == 2  # system + prompt
    await rt.aclose()
    build_index(root)
    rt = runtime_for(root, fake_server.url, inject="off")
    fake_server.script(Text("ok"))
    events = [e async for e in rt.run("invoice total?")]
    assert not any(isinstance(e, ContextInjected) for e in events)
    await rt.aclose()


async def test_inject_on_builds_the_index_in_the_first_turn(fake_server, tmp_path: Path) -> None:
    # inject "on" without an index: the first turn builds it (imported then, not before: tests/test_import_guards.py)
    root = make_repo(tmp_path / "repo")
    rt = runtime_for(root, fake_server.url, inject="on")
    fake_server.script(Text("It sums price times quantity."))
    events = [e async for e in rt.run("how is the invoice total computed?")]
    injected = [e for e in events if isinstance(e, ContextInjected)]
    assert injected and injected[0].files[0] == "billing.py"
    index = Index.open(root)
    assert index is not None
    with index:
        assert index.search("compute_invoice_total", 5)
    await rt.aclose()


async def test_agent_edits_update_the_index(fake_server, tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    build_index(root)
    rt = runtime_for(root, fake_server.url, inject="off")
    fake_server.script(
        ToolCall("write", {"path": "shipping.py", "content": "def estimate_parcel_shipping(w):\n    return w * 2\n"})
    )
    fake_server.script(Text("added"))
    _ = [e async for e in rt.run("add shipping")]
    with Index.open(root) as index:
        assert [s.path for s in index.symbols("estimate_parcel_shipping")] == ["shipping.py"]
    await rt.aclose()


def test_note_budget_scales_with_the_window() -> None:
    assert note_budget(4096) == 512 and note_budget(8192) == 1024
    assert note_budget(1_000_000) == 4096 and note_budget(1024) == 256 and note_budget(None) == 2048


async def test_the_index_is_asked_about_the_users_words_not_the_files_attached(fake_server, tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    build_index(root)
    (root / "notes.txt").write_text("compute_invoice_total format_currency invoice total currency\n")
    rt = runtime_for(root, fake_server.url)
    fake_server.script(Text("A list of names."))
    events = [e async for e in rt.run("Summarise notes.txt")]
    await rt.aclose()
    assert not any(isinstance(e, ContextInjected) for e in events)  # nothing in the index matches these words
    sent = fake_server.chat_requests[0].json["messages"]
    assert len(sent) == 2 and '<attached_file path="notes.txt">' in sent[1]["content"]  # the file still went
