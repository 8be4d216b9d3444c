"""Session files with fixed ids and timestamps, and a small host app, for the tree and picker tests.

Pilots that need the agent loop use the real ``Runtime`` against the fake server instead (test_tree_pilot.py).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from navtui.session.listing import project_sessions_dir
from navtui.session.manager import SessionManager
from navtui.themes.live import register_themes
from navtui.themes.loader import ThemeRegistry
from navtui.themes.textual_theme import nav_variable_defaults

START = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)
NOW = datetime(2025, 3, 5, 18, 0, tzinfo=UTC)


class SessionWriter:
    """Builds a session file line by line: ``user``/``assistant``/``tool`` return the new entry id."""

    def __init__(self, cwd: Path, session_id: str = "0123456789abcdef") -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.records: list[dict[str, Any]] = []
        self.clock = START
        self._count = 0

    def _add(self, parent: str | None, body: dict[str, Any], entry_id: str | None = None) -> str:
        self._count += 1
        entry_id = entry_id or f"e{self._count:07d}"
        self.clock += timedelta(minutes=1)
        stamp = self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.records.append({"id": entry_id, "parentId": parent, "timestamp": stamp, **body})
        return entry_id

    def _ms(self) -> int:
        return int((self.clock + timedelta(minutes=1)).timestamp() * 1000)

    def user(self, parent: str | None, text: str) -> str:
        message = {"role": "user", "content": text, "timestamp": self._ms()}
        return self._add(parent, {"type": "message", "message": message})

    def assistant(self, parent: str | None, text: str = "", calls: list[tuple[str, str, dict[str, Any]]] = ()) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [{"type": "toolCall", "id": cid, "name": name, "arguments": args} for cid, name, args in calls]
        message = {
            "role": "assistant",
            "content": content,
            "model": "qwen2.5-coder:7b",
            "provider": "ollama",
            "stopReason": "toolUse" if calls else "stop",
            "timestamp": self._ms(),
        }
        return self._add(parent, {"type": "message", "message": message})

    def tool(self, parent: str, call_id: str, name: str, text: str, *, error: bool = False) -> str:
        message = {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": name,
            "content": [{"type": "text", "text": text}],
            "isError": error,
            "timestamp": self._ms(),
        }
        return self._add(parent, {"type": "message", "message": message})

    def entry(self, parent: str | None, kind: str, **fields: Any) -> str:
        return self._add(parent, {"type": kind, **fields})

    def write(self, root: Path | None = None, name: str | None = None) -> Path:
        directory = project_sessions_dir(self.cwd.resolve(), root)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / (name or f"2025-03-05T09-00-00-000Z_{self.session_id}.jsonl")
        header = {
            "type": "session",
            "version": 3,
            "id": self.session_id,
            "timestamp": START.isoformat().replace("+00:00", "Z"),
            "cwd": str(self.cwd.resolve()),
        }
        lines = [json.dumps(header)] + [json.dumps(record) for record in self.records]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path


def two_branch_session(cwd: Path) -> tuple[Path, dict[str, str]]:
    """A session with a tool run and two branches from the first answer; the second branch holds the leaf."""
    w = SessionWriter(cwd)
    ids: dict[str, str] = {}
    ids["info"] = w.entry(None, "session_info", name="Fix the failing parser test")
    ids["u1"] = w.user(ids["info"], "Fix the failing parser test\nIt fails on empty input.")
    ids["a1"] = w.assistant(ids["u1"], calls=[("c1", "read", {"path": "src/parser.py"})])
    ids["t1"] = w.tool(ids["a1"], "c1", "read", "def parse(text): ...")
    ids["a2"] = w.assistant(ids["t1"], "The parser indexes text[0] without checking for empty input.")
    ids["u2"] = w.user(ids["a2"], "Try a guard clause")
    ids["a3"] = w.assistant(ids["u2"], calls=[("c2", "edit", {"path": "src/parser.py"})])
    ids["t2"] = w.tool(ids["a3"], "c2", "edit", "Edited src/parser.py")
    ids["a4"] = w.assistant(ids["t2"], "Added a guard clause; the test passes now.")
    ids["u3"] = w.user(ids["a2"], "Rewrite the parser with a tokenizer instead")
    ids["a5"] = w.assistant(ids["u3"], calls=[("c3", "shell", {"command": "pytest -q tests/test_parser.py"})])
    ids["t3"] = w.tool(ids["a5"], "c3", "shell", "1 failed", error=True)
    ids["a6"] = w.assistant(ids["t3"], "The tokenizer version still fails on unicode input.")
    ids["model"] = w.entry(ids["a6"], "model_change", provider="ollama", modelId="qwen3:14b")
    ids["u4"] = w.user(ids["model"], "Handle unicode too")
    ids["a7"] = w.assistant(ids["u4"], "Done: the tokenizer now reads code points.")
    return w.write(), ids


class HostApp(App[None]):
    """A bare app with navtui's themes, to push one screen on."""

    def __init__(self, screen: Screen[Any] | None = None) -> None:
        super().__init__()
        self.registry = ThemeRegistry()
        self.first_screen = screen
        self.results: list[Any] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return nav_variable_defaults()

    def compose(self) -> ComposeResult:
        yield Static("transcript")

    def on_mount(self) -> None:
        register_themes(self, self.registry)
        self.theme = getattr(self, "theme_name", "dark")
        if self.first_screen is not None:
            self.push_screen(self.first_screen, self.results.append)


def open_session(path: Path) -> SessionManager:
    return SessionManager.open(path)
