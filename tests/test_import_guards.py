"""What an idle session and a plain reply do not import (docs/speed.md, memory): each module named here loads
where it is first used, and the test next to its guard shows that use still works.

A guard runs the real start-up path in a fresh interpreter and lists ``sys.modules``; a module a session holds
costs its code and classes for the life of the process whether it is used or not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.style import Style

ROOT = Path(__file__).resolve().parents[1]


def _loaded(code: str, modules: list[str], cwd: Path) -> list[str]:
    """Run ``code`` in a fresh interpreter in ``cwd``; which of ``modules`` it left in ``sys.modules``."""
    script = f"{code}\nimport sys, json\nprint(json.dumps([m for m in {modules!r} if sys.modules.get(m)]))"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, env=env, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


IDLE_RUNTIME = """
from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.app.commands.registry import COMMANDS
from pathlib import Path
options = LaunchOptions(cwd=Path.cwd(), provider="ollama", base_url="http://127.0.0.1:9", model="qwen2.5-coder:7b")
runtime = Runtime.create(options)
COMMANDS.import_modules()  # what the app imports with the runtime, in its thread
COMMANDS.load()
assert COMMANDS.get("tree") is not None and COMMANDS.get("resume") is not None
"""


def test_an_idle_session_without_mcp_servers_loads_no_manager_screens_or_glob_matcher(workspace: Path) -> None:
    # The runtime and the slash commands as the app builds them after its first frame, in a directory with no
    # MCP servers configured, no index and no .gitignore. The MCP manager and its connection and tool modules,
    # the tree and session picker screens (and Textual's DataTable) and pathspec load when first used: a
    # configured server (tests/mcp), /tree and /resume (tests/app/test_tree_pilot.py, test_sessions_picker.py),
    # find and grep --glob (tests/tools/files/test_search.py). The undo and restore screens, the approval dialog
    # and a restore plan's diff load with the first /undo or question about the files
    # (tests/app/test_checkpoints_pilot.py); the session changes of /tree, /branch and /label with their first use.
    # The restore's planning and writing load with the first /undo or restore too; the advisor (its tool and the
    # watchdog's rules) when one starts (tests/agent/test_advisor.py); the files a command must not change, and
    # what says a sandbox blocked it, with the first command (the test below); the MCP configuration's models only
    # when a configuration file is there (below).
    heavy = [
        "navtui.mcp.manager",
        "navtui.mcp.connection",
        "navtui.mcp.tool",
        "navtui.app.screens.tree",
        "navtui.app.screens.sessions",
        "navtui.app.screens.branch_summary",
        "textual.widgets._data_table",
        "pathspec",
        "navtui.index.builder",
        "navtui.app.tree_actions",
        "navtui.app.screens.restore",
        "navtui.app.screens.approval",
        "navtui.checkpoints.present",
        "navtui.checkpoints.restore",
        "navtui.agent.advisor",
        "navtui.config.watchdog",
        "navtui.tools.sandbox.guard",
        "navtui.tools.sandbox.blocked",
        "navtui.mcp.config",
    ]
    assert _loaded(IDLE_RUNTIME, heavy, workspace) == []
    # The same start with a server configured builds the manager (its SDK still waits for the server to start).
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"echo": {"command": "true"}}}))
    loaded = _loaded(IDLE_RUNTIME + "\nassert runtime.mcp is not None", ["navtui.mcp.manager", "mcp"], workspace)
    assert loaded == ["navtui.mcp.manager"]


def test_an_mcp_file_that_is_there_is_read_even_when_it_holds_nothing_usable(
    workspace: Path, navtui_home: Path
) -> None:
    # Only a missing file is skipped without loading the configuration: the user's file, broken, still gets its
    # warning (and an unreadable one would too: anything but "not found" is read).
    (navtui_home / "mcp.json").write_text("{not json")
    code = IDLE_RUNTIME + "\nassert runtime.mcp is not None and 'invalid JSON' in runtime.mcp.notices[0][0]"
    assert _loaded(code, ["navtui.mcp.config"], workspace) == ["navtui.mcp.config"]


def test_the_first_command_loads_the_guard_and_it_undoes_what_the_command_must_not_change(workspace: Path) -> None:
    # An idle session has not loaded the guard (above); the first command loads it, and a change to a file navtui
    # would later run from (.mcp.json) is undone, and a failing command is looked at for a sandbox's denial.
    code = (
        IDLE_RUNTIME
        + """
import asyncio, sys
from navtui.tools.approval import ApprovalPolicy
assert "navtui.tools.sandbox.guard" not in sys.modules
shell = runtime.tools.get("shell")
runtime.ctx.approval = ApprovalPolicy(mode="yolo")
command = "echo '{\\"mcpServers\\": {}}' > .mcp.json; exit 3"
result = asyncio.run(shell.run(shell.parse_args({"command": command, "wait_ms": 60000}), runtime.ctx))
runtime.ctx.jobs.kill_all_sync(grace=0.5)
assert "navtui undid" in result.text and result.is_error, result.text
assert not Path(".mcp.json").exists()
"""
    )
    modules = ["navtui.tools.sandbox.guard", "navtui.tools.sandbox.blocked"]
    assert _loaded(code, modules, workspace) == modules


def test_a_reply_without_an_index_loads_no_index_builder(fake_server, workspace: Path) -> None:
    # The first prompt asks the repository index for a note; with no index (and inject "auto") nothing of the
    # builder, chunker or tree-sitter is loaded. With inject "on" the turn builds it
    # (tests/agent/test_repo_index.py: test_inject_on_builds_the_index_in_the_first_turn).
    from tests.fakes import Text

    fake_server.script(Text("Done."))
    index = ["navtui.index.builder", "navtui.index.note", "navtui.index.chunker", "navtui.index.treesitter"]
    assert _loaded(_reply(fake_server.url), index, workspace) == []


def _reply(url: str, answer: str = "Done.") -> str:
    """A runtime's start and one prompt against the fake server at ``url``, whose answer ends with ``answer``."""
    return f"""
import asyncio
from pathlib import Path
from navtui.agent.runtime import LaunchOptions, Runtime
from navtui.core.events import TurnFinished
async def main():
    options = LaunchOptions(cwd=Path.cwd(), provider="ollama", base_url={url!r}, model="qwen2.5-coder:7b")
    runtime = Runtime.create(options)
    events = [event async for event in runtime.run("what does main.py do?")]
    finished = [event for event in events if isinstance(event, TurnFinished)]
    assert finished and finished[-1].message.text == {answer!r}, events
    await runtime.aclose()
asyncio.run(main())
"""


def test_a_reply_loads_neither_the_text_tool_protocol_nor_the_edit_matcher(
    fake_server, workspace: Path, navtui_home: Path
) -> None:
    # A model with native tool calls never uses the text protocol's provider; the edit tool's matching loads with
    # the first edit (tests/tools/files/test_edit.py).
    from tests.fakes import Text

    fake_server.script(Text("Done."))
    fake_server.script(Text("Done again."))
    modules = ["navtui.providers.textprovider", "navtui.tools.files.editmatch"]
    assert _loaded(_reply(fake_server.url), modules, workspace) == []
    # With the text tool protocol set, the first request loads it, and the answer comes through it.
    (navtui_home / "settings.json").write_text(json.dumps({"providers": {"tool_protocol": "text"}}))
    loaded = _loaded(_reply(fake_server.url, "Done again."), modules, workspace)
    assert loaded == ["navtui.providers.textprovider"]


def test_markdown_renders_links_without_linkify(workspace: Path) -> None:
    # navtui's parsers are CommonMark with linkify off; the CLI makes markdown-it take linkify_it as missing
    # (navtui.cli._without_unused_imports), which it handles: a reply's Markdown renders as before.
    code = """
from navtui.cli import _without_unused_imports
_without_unused_imports()
from rich.console import Console
from rich.style import Style
from navtui.widgets.markdown.render import palette_for, render_markdown
source = "See https://example.com and [the docs](https://example.com/docs).\\n\\n# Title\\n\\n- item `code`\\n"
lines = render_markdown(source, Console(width=80, color_system=None), 80, Style(), palette_for({}))
text = "\\n".join("".join(segment.text for segment in line).rstrip() for line in lines)
assert "See https://example.com and the docs (https://example.com/docs)." in text and "Title" in text and "item code" in text, text
"""
    assert _loaded(code, ["linkify_it", "markdown_it"], workspace) == ["markdown_it"]


def test_rendered_markdown_is_the_same_with_and_without_linkify() -> None:
    # In this process linkify_it may be loaded (Textual's own widgets use it): navtui's parser never enables it,
    # so the lines are the ones the guarded process renders above.
    from navtui.widgets.markdown.blocks import parser
    from navtui.widgets.markdown.render import palette_for, render_markdown

    assert parser().options.get("linkify") is False
    lines = render_markdown(
        "Go to https://example.com now.", Console(width=40, color_system=None), 40, Style(), palette_for({})
    )
    assert "".join(segment.text for segment in lines[0]).rstrip() == "Go to https://example.com now."
